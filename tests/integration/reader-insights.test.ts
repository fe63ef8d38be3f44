import { eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapterComments, chapterReads, chapters, commentAnchors } from "~/db/schema";
import { loader as insightsLoader } from "~/routes/shell/studio/reader-insights";
import { createWork } from "~/server/catalog/works.server";
import { saveEntity } from "~/server/studio/bible.server";
import { readerInsights } from "~/server/studio/reader-insights.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { bodyOf, callThroughRoutes, statusOf } from "./route-chain";
import type { ReaderInsightsView } from "~/server/studio/reader-insights.server";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

async function series(userId: string, contents: string[]) {
  const list = contents.map((content, i) => ({ title: `第${i + 1}章`, content }));
  const work = await createWork(userId, { ...base, title: "读者行为", type: "series", status: "ongoing" }, list, null);
  const rows = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(chapters.position, chapters.id);
  return { workId: work.id, ids: rows.map((r) => r.id) };
}

let owner: { id: string };
let u: { id: string }[];
beforeAll(async () => {
  owner = await createUser();
  u = await Promise.all(Array.from({ length: 7 }, () => createUser()));
});

describe("drop-off by chapter", () => {
  it("counts settled readers who did not read the next chapter within 7 days, leaves recent ones pending, marks the steepest", async () => {
    const { workId, ids } = await series(owner.id, ["一", "二", "三", "四"]);
    const [c1, c2, c3, c4] = ids;
    // Every chapter out since January, but 第3章 only on 2026-02-20 (12:00 China time).
    await db.update(chapters).set({ publishAt: new Date("2026-01-01T00:00:00Z") }).where(inArray(chapters.id, ids));
    await db.update(chapters).set({ publishAt: new Date("2026-02-20T04:00:00Z") }).where(eq(chapters.id, c3));
    const reads: [number, number, string][] = [
      // 第1章: readers 0-5 first on 02-10 (their 7 days end 02-17), reader 6 on 02-25 (still pending on 03-01).
      ...[0, 1, 2, 3, 4, 5].map((i) => [i, c1, "2026-02-10"] as [number, number, string]),
      [0, c1, "2026-02-11"],
      [4, c1, "2026-02-12"],
      [6, c1, "2026-02-25"],
      // 第2章: 0 the same day, 1 on the last day (02-17), 2 a day late, 3 before 第1章; 4 and 5 never.
      [0, c2, "2026-02-10"],
      [1, c2, "2026-02-17"],
      [2, c2, "2026-02-18"],
      [3, c2, "2026-02-05"],
      // 第3章 came out on 02-20: 第2章's readers have until 02-27. 3 on 02-21 goes on; 1 on 02-28 is late; 0 and 2 never.
      [3, c3, "2026-02-21"],
      [1, c3, "2026-02-28"],
      // 第4章: 3 goes on the next day.
      [3, c4, "2026-02-22"],
    ];
    await db.insert(chapterReads).values(reads.map(([i, chapterId, day]) => ({ userId: u[i].id, chapterId, workId, day })));
    // The author's own read (never recorded by the reader, but never counted either).
    await db.insert(chapterReads).values({ userId: owner.id, chapterId: c1, workId, day: "2026-02-10" });

    const view = await readerInsights(owner.id, workId, { now: new Date("2026-03-01T04:00:00Z") });
    const pick = (r: ReaderInsightsView["drop"]["rows"][number]) => [r.order, r.settled, r.dropped, r.percent, r.pending, r.last, r.steep];
    expect(view.drop.rows.map(pick)).toEqual([
      // 6 settled (2, 4, 5 dropped): 50%; reader 6 pending. 6 ≥ 5 settled readers: marked.
      [1, 6, 3, 50, 1, false, true],
      // 4 settled (0, 1, 2 dropped): 75%, but fewer than 5 readers: not marked.
      [2, 4, 3, 75, 0, false, false],
      // Reader 3 read 第3章 on 02-21, settled on 02-28 and went on; reader 1 (02-28) pending until 03-07.
      [3, 1, 0, 0, 1, false, false],
      [4, 0, 0, null, 0, true, false],
    ]);
    expect(view.drop.steepest.map((r) => r.id)).toEqual([c1]);
    expect(view.drop.rows[0].label).toContain("第1章");
  });
});

