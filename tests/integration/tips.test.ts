import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { authorIncome, chapterComments, commentMutes, creditTransactions, incomeTransactions, notifications, users, workFans, workTips } from "~/db/schema";
import { inboxLineText } from "~/components/notifications/inbox-line-text";
import { listComments } from "~/server/community/comments.server";
import { FAN_LEVEL_MESSAGES, fanLevelOf, fanRanking, getFanLevels, parseFanLevels, saveFanLevels } from "~/server/community/fans.server";
import { listNotifications } from "~/server/community/notifications.server";
import { purchaseAllChapters, purchaseChapter } from "~/server/economy/chapter-sales.server";
import { incomeOverview } from "~/server/economy/income.server";
import { LEDGER_MESSAGES, purchaseWork } from "~/server/economy/ledger.server";
import { recentTips, TIP_MESSAGES, tipWork, type TipInput } from "~/server/economy/tips.server";
import { reloadScreening } from "~/server/screening/screening.server";
import { addScreeningWord } from "~/server/screening/words.server";
import { checkLedger } from "../../scripts/check-ledger";
import { domainError } from "../fixtures/domain-error";
import { creditBalance, fund, quickUsers } from "../fixtures/ledger";
import { addChapter, insertWorks, serialByChapter } from "../fixtures/works";
import { actorOf, adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";

/** A reader as the session gives one to the domain functions. */
const viewer = (id: string) => ({ id, showR18: false, showAi: true });

/** A free work with one published chapter by `authorId`. */
async function freeWork(authorId: string, title = `打赏${Math.random().toString(36).slice(2, 7)}`) {
  const [workId] = await insertWorks([{ userId: authorId, title }]);
  await addChapter(workId);
  return workId;
}

const tip = (readerId: string, input: Partial<TipInput> & { workId: number }) =>
  tipWork(viewer(readerId), { chapterOrder: null, amount: "100", message: "", ...input });

async function incomeOf(userId: string) {
  const [row] = await db.select().from(authorIncome).where(eq(authorIncome.userId, userId));
  return Number(row?.balance ?? 0);
}

async function nothingWritten(readerId: string, workId: number) {
  expect(await db.select().from(workTips).where(eq(workTips.workId, workId))).toEqual([]);
  expect(await db.select().from(workFans).where(eq(workFans.workId, workId))).toEqual([]);
  expect(await db.select().from(chapterComments).where(eq(chapterComments.workId, workId))).toEqual([]);
  expect(await db.select().from(incomeTransactions).where(eq(incomeTransactions.workId, workId))).toEqual([]);
  expect(await db.select().from(creditTransactions).where(and(eq(creditTransactions.userId, readerId), eq(creditTransactions.type, "consume")))).toEqual([]);
}

beforeAll(async () => {
  const operator = await createAdmin({ role: "operator" });
  await addScreeningWord(actorOf(operator), { word: "打赏禁词", category: "其他", level: "forbid" });
  await addScreeningWord(actorOf(operator), { word: "打赏替换词", category: "其他", level: "replace" });
  await addScreeningWord(actorOf(operator), { word: "打赏待审词", category: "广告", level: "review" });
  await reloadScreening();
});

describe("打赏", () => {
  it("debits the reader, pays the author's share, posts the notice in 本章说 and tells the author, in one go", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 1000);
    const workId = await freeWork(author.id, "打赏之书");
    const result = await tip(reader.id, { workId, chapterOrder: 1, amount: "500", message: "  写得真好  " });
    expect(result).toMatchObject({ amount: 500, balance: 500, noticeOrder: 1 });

    expect(await creditBalance(reader.id)).toBe(500);
    const consumes = await db.select().from(creditTransactions).where(and(eq(creditTransactions.userId, reader.id), eq(creditTransactions.type, "consume")));
    expect(consumes.map((c) => [c.amount, c.description])).toEqual([[500, "打赏《打赏之书》"]]);
    // The sales' share (70% by default), on an income row of its own kind.
    expect(await incomeOf(author.id)).toBe(350);
    const [income] = await db.select().from(incomeTransactions).where(eq(incomeTransactions.userId, author.id));
    expect(income).toMatchObject({ type: "tip", amount: 350, gross: 500, workId });

    // 本章说 shows the notice, marked, with the reader's fan level beside it.
    const thread = await listComments(viewer(author.id), workId, 1, { paragraph: null, sort: "new", page: 1 });
    expect(thread.comments.map((c) => ({ tip: c.tipAmount, body: c.body, level: c.fanLevel }))).toEqual([{ tip: 500, body: "写得真好", level: "学徒" }]);

    // The author's inbox and 我的收入.
    const inbox = await listNotifications(author.id, 1);
    expect(inbox.lines.map((l) => [l.kind, inboxLineText(l), l.href])).toEqual([["tip", expect.stringMatching(/ 打赏了《打赏之书》 500 积分$/), "/income"]]);
    const overview = await incomeOverview(author.id);
    expect(overview.byWork).toEqual([expect.objectContaining({ workId, total: 350, tips: 350, sales: 0 })]);
    expect(overview.ledger.map((r) => [r.type, r.amount])).toEqual([["tip", 350]]);

    // The work page's 最近打赏 and the 粉丝榜.
    expect((await recentTips(workId)).map((t) => [t.amount, t.message])).toEqual([[500, "写得真好"]]);
    const ranking = await fanRanking(workId, reader.id);
    expect(ranking.fans.map((f) => [f.userId, f.fanValue, f.level])).toEqual([[reader.id, 500, "学徒"]]);
    expect(ranking.viewer).toEqual({ fanValue: 500, level: "学徒", place: 1, outside: null });
    expect(await checkLedger(db)).toEqual([]);
  });

  it("from the work page: no notice in 本章说, and a tip without a message is fine", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 100);
    const workId = await freeWork(author.id);
    expect(await tip(reader.id, { workId, amount: "1" })).toMatchObject({ amount: 1, balance: 99, noticeOrder: null });
    expect(await db.select().from(chapterComments).where(eq(chapterComments.workId, workId))).toEqual([]);
    // 70% of 1 rounds down to 0: the income row is still written, as a sale's would be.
    expect(await db.select({ amount: incomeTransactions.amount, gross: incomeTransactions.gross }).from(incomeTransactions).where(eq(incomeTransactions.workId, workId))).toEqual([{ amount: 0, gross: 1 }]);
    expect(await checkLedger(db)).toEqual([]);
  });

  it("refuses the author's own work, a banned reader, too few credits and bad amounts, writing nothing", async () => {
    const [author, reader, banned] = await quickUsers(3);
    await fund(author.id, 1000);
    await fund(reader.id, 300);
    await fund(banned.id, 1000);
    const workId = await freeWork(author.id);

    const own = await domainError(tip(author.id, { workId, chapterOrder: 1, message: "自己打赏" }));
    expect([own.status, own.message]).toEqual([403, TIP_MESSAGES.ownWork]);

    await db.update(users).set({ bannedAt: new Date(), banReason: "测试" }).where(eq(users.id, banned.id));
    const ban = await domainError(tip(banned.id, { workId }));
    expect([ban.status, ban.message]).toEqual([403, TIP_MESSAGES.banned]);

    const poor = await domainError(tip(reader.id, { workId, chapterOrder: 1, amount: "301", message: "余额不够" }));
    expect([poor.status, poor.message]).toEqual([402, LEDGER_MESSAGES.insufficient]);

    for (const amount of ["0", "-5", "1.5", "abc", "", "99999999999"]) {
      const bad = await domainError(tip(reader.id, { workId, amount }));
      expect([bad.status, bad.field]).toEqual([400, "amount"]);
    }
    const long = await domainError(tip(reader.id, { workId, message: "字".repeat(101) }));
    expect([long.message, long.field]).toEqual([TIP_MESSAGES.messageTooLong, "message"]);

    await nothingWritten(reader.id, workId);
    await nothingWritten(author.id, workId);
    await nothingWritten(banned.id, workId);
    expect(await creditBalance(reader.id)).toBe(300);
    expect(await checkLedger(db)).toEqual([]);
  });

  it("screens the message: 禁止 refused naming the word, 替换 masked where shown, 审核 held", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 1000);
    const workId = await freeWork(author.id);
    const refused = await domainError(tip(reader.id, { workId, chapterOrder: 1, message: "这里有打赏禁词" }));
    expect(refused.status).toBe(400);
    expect(refused.message).toContain("打赏禁词");
    await nothingWritten(reader.id, workId);

    await tip(reader.id, { workId, chapterOrder: 1, message: "含打赏替换词的留言" });
    await tip(reader.id, { workId, chapterOrder: 1, message: "含打赏待审词的留言" });
    const other = (await quickUsers(1))[0];
    const seen = await listComments(viewer(other.id), workId, 1, { paragraph: null, sort: "new", page: 1 });
    // The held one waits for a reviewer; the masked one shows with ＊.
    expect(seen.comments.map((c) => c.body)).toEqual(["含＊＊＊＊＊的留言"]);
    expect((await recentTips(workId)).map((t) => t.message)).toEqual(["", "含＊＊＊＊＊的留言"]);
    expect(await creditBalance(reader.id)).toBe(800);
  });

  it("a reader the author muted may tip without a message, and no notice is posted", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 1000);
    const workId = await freeWork(author.id);
    // The author's 禁言 on this work (as setMuted writes it from one of the reader's comments).
    await db.insert(commentMutes).values({ workId, userId: reader.id });
    const muted = await domainError(tip(reader.id, { workId, chapterOrder: 1, message: "被禁言了" }));
    expect(muted.status).toBe(403);
    expect(await tip(reader.id, { workId, chapterOrder: 1 })).toMatchObject({ amount: 100, noticeOrder: null });
    expect(await db.select().from(chapterComments).where(eq(chapterComments.workId, workId))).toEqual([]);
  });

  it(`parallel tips never overdraw the balance (${databaseKind})`, async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 1000);
    const workId = await freeWork(author.id);
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => tip(reader.id, { workId, chapterOrder: i % 2 ? 1 : null, amount: "300" })));
    const done = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.message);
    expect(done).toHaveLength(3);
    expect(refused).toEqual(Array(5).fill(LEDGER_MESSAGES.insufficient));
    expect(await creditBalance(reader.id)).toBe(100);
    expect(await db.select().from(workTips).where(eq(workTips.workId, workId))).toHaveLength(3);
    const [fan] = await db.select().from(workFans).where(eq(workFans.workId, workId));
    expect(fan.fanValue).toBe(900);
    expect(await incomeOf(author.id)).toBe(3 * 210);
    expect(await checkLedger(db)).toEqual([]);
  });
});

