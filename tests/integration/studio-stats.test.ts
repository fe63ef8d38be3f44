import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapterReads, favorites, workPurchases, works } from "~/db/schema";
import { loader as statsLoader } from "~/routes/shell/studio/stats";
import { setFavorite } from "~/server/reading/favorites.server";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { saveProgress } from "~/server/reading/reader.server";
import { STATS_DAYS } from "~/schemas/studio";
import { CHAPTER_READS_KEPT_DAYS, deleteOldChapterReads, workStats } from "~/server/studio/author-stats.server";
import { createWork } from "~/server/catalog/works.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { bodyOf, callThroughRoutes, runRoute } from "./route-chain";
import { purchaseAllChapters, purchaseChapter } from "~/server/economy/chapter-sales.server";
import { getEconomySettings } from "~/server/economy/economy-settings.server";
import type { StatsView } from "~/server/studio/author-stats.server";
import { shanghaiDate, shanghaiDayStart } from "~/utils/shanghai-time";
import { fund, quickUsers } from "../fixtures/ledger";
import { serialByChapter } from "../fixtures/works";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

async function series(userId: string, n = 3) {
  const list = Array.from({ length: n }, (_, i) => ({ title: `第${i + 1}章`, content: `正文${i + 1}` }));
  return createWork(userId, { ...base, title: "统计连载", type: "series", status: "ongoing" }, list, null);
}
async function chapterIds(workId: number): Promise<number[]> {
  const rows = await db.execute(sql`select id from chapters where work_id = ${workId} order by position, id`);
  return ((Array.isArray(rows) ? rows : (rows as { rows: { id: number }[] }).rows) as { id: number | string }[]).map((r) => Number(r.id));
}
const at = (iso: string) => new Date(iso);
/** A signed-in reader opens a chapter at `when`: the position save records the day's read. */
const read = (userId: string, workId: number, chapterId: number, when: Date) => saveProgress(userId, workId, chapterId, 0, undefined, when);
/** Index of China-time day `day` in the stats' 30 days. */
const dayIndex = (days: string[], day: string) => days.indexOf(day);

let owner: { id: string };
let readers: { id: string }[];
beforeAll(async () => {
  owner = await createUser();
  readers = await Promise.all([createUser(), createUser(), createUser()]);
});

describe("distinct readers by China-time day", () => {
  it("counts each reader once a day per work and per chapter, split at midnight in Asia/Shanghai", async () => {
    const work = await series(owner.id);
    const [c1, c2] = await chapterIds(work.id);
    const [a, b, c] = readers;
    // 2026-11-30 23:59:59 and 2026-12-01 00:00:00 in China (UTC+8).
    const lateNov30 = at("2026-11-30T15:59:59Z");
    const earlyDec1 = at("2026-11-30T16:00:00Z");
    await read(a.id, work.id, c1, lateNov30);
    await read(a.id, work.id, c2, lateNov30); // same reader, another chapter: still one reader that day
    await read(a.id, work.id, c1, lateNov30); // again: nothing new
    await read(b.id, work.id, c1, lateNov30);
    await read(a.id, work.id, c1, earlyDec1); // after midnight: a new day
    await read(c.id, work.id, c2, earlyDec1);
    // 31 days before: outside the window.
    await read(c.id, work.id, c1, at("2026-10-31T04:00:00Z"));

    const stats = await workStats(owner.id, work.id, { now: at("2026-12-01T10:00:00Z") });
    expect(stats.days).toHaveLength(STATS_DAYS);
    expect(stats.days[0]).toBe("2026-11-02");
    expect(stats.days.at(-1)).toBe("2026-12-01");
    expect(stats.readers.values[dayIndex(stats.days, "2026-11-30")]).toBe(2);
    expect(stats.readers.values[dayIndex(stats.days, "2026-12-01")]).toBe(2);
    expect(stats.readers.total).toBe(4);
    expect(stats.readers.distinct).toBe(3);
    expect(stats.chapters.map((ch) => [ch.order, ch.readers])).toEqual([
      [1, 2],
      [2, 2],
      [3, 0],
    ]);
    // One row per reader, chapter and day, whatever the number of opens.
    const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(chapterReads).where(eq(chapterReads.workId, work.id));
    expect(n).toBe(6);

    const one = await workStats(owner.id, work.id, { chapterId: c1, now: at("2026-12-01T10:00:00Z") });
    expect(one.chapter).toMatchObject({ id: c1, order: 1, title: "第1章" });
    expect(one.chapter!.readers.values[dayIndex(one.days, "2026-11-30")]).toBe(2);
    expect(one.chapter!.readers.values[dayIndex(one.days, "2026-12-01")]).toBe(1);
    expect(one.chapter!.readers.distinct).toBe(2);
  });

  it("records a signed-in reader opening a chapter, but not the owner and not a visitor", async () => {
    const work = await series(owner.id, 2);
    const [c1] = await chapterIds(work.id);
    const page = await import("~/routes/shell/reader/work");
    const open = async (cookie: string | null) => {
      const headers: Record<string, string> = cookie ? { Cookie: cookie } : {};
      await runRoute("loader", page, new Request(`http://localhost/works/${work.id}?chapter=1`, { headers }));
    };
    const readerCookie = await sessionCookieFor(readers[0].id);
    await open(readerCookie);
    await open(readerCookie);
    await open(await sessionCookieFor(owner.id));
    await open(null);
    const rows = await db.select().from(chapterReads).where(eq(chapterReads.workId, work.id));
    expect(rows.map((r) => [r.userId, r.chapterId])).toEqual([[readers[0].id, c1]]);
    const stats = await workStats(owner.id, work.id);
    expect(stats.readers.values.at(-1)).toBe(1);
    expect(stats.chapters[0].readers).toBe(1);
  });
});

