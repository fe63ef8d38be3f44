import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { action as newChapterAction } from "~/routes/shell/studio/chapter-new";
import { getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { CHAPTER_PUBLISHED_TOPIC, subscribe, type LiveEvent } from "~/server/platform/events.server";
import { tableOfContents } from "~/server/reading/reader.server";
import { deleteChapter, insertChapter, managerPage, publishChapterNow } from "~/server/studio/chapters.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { releaseDueChapters } from "~/server/studio/scheduled-release.server";
import { startReleasePoller, stopReleasePoller } from "~/server/jobs/release-poller.server";
import { createWork } from "~/server/catalog/works.server";
import { formatShanghai, parseShanghaiLocal, toShanghaiInput } from "~/utils/shanghai-time";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { callThroughRoutes } from "./route-chain";
import { domainError } from "../fixtures/domain-error";
import { quietFor, waitFor } from "../fixtures/wait";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };
const HOUR = 3_600_000;

function series(userId: string) {
  return createWork(userId, { ...base, title: "连载", type: "series", status: "ongoing" }, [{ title: "第一章", content: "一二三" }], null);
}
async function workRow(id: number) {
  return (await db.select().from(works).where(eq(works.id, id)))[0];
}
/** Makes a scheduled chapter due, as if its time had come. */
async function makeDue(workId: number) {
  await db.execute(sql`update chapters set publish_at = now() - interval '1 second' where work_id = ${workId} and state = 'scheduled'`);
}

const published: LiveEvent[] = [];
let unsubscribe = () => {};
let owner: { id: string };
beforeAll(async () => {
  owner = await createUser();
  unsubscribe = await subscribe(CHAPTER_PUBLISHED_TOPIC, (e) => published.push(e));
});
afterAll(() => unsubscribe());

async function eventsFor(chapterIds: number[]): Promise<Map<number, number>> {
  const wanted = new Set(chapterIds);
  const count = () => published.filter((e) => wanted.has(Number(e.chapterId))).length;
  // Every chapter's event (notifications arrive after the commit), then a moment in which
  // a second event for any of them would arrive too.
  await waitFor(`${chapterIds.length} chapter-published events`, () => count() >= chapterIds.length, { timeout: 10_000 });
  await quietFor(300);
  const map = new Map<number, number>();
  for (const e of published) if (wanted.has(Number(e.chapterId))) map.set(Number(e.chapterId), (map.get(Number(e.chapterId)) ?? 0) + 1);
  return map;
}

describe("China time", () => {
  it("reads and shows times in Asia/Shanghai", () => {
    expect(parseShanghaiLocal("2026-12-01T20:00")?.toISOString()).toBe("2026-12-01T12:00:00.000Z");
    expect(parseShanghaiLocal("2026-02-30T20:00")).toBeNull();
    expect(parseShanghaiLocal("明天")).toBeNull();
    expect(formatShanghai(new Date("2026-12-31T16:30:00Z"))).toBe("2027-01-01 00:30");
    expect(toShanghaiInput(new Date("2026-12-31T16:30:00Z"))).toBe("2027-01-01T00:30");
  });
});