describe("粉丝值 and levels", () => {
  it("sums what a reader spent on a work: tips, chapters, 购买全部 and the whole work", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 10_000);
    const { workId, chapterIds } = await serialByChapter(author.id, { count: 4, vipFrom: 2, perThousand: 5 });
    await purchaseChapter(reader.id, workId, chapterIds[1]); // 2000 字 × 5 / 1000 = 10
    await purchaseAllChapters(reader.id, workId); // the other two: 20
    await tip(reader.id, { workId, amount: "470" });
    const ranking = await fanRanking(workId, reader.id);
    expect(ranking.viewer).toEqual({ fanValue: 500, level: "学徒", place: 1, outside: null });

    const [wholeId] = await insertWorks([{ userId: author.id, title: "全本", visibility: "public-vip", price: 1999 }]);
    await purchaseWork(reader.id, wholeId);
    await tip(reader.id, { workId: wholeId, amount: "1" });
    expect((await fanRanking(wholeId, reader.id)).viewer).toEqual({ fanValue: 2000, level: "弟子", place: 1, outside: null });
    expect(await checkLedger(db)).toEqual([]);
  });

  it("ranks fans by 粉丝值 and names levels from the operator's list", async () => {
    const [author, a, b, c] = await quickUsers(4);
    for (const u of [a, b, c]) await fund(u.id, 10_000);
    const workId = await freeWork(author.id);
    await tip(a.id, { workId, amount: "100" });
    await tip(b.id, { workId, amount: "5000" });
    await tip(c.id, { workId, amount: "2000" });
    await tip(a.id, { workId, amount: "400" });
    const ranking = await fanRanking(workId, c.id);
    expect(ranking.fans.map((f) => [f.userId, f.fanValue, f.level, f.place])).toEqual([
      [b.id, 5000, "执事", 1],
      [c.id, 2000, "弟子", 2],
      [a.id, 500, "学徒", 3],
    ]);
    expect(ranking.viewer?.place).toBe(2);
    // A reader's own place is counted only so far (1,000 on the site): beyond it, 未进入前 N 名.
    expect((await fanRanking(workId, a.id, { placeWithin: 2 })).viewer).toMatchObject({ place: null, outside: 2 });
    expect((await fanRanking(workId, c.id, { placeWithin: 2 })).viewer).toMatchObject({ place: 2, outside: null });
    expect((await fanRanking(workId, author.id, { placeWithin: 2 })).viewer).toMatchObject({ fanValue: 0, place: null, outside: null });
    expect(ranking.levels.map((l) => l.name)).toEqual(["见习", "学徒", "弟子", "执事", "舵主", "堂主", "护法", "长老", "掌门", "宗师", "盟主"]);
    expect(ranking.levels.map((l) => l.threshold)).toEqual([0, 500, 2000, 5000, 10000, 20000, 30000, 50000, 70000, 100000, 200000]);

    const admin = await createAdmin();
    try {
      await saveFanLevels(actorOf(admin), "路人 0\n铁粉 1000\n\n死忠 3000");
      expect((await fanRanking(workId, null)).fans.map((f) => f.level)).toEqual(["死忠", "铁粉", "路人"]);
      // Bad lists change nothing, each with its message.
      for (const [text, message] of [
        ["", FAN_LEVEL_MESSAGES.empty],
        ["路人 10", FAN_LEVEL_MESSAGES.first],
        ["路人 0\n铁粉 0", FAN_LEVEL_MESSAGES.order(2)],
        ["路人 0\n路人 5", FAN_LEVEL_MESSAGES.duplicate("路人")],
        ["路人 0\n铁粉", FAN_LEVEL_MESSAGES.line(2)],
      ] as const) {
        expect((await domainError(saveFanLevels(actorOf(admin), text))).message).toBe(message);
      }
      expect((await getFanLevels()).map((l) => l.name)).toEqual(["路人", "铁粉", "死忠"]);
    } finally {
      await saveFanLevels(actorOf(admin), "见习 0\n学徒 500\n弟子 2000\n执事 5000\n舵主 10000\n堂主 20000\n护法 30000\n长老 50000\n掌门 70000\n宗师 100000\n盟主 200000");
    }
    expect(fanLevelOf(199_999, parseFanLevels("见习 0\n盟主 200000"))).toBe("见习");
    expect(fanLevelOf(200_000, parseFanLevels("见习 0\n盟主 200000"))).toBe("盟主");
  });

  it("a refused tip adds no 粉丝值 and makes no inbox line", async () => {
    const [author, reader] = await quickUsers(2);
    const workId = await freeWork(author.id);
    await domainError(tip(reader.id, { workId, amount: "5" }));
    expect(await db.select().from(workFans).where(eq(workFans.userId, reader.id))).toEqual([]);
    expect(await db.select().from(notifications).where(eq(notifications.userId, author.id))).toEqual([]);
  });
});

