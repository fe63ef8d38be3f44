import { eq, sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { rankingRemovals, readerVoteDays, readerVoteMonths, users, workRankingTallies, workVotes, works } from "~/db/schema";
import { periodRankingBoard } from "~/server/catalog/rankings.server";
import { addMonthlySpend, castVotes, getVoteSettings, parseRecommendLevels, saveVoteSettings, VOTE_MESSAGES, voteBalance, type CastInput } from "~/server/community/votes.server";
import { tipWork } from "~/server/economy/tips.server";
import { shanghaiPeriods } from "~/utils/shanghai-time";
import { domainError } from "../fixtures/domain-error";
import { fund, quickUsers, setConfig } from "../fixtures/ledger";
import { addChapter, insertWorks } from "../fixtures/works";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { actorOf, adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";
import { bodyOf, redirectOf, runRoute, statusOf } from "./route-chain";

/** A reader as the session gives one to the domain functions. */
const viewer = (id: string) => ({ id, showR18: false, showAi: true });

async function freeWork(authorId: string, title = `投票${Math.random().toString(36).slice(2, 7)}`) {
  const [workId] = await insertWorks([{ userId: authorId, title }]);
  await addChapter(workId);
  return workId;
}

const cast = (readerId: string, input: Partial<CastInput> & { workId: number }, now?: Date) =>
  castVotes(viewer(readerId), { kind: "monthly", count: "1", ...input }, undefined, now);

async function tally(workId: number, metric: "monthly" | "recommend" | "tip", period: "day" | "week" | "month" = "month", now = new Date()) {
  const [row] = await db
    .select({ total: workRankingTallies.total })
    .from(workRankingTallies)
    .where(sql`${workRankingTallies.workId} = ${workId} and ${workRankingTallies.metric} = ${metric} and ${workRankingTallies.period} = ${period} and ${workRankingTallies.startsOn} = ${shanghaiPeriods(now)[period]}`);
  return Number(row?.total ?? 0);
}

async function castRows(workId: number) {
  const [row] = await db.select({ n: sql<number>`coalesce(sum(${workVotes.count}), 0)::int` }).from(workVotes).where(eq(workVotes.workId, workId));
  return row.n;
}

const DEFAULTS = { monthly_vote_credits: "100", vote_min_account_days: "0", recommend_vote_levels: "初级读者 0 2\n中级读者 500 3\n高级读者 5000 4\n资深读者 50000 5" };

beforeAll(() => {
  process.env.PAGE_CACHE = "0";
});
afterEach(async () => {
  await setConfig(DEFAULTS);
});

describe("月票", () => {
  it("are earned by spending on works in the month: one per N credits, tips included", async () => {
    const [author, reader] = await quickUsers(2);
    const workId = await freeWork(author.id);
    await fund(reader.id, 1000);
    await tipWork(viewer(reader.id), { workId, chapterOrder: null, amount: "250", message: "" });
    const balance = await voteBalance(reader.id);
    expect(balance).toMatchObject({ monthly: 2, monthlyEarned: 2, spentThisMonth: 250, creditsPerMonthly: 100 });
    // The tip counts on the 打赏 boards at once, by day, week and month.
    expect(await tally(workId, "tip", "day")).toBe(250);
    expect(await tally(workId, "tip", "week")).toBe(250);
    expect(await tally(workId, "tip", "month")).toBe(250);

    const other = await freeWork((await quickUsers(1))[0].id);
    expect(await cast(reader.id, { workId: other, count: "2" })).toMatchObject({ kind: "monthly", count: 2 });
    expect((await voteBalance(reader.id)).monthly).toBe(0);
    const refused = await domainError(cast(reader.id, { workId: other }));
    expect([refused.status, refused.message]).toEqual([402, VOTE_MESSAGES.noMonthly]);
    expect(await tally(other, "monthly", "day")).toBe(2);
    expect(await tally(other, "monthly", "month")).toBe(2);
    expect(await castRows(other)).toBe(2);

    // The operator's N applies at once: at 50 credits a vote the same 250 earned 5.
    await setConfig({ monthly_vote_credits: "50" });
    expect((await voteBalance(reader.id)).monthly).toBe(3);
  });

  it("expire at the China-time month's end", async () => {
    const [author, reader] = await quickUsers(2);
    const workId = await freeWork(author.id);
    const lastEvening = new Date("2026-11-30T15:30:00Z"); // 23:30 on 30 November in China
    const nextMorning = new Date("2026-11-30T16:30:00Z"); // 00:30 on 1 December in China
    await addMonthlySpend(db, reader.id, 300, lastEvening);
    expect((await voteBalance(reader.id, lastEvening)).monthly).toBe(3);
    await cast(reader.id, { workId }, lastEvening);
    expect((await voteBalance(reader.id, lastEvening)).monthly).toBe(2);
    // Past midnight in China the two left are gone, and December's spending starts at 0.
    expect((await voteBalance(reader.id, nextMorning)).monthly).toBe(0);
    const refused = await domainError(cast(reader.id, { workId }, nextMorning));
    expect(refused.message).toBe(VOTE_MESSAGES.noMonthly);
    // The vote cast on 30 November stays on November's board, not December's.
    expect(await tally(workId, "monthly", "month", lastEvening)).toBe(1);
    expect(await tally(workId, "monthly", "month", nextMorning)).toBe(0);
  });
});

describe("推荐票", () => {
  it("come free each China-time day by reader level", async () => {
    const [author, reader] = await quickUsers(2);
    const workId = await freeWork(author.id);
    const day = new Date("2026-12-02T04:00:00Z");
    const nextDay = new Date("2026-12-02T16:05:00Z"); // 00:05 on 3 December in China
    expect(await voteBalance(reader.id, day)).toMatchObject({ recommend: 2, recommendDaily: 2, level: "初级读者" });
    await cast(reader.id, { workId, kind: "recommend", count: "2" }, day);
    const refused = await domainError(cast(reader.id, { workId, kind: "recommend" }, day));
    expect([refused.status, refused.message]).toEqual([402, VOTE_MESSAGES.noRecommend]);
    // A new day, a new allowance; spending 500 on works raises the level to 3 a day.
    expect((await voteBalance(reader.id, nextDay)).recommend).toBe(2);
    await addMonthlySpend(db, reader.id, 500, nextDay);
    expect(await voteBalance(reader.id, nextDay)).toMatchObject({ recommend: 3, level: "中级读者" });
    await cast(reader.id, { workId, kind: "recommend", count: "3" }, nextDay);
    expect(await tally(workId, "recommend", "day", day)).toBe(2);
    expect(await tally(workId, "recommend", "day", nextDay)).toBe(3);
    expect(await tally(workId, "recommend", "month", nextDay)).toBe(5);
    expect(await db.select().from(readerVoteDays).where(eq(readerVoteDays.userId, reader.id))).toHaveLength(2);
  });
});

describe("who may vote", () => {
  it("refuses the author's own work, banned and new accounts, and bad input, with nothing written", async () => {
    const [author, reader, banned] = await quickUsers(3);
    const workId = await freeWork(author.id);
    for (const id of [author.id, reader.id, banned.id]) await addMonthlySpend(db, id, 1000);
    const own = await domainError(cast(author.id, { workId }));
    expect([own.status, own.message]).toEqual([403, VOTE_MESSAGES.ownWork]);
    const ownRecommend = await domainError(cast(author.id, { workId, kind: "recommend" }));
    expect(ownRecommend.message).toBe(VOTE_MESSAGES.ownWork);

    await db.update(users).set({ bannedAt: new Date(), banReason: "测试封禁" }).where(eq(users.id, banned.id));
    const ban = await domainError(cast(banned.id, { workId }));
    expect([ban.status, ban.message]).toEqual([403, VOTE_MESSAGES.banned]);

    await setConfig({ vote_min_account_days: "3" });
    const young = await domainError(cast(reader.id, { workId, kind: "recommend" }));
    expect([young.status, young.message]).toEqual([403, "注册满 3 天后才能投票"]);
    // Three days later the same account may vote.
    await cast(reader.id, { workId, kind: "recommend" }, new Date(Date.now() + 3 * 86_400_000 + 60_000));
    await db.delete(workVotes).where(eq(workVotes.workId, workId));
    await db.delete(workRankingTallies).where(eq(workRankingTallies.workId, workId));
    await setConfig({ vote_min_account_days: "0" });

    for (const [input, message] of [
      [{ count: "0" }, VOTE_MESSAGES.count],
      [{ count: "101" }, VOTE_MESSAGES.count],
      [{ count: "1.5" }, VOTE_MESSAGES.count],
      [{ count: undefined }, VOTE_MESSAGES.count],
      [{ kind: "gold" }, VOTE_MESSAGES.kind],
    ] as const) {
      const e = await domainError(cast(reader.id, { workId, ...input }));
      expect([e.status, e.message]).toEqual([400, message]);
    }
    const missing = await domainError(cast(reader.id, { workId: 999_999_999 }));
    expect(missing.status).toBe(404);
    expect(await castRows(workId)).toBe(0);
    expect(await tally(workId, "monthly")).toBe(0);
  });

  it("the operator's settings are checked whole", async () => {
    const actor = actorOf(await createAdmin({ role: "super" }));
    const bad = await domainError(saveVoteSettings(actor, { monthlyVoteCredits: "0", minAccountDays: "1", levels: "读者 0 2" }));
    expect(bad.message).toBe(VOTE_MESSAGES.credits);
    const badDays = await domainError(saveVoteSettings(actor, { monthlyVoteCredits: "10", minAccountDays: "-1", levels: "读者 0 2" }));
    expect(badDays.message).toBe(VOTE_MESSAGES.minDays);
    expect(() => parseRecommendLevels("读者 10 2")).toThrow(VOTE_MESSAGES.levelFirst);
    expect(() => parseRecommendLevels("读者 0 2\n书友 0 3")).toThrow(VOTE_MESSAGES.levelOrder(2));
    expect(() => parseRecommendLevels("读者 0 200")).toThrow(VOTE_MESSAGES.levelDaily(1));
    expect(() => parseRecommendLevels("读者 两 2")).toThrow(VOTE_MESSAGES.levelLine(1));
    expect((await getVoteSettings()).monthlyVoteCredits).toBe(100);
    await saveVoteSettings(actor, { monthlyVoteCredits: "20", minAccountDays: "7", levels: "读者 0 1\n书友 100 6" });
    expect(await getVoteSettings()).toEqual({ monthlyVoteCredits: 20, minAccountDays: 7, levels: [{ name: "读者", threshold: 0, daily: 1 }, { name: "书友", threshold: 100, daily: 6 }] });
  });
});

describe("races", () => {
  it(`50 parallel casts spend exactly the votes held, and the totals are exact (${databaseKind})`, async () => {
    const readers = await quickUsers(2);
    const [author] = await quickUsers(1);
    const workId = await freeWork(author.id);
    const [monthlyReader, recommendReader] = readers;
    await addMonthlySpend(db, monthlyReader.id, 2000); // 20 月票
    await setConfig({ recommend_vote_levels: "读者 0 10" });
    const attempts = (readerId: string, kind: "monthly" | "recommend") =>
      Promise.allSettled(Array.from({ length: 50 }, () => cast(readerId, { workId, kind })));
    const [monthly, recommend] = await Promise.all([attempts(monthlyReader.id, "monthly"), attempts(recommendReader.id, "recommend")]);
    const outcome = (rs: PromiseSettledResult<unknown>[]) => ({
      cast: rs.filter((r) => r.status === "fulfilled").length,
      refused: [...new Set(rs.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.message))],
    });
    expect(outcome(monthly)).toEqual({ cast: 20, refused: [VOTE_MESSAGES.noMonthly] });
    expect(outcome(recommend)).toEqual({ cast: 10, refused: [VOTE_MESSAGES.noRecommend] });
    const [month] = await db.select().from(readerVoteMonths).where(eq(readerVoteMonths.userId, monthlyReader.id));
    expect(month.monthlyUsed).toBe(20);
    for (const period of ["day", "week", "month"] as const) {
      expect(await tally(workId, "monthly", period)).toBe(20);
      expect(await tally(workId, "recommend", period)).toBe(10);
    }
    expect(await castRows(workId)).toBe(30);
  });
});

describe("the boards", () => {
  it("rank by the period's votes and leave out works taken down or removed from the rankings", async () => {
    const [author, reader] = await quickUsers(2);
    const [a, b, c] = [await freeWork(author.id, "票多之书"), await freeWork(author.id, "票少之书"), await freeWork(author.id, "下榜之书")];
    await addMonthlySpend(db, reader.id, 10_000);
    await cast(reader.id, { workId: a, count: "5" });
    await cast(reader.id, { workId: b, count: "3" });
    await cast(reader.id, { workId: c, count: "9" });
    const ids = async (period: "day" | "week" | "month") => (await periodRankingBoard("monthly-votes", period, null)).filter((w) => [a, b, c].includes(w.id)).map((w) => [w.id, w.score]);
    expect(await ids("day")).toEqual([[c, 9], [a, 5], [b, 3]]);
    await db.insert(rankingRemovals).values({ workId: c, reason: "测试下榜" });
    expect(await ids("week")).toEqual([[a, 5], [b, 3]]);
    await db.update(works).set({ visibility: "private", takenDownAt: new Date(), takedownReason: "测试下架", takedownPrevious: { visibility: "public", price: 0 } }).where(eq(works.id, a));
    expect(await ids("month")).toEqual([[b, 3]]);
    // A taken-down work takes no more votes.
    expect((await domainError(cast(reader.id, { workId: a }))).status).toBe(404);
  });
});

describe("the pages", () => {
  it("/works/:id/vote: a plain form redirects back with a notice, a fetcher gets data, bad input a 4xx with its message", async () => {
    const mod = await import("~/routes/shell/reader/vote");
    const [author] = await quickUsers(1);
    const reader = await createUser();
    const cookie = await sessionCookieFor(reader.id);
    const workId = await freeWork(author.id);
    await addMonthlySpend(db, reader.id, 300);
    const post = (fields: Record<string, string>) => runRoute("action", mod as never, userRequest(cookie, `/works/${workId}/vote`, fields)).catch((r: unknown) => r);

    const page = (await runRoute("loader", mod as never, userRequest(cookie, `/works/${workId}/vote`))) as { votes: { monthly: number; recommend: number } };
    expect(page.votes).toMatchObject({ monthly: 3, recommend: 2 });
    // Back to the chapter it came from; an address elsewhere is not followed.
    expect(redirectOf(await post({ kind: "monthly", count: "1", redirectTo: `/works/${workId}?chapter=1` }))).toBe(`302 /works/${workId}?chapter=1`);
    expect(redirectOf(await post({ kind: "monthly", count: "1", redirectTo: "https://evil.example.com/" }))).toBe(`302 /works/${workId}`);
    const viaFetcher = await post({ kind: "recommend", count: "2", fetcher: "1" });
    expect(viaFetcher).toEqual({ ok: true, kind: "recommend", message: "已投出 2 张推荐票，感谢你的支持！" });
    for (const [fields, status, message] of [
      [{ kind: "monthly", count: "5" }, 402, VOTE_MESSAGES.noMonthly],
      [{ kind: "recommend", count: "1" }, 402, VOTE_MESSAGES.noRecommend],
      [{ kind: "monthly", count: "-1" }, 400, VOTE_MESSAGES.count],
      [{ kind: "金票", count: "1" }, 400, VOTE_MESSAGES.kind],
    ] as const) {
      const answer = await post(fields);
      expect([statusOf(answer), bodyOf<{ message: string }>(answer).message]).toEqual([status, message]);
    }
    expect(await castRows(workId)).toBe(4);
    // The author's own work: the page itself is refused.
    const own = await freeWork(reader.id);
    const refused = await runRoute("loader", mod as never, userRequest(cookie, `/works/${own}/vote`)).catch((r: unknown) => r);
    expect(statusOf(refused)).toBe(403);
  });

  it("/admin/settings/votes saves for a 超级管理员, answers bad values with their message, refuses a 运营", async () => {
    const page = await import("~/routes/admin/settings/votes");
    const cookie = await adminCookieFor((await createAdmin()).id);
    const shown = await callLoader(page, request("/admin/settings/votes", { cookie }));
    expect(shown.data).toEqual({ monthlyVoteCredits: "100", minAccountDays: "0", levels: DEFAULTS.recommend_vote_levels });
    const bad = await callAction(page, request("/admin/settings/votes", { cookie }, { monthlyVoteCredits: "abc", minAccountDays: "0", levels: "读者 0 2" }));
    expect([bad.status, (bad.data as { error: string }).error]).toEqual([400, VOTE_MESSAGES.credits]);
    const badLevels = await callAction(page, request("/admin/settings/votes", { cookie }, { monthlyVoteCredits: "100", minAccountDays: "0", levels: "读者 5 2" }));
    expect([badLevels.status, (badLevels.data as { error: string }).error]).toEqual([400, VOTE_MESSAGES.levelFirst]);
    const operator = await createAdmin({ role: "operator" });
    const refused = await callAction(page, request("/admin/settings/votes", { cookie: await adminCookieFor(operator.id) }, { monthlyVoteCredits: "10", minAccountDays: "0", levels: "读者 0 2" }));
    expect(refused.status).toBe(403);
    const saved = await callAction(page, request("/admin/settings/votes", { cookie }, { monthlyVoteCredits: "50", minAccountDays: "2", levels: "读者 0 2" }));
    expect(saved.location).toBe("/admin/settings/votes?notice=saved");
    expect((await getVoteSettings()).monthlyVoteCredits).toBe(50);
  });
});