describe("drafts", () => {
  it("are invisible to readers and uncounted until published, then published once", async () => {
    const work = await series(owner.id);
    const draft = await insertChapter(owner.id, work.id, { title: "存稿一", content: "四五六七", release: { mode: "draft" } }, "end");
    const empty = await insertChapter(owner.id, work.id, { title: "空存稿", content: "", release: { mode: "draft" } }, "end");
    expect(await workRow(work.id)).toMatchObject({ chapterCount: 1, wordCount: 3 });
    expect((await tableOfContents(work.id, true)).chapters.map((c) => c.title)).toEqual(["第一章"]);
    expect(await getChapterByOrder(work.id, 2)).toBeNull();
    const manager = await managerPage(owner.id, work.id, 1);
    expect(manager.rows.map((r) => (r.kind === "chapter" ? [r.title, r.state] : null))).toEqual([
      ["第一章", "published"],
      ["存稿一", "draft"],
      ["空存稿", "draft"],
    ]);

    // Publishing needs text.
    expect((await domainError(publishChapterNow(owner.id, work.id, empty))).message).toBe("请输入章节内容");
    await publishChapterNow(owner.id, work.id, draft);
    expect(await workRow(work.id)).toMatchObject({ chapterCount: 2, wordCount: 7 });
    expect((await getChapterByOrder(work.id, 2))?.title).toBe("存稿一");
    expect((await domainError(publishChapterNow(owner.id, work.id, draft))).message).toBe("该章节已发布");
    expect((await eventsFor([draft])).get(draft)).toBe(1);

    // A published chapter stays published; its text may not become empty.
    expect((await domainError(saveChapter(owner.id, work.id, draft, { kind: "save", title: "存稿一", content: " ", release: { mode: "draft" } }))).message).toBe("请输入章节内容");
    await saveChapter(owner.id, work.id, draft, { kind: "save", title: "第二章", content: "改", release: { mode: "draft" } });
    expect((await db.select().from(chapters).where(eq(chapters.id, draft)))[0].state).toBe("published");
  });

  it("keeps the last published chapter, and deletes drafts freely", async () => {
    const work = await series(owner.id);
    const draft = await insertChapter(owner.id, work.id, { title: "存稿", content: "文", release: { mode: "draft" } }, "end");
    const [first] = await db.select().from(chapters).where(and(eq(chapters.workId, work.id), eq(chapters.state, "published")));
    expect((await domainError(deleteChapter(owner.id, work.id, first.id))).message).toBe("作品至少要保留一个已发布的章节");
    await deleteChapter(owner.id, work.id, draft);
    expect((await workRow(work.id)).chapterCount).toBe(1);
  });
});

describe("scheduled chapters", () => {
  it("refuse a time in the past; appear at their time, counted, announced once", async () => {
    const work = await series(owner.id);
    const past = new Date(Date.now() - 60_000);
    expect((await domainError(insertChapter(owner.id, work.id, { title: "过去", content: "文", release: { mode: "at", at: past } }, "end"))).message).toBe(
      "定时发布的时间必须晚于现在",
    );
    const id = await insertChapter(owner.id, work.id, { title: "明日更新", content: "八九十", release: { mode: "at", at: new Date(Date.now() + HOUR) } }, "end");
    const row = (await managerPage(owner.id, work.id, 1)).rows.find((r) => r.kind === "chapter" && r.id === id);
    expect(row).toMatchObject({ state: "scheduled", publishAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/) });
    // Not due yet: nothing happens.
    await releaseDueChapters();
    expect((await tableOfContents(work.id, false)).total).toBe(1);

    await makeDue(work.id);
    const before = (await workRow(work.id)).updatedAt;
    expect(await releaseDueChapters()).toBeGreaterThanOrEqual(1);
    expect(await releaseDueChapters()).toBe(0);
    expect((await tableOfContents(work.id, false)).chapters.map((c) => c.title)).toEqual(["第一章", "明日更新"]);
    const after = await workRow(work.id);
    expect([after.chapterCount, after.wordCount]).toEqual([2, 6]);
    expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect((await eventsFor([id])).get(id)).toBe(1);
  });

  it("1,000 chapters due at once, released by two connections at the same time: each published and announced once", async () => {
    const ids: number[] = [];
    const workIds: number[] = [];
    for (let w = 0; w < 4; w++) {
      const work = await series(owner.id);
      workIds.push(work.id);
      const inserted = await db
        .insert(chapters)
        .values(
          Array.from({ length: 250 }, (_, i) => ({
            workId: work.id,
            title: `定时${i}`,
            content: "字",
            position: (i + 2) * 65_536,
            wordCount: 1,
            state: "scheduled" as const,
            publishAt: new Date(Date.now() - 1000),
          })),
        )
        .returning({ id: chapters.id });
      ids.push(...inserted.map((r) => r.id));
    }
    // Two releasers at once (two pool connections on PostgreSQL), as two processes would.
    const counts = await Promise.all([releaseDueChapters(2), releaseDueChapters(2), releaseDueChapters(3)]);
    const rest = await releaseDueChapters();
    expect(counts.reduce((a, b) => a + b, 0) + rest).toBe(1000);
    const [{ n }] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(chapters)
      .where(and(sql`${chapters.workId} in (${sql.join(workIds, sql`, `)})`, eq(chapters.state, "published")));
    expect(n).toBe(1004);
    const events = await eventsFor(ids);
    expect(events.size).toBe(1000);
    expect([...events.values()].every((c) => c === 1)).toBe(true);
    for (const id of workIds) expect((await workRow(id)).chapterCount).toBe(251);
    if (databaseKind === "postgres") expect(counts.filter((c) => c > 0).length).toBeGreaterThanOrEqual(1);
  });

  it("the poller in each process releases them without being asked, and stops cleanly", async () => {
    const work = await series(owner.id);
    const id = await insertChapter(owner.id, work.id, { title: "自动发布", content: "文", release: { mode: "at", at: new Date(Date.now() + HOUR) } }, "end");
    await makeDue(work.id);
    startReleasePoller(50);
    try {
      const state = async () => (await db.select().from(chapters).where(eq(chapters.id, id)))[0].state;
      await waitFor("the poller to publish the chapter", async () => (await state()) === "published", { timeout: 10_000, interval: 50 });
    } finally {
      await stopReleasePoller();
    }
    expect((await db.select().from(chapters).where(eq(chapters.id, id)))[0].state).toBe("published");
    expect((await eventsFor([id])).get(id)).toBe(1);
  });
});