describe("old reading statistics", () => {
  it(`are deleted after ${CHAPTER_READS_KEPT_DAYS} China-time days, in batches, once however many processes run it`, async () => {
    const work = await series(owner.id);
    const [c1, c2, c3] = await chapterIds(work.id);
    const [a, b, c] = readers;
    // Kept: the 60 days ending 2025-03-15 start on 2025-01-15 (China time, UTC+8).
    const now = at("2025-03-15T04:00:00Z");
    await read(a.id, work.id, c1, at("2025-01-14T15:59:59Z")); // 2025-01-14 23:59:59: deleted
    await read(b.id, work.id, c1, at("2025-01-14T16:00:00Z")); // 2025-01-15 00:00: kept
    await read(a.id, work.id, c2, at("2025-01-10T04:00:00Z")); // deleted
    await read(c.id, work.id, c3, at("2024-12-01T04:00:00Z")); // deleted
    await read(c.id, work.id, c2, at("2025-03-15T03:00:00Z")); // today: kept
    const days = async () =>
      (await db.select({ day: chapterReads.day }).from(chapterReads).where(eq(chapterReads.workId, work.id))).map((r) => r.day).sort();
    expect(await days()).toHaveLength(5);

    // Two at once (two connections on PostgreSQL), two rows a statement: three rows go, once.
    const counts = await Promise.all([deleteOldChapterReads({ now, batch: 2 }), deleteOldChapterReads({ now, batch: 2 })]);
    expect(counts[0] + counts[1]).toBe(3);
    expect(await days()).toEqual(["2025-01-15", "2025-03-15"]);
    expect(await deleteOldChapterReads({ now, batch: 2 })).toBe(0);
    // The newer days other tests recorded are untouched, and the last 30 days still count.
    const stats = await workStats(owner.id, work.id, { now });
    expect(stats.readers.values.at(-1)).toBe(1);
  });
});