describe("the pages", () => {
  it("/admin/settings/fans saves a list for a 超级管理员, answers a bad one with its message, refuses a 运营", async () => {
    const page = await import("~/routes/admin/settings/fans");
    const chief = await createAdmin();
    const cookie = await adminCookieFor(chief.id);
    const shown = await callLoader(page, request("/admin/settings/fans", { cookie }));
    expect((shown.data as { levels: string }).levels).toMatch(/^见习 0\n学徒 500\n/);
    const bad = await callAction(page, request("/admin/settings/fans", { cookie }, { levels: "路人 10" }));
    expect([bad.status, (bad.data as { error: string }).error]).toEqual([400, FAN_LEVEL_MESSAGES.first]);
    const operator = await createAdmin({ role: "operator" });
    const refused = await callAction(page, request("/admin/settings/fans", { cookie: await adminCookieFor(operator.id) }, { levels: "路人 0" }));
    expect(refused.status).toBe(403);
    const text = (await getFanLevels()).map((l) => `${l.name} ${l.threshold}`).join("\n");
    const saved = await callAction(page, request("/admin/settings/fans", { cookie }, { levels: text }));
    expect(saved.location).toBe("/admin/settings/fans?notice=saved");
  });

  it("/works/:id/fans is public as the work: a visitor sees the ranking, a private work is a 404", async () => {
    const page = await import("~/routes/shell/reader/fans");
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 100);
    const workId = await freeWork(author.id);
    await tip(reader.id, { workId, amount: "50" });
    const shown = await callLoader(page, new Request(`http://localhost/works/${workId}/fans`), { id: String(workId) });
    expect((shown.data as { fans: { fanValue: number; level: string }[] }).fans.map((f) => [f.fanValue, f.level])).toEqual([[50, "见习"]]);
    const [hidden] = await insertWorks([{ userId: author.id, title: "私密", visibility: "private" }]);
    const missing = await callLoader(page, new Request(`http://localhost/works/${hidden}/fans`), { id: String(hidden) });
    expect(missing.status).toBe(404);
  });
});