describe("段评 heat per paragraph", () => {
  it("counts each paragraph's visible top-level 段评, in text order or hottest first", async () => {
    const { workId, ids } = await series(owner.id, ["第一段很平静。\n\n第二段没人评。\n第三段是高潮，主角终于突破了境界，所有人都震惊了，这一段写得很长很长很长，长到摘要放不下，只能截断显示。"]);
    const [c1] = ids;
    const [a0, a2, gone] = await db
      .insert(commentAnchors)
      .values([
        { chapterId: c1, paragraphIndex: 0, paragraphText: "第一段很平静。" },
        { chapterId: c1, paragraphIndex: 2, paragraphText: "第三段" },
        { chapterId: c1, paragraphIndex: null, paragraphText: "删掉的段落" },
      ])
      .returning({ id: commentAnchors.id });
    const comment = (userId: string, anchorId: number | null, extra: Partial<typeof chapterComments.$inferInsert> = {}) => ({
      workId,
      chapterId: c1,
      userId,
      anchorId,
      body: "好",
      ...extra,
    });
    const [top] = await db
      .insert(chapterComments)
      .values([
        comment(u[0].id, a2.id),
        comment(u[0].id, a0.id),
        comment(u[1].id, a0.id),
        comment(u[1].id, a2.id),
        comment(u[2].id, a2.id),
        comment(u[3].id, a2.id, { hiddenAt: new Date() }), // hidden: not counted
        comment(u[3].id, gone.id), // its paragraph was edited away: in 本章说, not here
        comment(u[3].id, null), // a 本章说
      ])
      .returning({ id: chapterComments.id });
    await db.insert(chapterComments).values(comment(u[4].id, null, { parentId: top.id })); // a reply: not a 段评

    const inOrder = await readerInsights(owner.id, workId, { chapterId: c1 });
    expect(inOrder.heatError).toBeNull();
    expect(inOrder.heat!.paragraphs.map((p) => [p.index, p.count])).toEqual([
      [0, 2],
      [1, 0],
      [2, 3],
    ]);
    expect([inOrder.heat!.total, inOrder.heat!.max]).toEqual([5, 3]);
    expect(inOrder.heat!.paragraphs[0].excerpt).toBe("第一段很平静。");
    // A long paragraph is cut to 40 characters and an ellipsis.
    expect(Array.from(inOrder.heat!.paragraphs[2].excerpt)).toHaveLength(41);
    expect(inOrder.heat!.paragraphs[2].excerpt.endsWith("…")).toBe(true);

    const hot = await readerInsights(owner.id, workId, { chapterId: c1, order: "hot" });
    expect(hot.heat!.paragraphs.map((p) => [p.index, p.count])).toEqual([
      [2, 3],
      [0, 2],
      [1, 0],
    ]);
  });
});

describe("characters mentioned in comments", () => {
  it("counts each comment once per character through names and aliases, characters only, visible and not the author's", async () => {
    const { workId, ids } = await series(owner.id, ["正文"]);
    const [c1] = ids;
    const xiao = await saveEntity(owner.id, workId, { kind: "character", name: "萧炎", aliases: ["炎帝", "萧少爷"] });
    const yao = await saveEntity(owner.id, workId, { kind: "character", name: "药老", aliases: ["药尘"] });
    await saveEntity(owner.id, workId, { kind: "character", name: "纳兰嫣然", aliases: [] });
    await saveEntity(owner.id, workId, { kind: "place", name: "加玛帝国", aliases: [] });
    const comment = (userId: string, body: string, extra: Partial<typeof chapterComments.$inferInsert> = {}) => ({ workId, chapterId: c1, userId, body, ...extra });
    const [first] = await db
      .insert(chapterComments)
      .values([
        comment(u[0].id, "萧炎太帅了，炎帝威武，萧少爷！"), // 萧炎 once, however many names
        comment(u[1].id, "药尘和萧炎的师徒情"), // both
        comment(u[2].id, "加玛帝国好大"), // a place: not a character
        comment(u[3].id, "蕭炎回來了"), // traditional characters fold to 萧炎
        comment(u[4].id, "萧炎", { hiddenAt: new Date() }), // hidden: not counted
        comment(owner.id, "萧炎和药老"), // the author's own: not counted
      ])
      .returning({ id: chapterComments.id });
    await db.insert(chapterComments).values(comment(u[5].id, "药老！", { parentId: first.id })); // a reply counts

    const view = await readerInsights(owner.id, workId);
    expect(view.mentions.hasCharacters).toBe(true);
    expect(view.mentions.characters.map((c) => [c.id, c.name, c.count])).toEqual([
      [xiao, "萧炎", 3],
      [yao, "药老", 2],
    ]);
    expect([view.mentions.scanned, view.mentions.capped]).toEqual([5, false]);
  });

  it("says so when the bible has no characters", async () => {
    const { workId } = await series(owner.id, ["正文"]);
    const view = await readerInsights(owner.id, workId);
    expect(view.mentions).toEqual({ characters: [], scanned: 0, capped: false, hasCharacters: false });
  });
});