describe("/works/:id/chapters/new", () => {
  it("saves a draft, schedules in China time, and refuses a past or malformed time and empty text on publish", async () => {
    const work = await series(owner.id);
    const cookie = await sessionCookieFor(owner.id);
    const post = async (fields: Record<string, string>) => {
      try {
        return (await callThroughRoutes(newChapterAction, { request: userRequest(cookie, `/works/${work.id}/chapters/new`, fields) })) as unknown;
      } catch (thrown) {
        if (thrown instanceof Response) return thrown;
        throw thrown;
      }
    };
    const errors = (r: unknown) => (r as { data: { error: Record<string, string[]> } }).data.error;
    const status = (r: unknown) => (r instanceof Response ? r.status : (r as { init: { status: number } }).init.status);

    expect(errors(await post({ title: "空", content: "", release: "now" })).content).toEqual(["请输入章节内容"]);
    expect(errors(await post({ title: "坏时间", content: "文", release: "at", publishAt: "明天晚上" })).publishAt).toEqual(["请输入有效的定时发布时间"]);
    expect(errors(await post({ title: "无时间", content: "文", release: "at" })).publishAt).toEqual(["请选择定时发布的时间"]);
    const past = await post({ title: "过去", content: "文", release: "at", publishAt: toShanghaiInput(new Date(Date.now() - HOUR)) });
    expect([status(past), errors(past).publishAt]).toEqual([400, ["定时发布的时间必须晚于现在"]]);
    expect(errors(await post({ title: "长".repeat(101), content: "文", release: "draft" })).title).toEqual(["章节标题不能超过100个字"]);

    expect(status(await post({ title: "草稿", content: "", release: "draft" }))).toBe(302);
    const at = toShanghaiInput(new Date(Date.now() + 2 * HOUR));
    expect(status(await post({ title: "两小时后", content: "文", release: "at", publishAt: at }))).toBe(302);
    const rows = await db.select().from(chapters).where(eq(chapters.workId, work.id)).orderBy(asc(chapters.position));
    expect(rows.map((r) => [r.title, r.state])).toEqual([
      ["第一章", "published"],
      ["草稿", "draft"],
      ["两小时后", "scheduled"],
    ]);
    expect(toShanghaiInput(rows[2].publishAt!)).toBe(at);
    expect((await workRow(work.id)).chapterCount).toBe(1);
  });
});