describe("follows and purchases by day", () => {
  it("counts follows that stand and purchases with their credits, by China-time day", async () => {
    const work = await series(owner.id, 1);
    await db.update(works).set({ visibility: "public-vip", price: 12 }).where(eq(works.id, work.id));
    const [a, b, c] = readers;
    for (const r of [a, b, c]) await setFavorite({ id: r.id, showR18: false, showAi: true }, work.id, true);
    await setFavorite({ id: c.id, showR18: false, showAi: true }, work.id, false); // unfollowed: not counted
    for (const r of [a, b]) {
      await db.transaction((tx) => credit(tx, r.id, 100, "测试充值"));
      await purchaseWork(r.id, work.id);
    }
    const setTime = async (table: typeof favorites | typeof workPurchases, userId: string, iso: string) =>
      db.update(table).set({ createdAt: at(iso) }).where(and(eq(table.userId, userId), eq(table.workId, work.id)));
    await setTime(favorites, a.id, "2026-11-30T15:59:59Z"); // 11-30 23:59:59 in China
    await setTime(favorites, b.id, "2026-11-30T16:00:00Z"); // 12-01 00:00:00
    // The sale's time is its income row's (the figures come from the income ledger).
    const setSaleTime = async (buyerIndex: number, iso: string) =>
      db.execute(sql`update income_transactions set created_at = ${iso}::timestamptz where id = (
        select id from income_transactions where work_id = ${work.id} and type = 'sale' order by id limit 1 offset ${buyerIndex})`);
    await setSaleTime(0, "2026-11-29T17:00:00Z"); // 11-30 01:00
    await setSaleTime(1, "2026-11-30T16:30:00Z"); // 12-01 00:30

    const stats = await workStats(owner.id, work.id, { now: at("2026-12-01T10:00:00Z") });
    const nov30 = dayIndex(stats.days, "2026-11-30");
    const dec1 = dayIndex(stats.days, "2026-12-01");
    expect([stats.favorites.values[nov30], stats.favorites.values[dec1], stats.favorites.total, stats.favorites.now]).toEqual([1, 1, 2, 2]);
    expect([stats.sales.values[nov30], stats.sales.values[dec1], stats.sales.total]).toEqual([1, 1, 2]);
    // What the readers paid, and the author's share (70%, rounded down: 8 of 12).
    expect([stats.gross.values[nov30], stats.gross.values[dec1], stats.gross.total]).toEqual([12, 12, 24]);
    expect([stats.income.values[nov30], stats.income.values[dec1], stats.income.total]).toEqual([8, 8, 16]);
  });
});

describe("permissions and bad input", () => {
  const statusOf = (e: unknown) => (e as { init?: { status?: number } }).init?.status;

  it("shows the owner's page; another user's work is 404; a visitor is sent to log in", async () => {
    const work = await series(owner.id, 1);
    const path = `/works/${work.id}/stats`;
    const mine = await callThroughRoutes(statsLoader, { request: userRequest(await sessionCookieFor(owner.id), path) });
    expect(mine.work.id).toBe(work.id);
    expect(mine.readers.values).toHaveLength(STATS_DAYS);
    const stranger = await callThroughRoutes(statsLoader, { request: userRequest(await sessionCookieFor(readers[0].id), path) }).catch((e) => e);
    expect(statusOf(stranger)).toBe(404);
    const visitor = await callThroughRoutes(statsLoader, { request: new Request(`http://localhost${path}`) }).catch((e) => e);
    expect(visitor).toBeInstanceOf(Response);
    expect((visitor as Response).status).toBe(302);
    expect((visitor as Response).headers.get("Location")).toContain("auth=login");
    expect((await domainError(workStats(readers[0].id, work.id))).status).toBe(404);
  });

  it("answers junk with the whole work and a chapter of another work, a draft or a missing one with 404, never 500", async () => {
    const work = await series(owner.id, 2);
    const other = await series(owner.id, 1);
    const [otherChapter] = await chapterIds(other.id);
    const draft = await insertChapter(owner.id, work.id, { title: "存稿", content: "未完", release: { mode: "draft" } }, "end");
    const cookie = await sessionCookieFor(owner.id);
    const load = (query: string) => callThroughRoutes(statsLoader, { request: userRequest(cookie, `/works/${work.id}/stats${query}`) });
    for (const query of ["?chapter=abc", "?chapter=-1", "?chapter=0", "?chapter=1e3", "?chapter=99999999999999999999", "?page=abc", "?page=-5", "?page=99999", "?chapter=&page="]) {
      const view = await load(query);
      expect(view.chapter, query).toBeNull();
      expect(view.page, query).toBe(1);
    }
    for (const query of [`?chapter=${otherChapter}`, `?chapter=${draft}`, "?chapter=999999999"]) {
      const error = await load(query).catch((e) => e);
      expect(statusOf(error), query).toBe(404);
    }
    for (const path of ["/works/abc/stats", "/works/0/stats", "/works/99999999999/stats"]) {
      const error = await callThroughRoutes(statsLoader, { request: userRequest(cookie, path) }).catch((e) => e);
      expect(statusOf(error), path).toBe(404);
    }
  });
});