describe("permissions and bad input", () => {
  it("shows the owner's page; another user's work is 404; a visitor is sent to log in", async () => {
    const { workId } = await series(owner.id, ["正文"]);
    const path = `/works/${workId}/stats/readers`;
    const mine = await callThroughRoutes(insightsLoader, { request: userRequest(await sessionCookieFor(owner.id), path) });
    expect(statusOf(mine)).toBe(200);
    expect(bodyOf<ReaderInsightsView>(mine).work.id).toBe(workId);
    const stranger = await callThroughRoutes(insightsLoader, { request: userRequest(await sessionCookieFor(u[0].id), path) }).catch((e) => e);
    expect(statusOf(stranger)).toBe(404);
    const visitor = await callThroughRoutes(insightsLoader, { request: new Request(`http://localhost${path}`) }).catch((e) => e);
    expect(visitor).toBeInstanceOf(Response);
    expect((visitor as Response).status).toBe(302);
    expect((await domainError(readerInsights(u[0].id, workId))).status).toBe(404);
  });

  it("answers a chapter not of this work, a draft or garbage with a Chinese message and 404, junk order and page with defaults, never 500", async () => {
    const { workId, ids } = await series(owner.id, ["正文"]);
    const other = await series(owner.id, ["别的"]);
    const draft = await insertChapter(owner.id, workId, { title: "存稿", content: "未完", release: { mode: "draft" } }, "end");
    const cookie = await sessionCookieFor(owner.id);
    const load = (query: string) => callThroughRoutes(insightsLoader, { request: userRequest(cookie, `/works/${workId}/stats/readers${query}`) });
    for (const query of [`?chapter=${other.ids[0]}`, `?chapter=${draft}`, "?chapter=abc", "?chapter=-1", "?chapter=0", "?chapter=99999999999999999999"]) {
      const result = await load(query);
      expect(statusOf(result), query).toBe(404);
      expect(bodyOf<ReaderInsightsView>(result).heatError, query).toBe(STUDIO_MESSAGES.heatChapterNotFound);
      expect(bodyOf<ReaderInsightsView>(result).heat, query).toBeNull();
    }
    for (const query of ["?order=sideways", "?page=abc", "?page=-5", "?page=99999", "?chapter=&page=&order="]) {
      const result = await load(query);
      expect(statusOf(result), query).toBe(200);
      expect(bodyOf<ReaderInsightsView>(result).drop.page, query).toBe(1);
      expect(bodyOf<ReaderInsightsView>(result).heat, query).toBeNull();
    }
    const good = bodyOf<ReaderInsightsView>(await load(`?chapter=${ids[0]}&order=sideways`));
    expect(good.heat!.order).toBe("text");
    for (const path of ["/works/abc/stats/readers", "/works/0/stats/readers", "/works/99999999999/stats/readers"]) {
      const error = await callThroughRoutes(insightsLoader, { request: userRequest(cookie, path) }).catch((e) => e);
      expect(statusOf(error), path).toBe(404);
    }
  });
});