describe("sales on 数据统计 and 我的收入", () => {
  it("gives the same figures for the same days on both pages, for chapter sales and 购买全部", async () => {
    const [author, a, b] = await quickUsers(3);
    // Chapters 3-6 are VIP, 2,000 字 at 5 a thousand: 10 credits each.
    const { workId, chapterIds } = await serialByChapter(author.id, { count: 6, vipFrom: 3, perThousand: 5 });
    await fund(a.id, 200);
    await fund(b.id, 200);
    await purchaseChapter(a.id, workId, chapterIds[2]); // 10
    const allA = await purchaseAllChapters(a.id, workId); // chapters 4-6
    const allB = await purchaseAllChapters(b.id, workId); // chapters 3-6
    if (allA.status !== "purchased" || allB.status !== "purchased") throw new Error("购买全部 bought nothing");
    expect([allA.count, allA.sum, allB.count, allB.sum]).toEqual([3, 30, 4, 40]);
    // The single chapter was bought yesterday, China time.
    const now = new Date();
    const yesterday = new Date(shanghaiDayStart(shanghaiDate(now)).getTime() - 3_600_000);
    await db.execute(sql`update income_transactions set created_at = ${yesterday.toISOString()}::timestamptz
      where work_id = ${workId} and type = 'sale' and chapter_id = ${chapterIds[2]}`);

    const settings = await getEconomySettings();
    const share = (gross: number) => Math.floor((gross * settings.authorSharePercent) / 100);
    const expected = {
      [shanghaiDate(yesterday)]: { sales: 1, gross: 10, income: share(10) },
      [shanghaiDate(now)]: { sales: 2, gross: allA.total + allB.total, income: share(allA.total) + share(allB.total) },
    };

    const cookie = await sessionCookieFor(author.id);
    const stats = (await runRoute("loader", await import("~/routes/shell/studio/stats"), userRequest(cookie, `/works/${workId}/stats`))) as StatsView;
    const income = bodyOf<{ byDay: { day: string; sales: number; gross: number; income: number }[]; salesTotals: Record<string, number> }>(
      await runRoute("loader", await import("~/routes/shell/credits/income"), userRequest(cookie, "/income")),
    );
    const statsDay = (day: string) => {
      const i = stats.days.indexOf(day);
      return { sales: stats.sales.values[i], gross: stats.gross.values[i], income: stats.income.values[i] };
    };
    for (const [day, figures] of Object.entries(expected)) {
      expect(statsDay(day), `数据统计 ${day}`).toEqual(figures);
      expect(income.byDay.find((d) => d.day === day), `我的收入 ${day}`).toEqual({ day, ...figures });
    }
    expect(income.byDay).toHaveLength(2);
    const totals = { sales: 3, gross: 10 + allA.total + allB.total, income: share(10) + share(allA.total) + share(allB.total) };
    expect({ sales: stats.sales.total, gross: stats.gross.total, income: stats.income.total }).toEqual(totals);
    expect(income.salesTotals).toEqual(totals);
  });
});

describe("chapter titles on 数据统计", () => {
  it("number a chapter once, whether or not its title carries its own number", async () => {
    const [author] = await quickUsers(1);
    const { workId, chapterIds } = await serialByChapter(author.id, { count: 3, vipFrom: 3, titleOf: (i) => ["雨夜", "第7章 定时之潮", "第八章"][i - 1] });
    const stats = await workStats(author.id, workId);
    expect(stats.chapters.map((c) => c.label)).toEqual(["第1章 雨夜", "第7章 定时之潮", "第八章"]);
    const one = await workStats(author.id, workId, { chapterId: chapterIds[1] });
    expect(one.chapter?.label).toBe("第7章 定时之潮");
  });
});
