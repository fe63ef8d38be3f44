import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "~/db/client.server";
import {
  accountDeletions,
  adminAuditLog,
  authorFollows,
  chapterComments,
  chapters,
  creditTransactions,
  favorites,
  readerMarks,
  incomeTransactions,
  payoutRequests,
  profiles,
  readerOpdsTokens,
  sessions,
  tokenTransactions,
  users,
  workPurchases,
  works,
} from "~/db/schema";
import { loader as shellLoader } from "~/routes/shell/layout";
import { action as deletionAction, loader as deletionLoader } from "~/routes/shell/settings/delete-account";
import { ACCOUNT_DELETION_MESSAGES, DELETED_NICKNAME } from "~/schemas/account-deletion";
import { getUserForAdmin, resetUserPassword } from "~/server/admin/users.server";
import { postComment } from "~/server/community/comments.server";
import { setAuthorFollow } from "~/server/community/author-follows.server";
import { FORFEIT_CREDITS, FORFEIT_TOKENS } from "~/server/economy/account-closure.server";
import { purchaseWork } from "~/server/economy/ledger.server";
import { login } from "~/server/identity/auth.server";
import { requestAccountDeletion } from "~/server/identity/account-deletion.server";
import { createOpdsToken } from "~/server/identity/opds-tokens.server";
import { deleteDueAccounts } from "~/server/jobs/account-deletion.server";
import { setFavorite } from "~/server/reading/favorites.server";
import { addMark } from "~/server/reading/marks.server";
import { checkLedger } from "../../scripts/check-ledger";
import { createUser, formOf, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { creditBalance, fund } from "../fixtures/ledger";
import { insertWorks } from "../fixtures/works";
import { bodyOf, callThroughRoutes, locationOf, statusOf } from "./route-chain";

/**
 * 注销账号 (decision 231): the request with the password and the works' fate, the 15-day
 * cool-off with its banner and 撤销, the refusals, and the job that erases the personal
 * data exactly once while the ledger keeps balancing.
 */

const DAY = 24 * 3600 * 1000;
const viewer = (id: string) => ({ id, showR18: false, showAi: true });

async function post(cookie: string, fields: Record<string, string>) {
  return callThroughRoutes(deletionAction, { request: userRequest(cookie, "/settings/delete-account", fields) });
}

type Reply = { error?: Record<string, string[] | null> };
const errorsOf = (result: unknown) => bodyOf<Reply>(result).error ?? {};

async function bannerOf(cookie: string): Promise<string | null> {
  const result = await callThroughRoutes(shellLoader, { request: userRequest(cookie, "/settings/delete-account") });
  return bodyOf<{ user: { deletionDueAt: string | null } | null }>(result).user?.deletionDueAt ?? null;
}

async function auditActions(userId: string): Promise<string[]> {
  const rows = await db
    .select({ action: adminAuditLog.action })
    .from(adminAuditLog)
    .where(and(eq(adminAuditLog.targetType, "user"), eq(adminAuditLog.targetId, userId)))
    .orderBy(adminAuditLog.id);
  return rows.map((r) => r.action);
}

describe("the request and its cool-off", () => {
  let user: Awaited<ReturnType<typeof createUser>>;
  let cookie: string;
  beforeAll(async () => {
    user = await createUser();
    cookie = await sessionCookieFor(user.id);
  });

  it("refuses a wrong password, a missing choice or confirmation, and a 撤销 of nothing, writing nothing", async () => {
    const wrong = await post(cookie, { intent: "request", password: "not-my-password", works: "keep", confirm: "on" });
    expect(statusOf(wrong)).toBe(400);
    expect(errorsOf(wrong).password).toEqual([ACCOUNT_DELETION_MESSAGES.passwordWrong]);

    const unchosen = await post(cookie, { intent: "request", password: user.password });
    expect(statusOf(unchosen)).toBe(400);
    expect(errorsOf(unchosen).works).toEqual([ACCOUNT_DELETION_MESSAGES.worksRequired]);
    expect(errorsOf(unchosen).confirm).toEqual([ACCOUNT_DELETION_MESSAGES.confirmRequired]);

    const cancel = await post(cookie, { intent: "cancel" });
    expect(statusOf(cancel)).toBe(409);
    expect(errorsOf(cancel)[""]).toEqual([ACCOUNT_DELETION_MESSAGES.nothingToCancel]);

    expect(await db.select().from(accountDeletions).where(eq(accountDeletions.userId, user.id))).toEqual([]);
    expect(await auditActions(user.id)).toEqual([]);
  });

  it("files the request for 15 days on, shows it on every page and after a new sign-in, refuses a second, and 撤销 ends it", async () => {
    const before = Date.now();
    const done = await post(cookie, { intent: "request", password: user.password, works: "keep", confirm: "on" });
    expect(statusOf(done)).toBe(302);
    expect(locationOf(done)).toBe("/settings/delete-account");
    const [row] = await db.select().from(accountDeletions).where(eq(accountDeletions.userId, user.id));
    expect(row.works).toBe("keep");
    expect(row.deletedAt).toBeNull();
    expect(row.dueAt.getTime() - row.requestedAt.getTime()).toBe(15 * DAY);
    expect(row.requestedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);

    // The account works as before; the banner says when, on this session and a new one.
    expect(await bannerOf(cookie)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    expect(await bannerOf(await sessionCookieFor(user.id))).toBe(await bannerOf(cookie));
    const page = bodyOf<{ pending: { dueAt: string; works: string } | null }>(
      await callThroughRoutes(deletionLoader, { request: userRequest(cookie, "/settings/delete-account") }),
    );
    expect(page.pending).toMatchObject({ dueAt: await bannerOf(cookie), works: "keep" });

    const again = await post(cookie, { intent: "request", password: user.password, works: "take_down", confirm: "on" });
    expect(statusOf(again)).toBe(409);
    expect(errorsOf(again)[""]?.[0]).toContain("你已提交注销申请");
    const [still] = await db.select().from(accountDeletions).where(eq(accountDeletions.userId, user.id));
    expect(still.works).toBe("keep");

    const cancelled = await post(cookie, { intent: "cancel" });
    expect(statusOf(cancelled)).toBe(302);
    expect(await db.select().from(accountDeletions).where(eq(accountDeletions.userId, user.id))).toEqual([]);
    expect(await bannerOf(cookie)).toBeNull();
    expect(await auditActions(user.id)).toEqual(["account.deletion-request", "account.deletion-cancel"]);
  });

  it("refuses while a payout request is pending", async () => {
    const author = await createUser();
    await db.insert(payoutRequests).values({ userId: author.id, amount: 100, payee: "支付宝 a***@example.com" });
    const refused = await post(await sessionCookieFor(author.id), { intent: "request", password: author.password, works: "keep", confirm: "on" });
    expect(statusOf(refused)).toBe(409);
    expect(errorsOf(refused)[""]).toEqual([ACCOUNT_DELETION_MESSAGES.payoutPending]);
    expect(await db.select().from(accountDeletions).where(eq(accountDeletions.userId, author.id))).toEqual([]);
    await db.delete(payoutRequests).where(eq(payoutRequests.userId, author.id));
  });
});

describe("the deletion job", () => {
  let author: Awaited<ReturnType<typeof createUser>>;
  let keeper: Awaited<ReturnType<typeof createUser>>;
  let reader: Awaited<ReturnType<typeof createUser>>;
  let downWork: number;
  let keptWork: number;
  let otherWork: number;

  beforeAll(async () => {
    author = await createUser();
    keeper = await createUser();
    reader = await createUser();
    [downWork] = await insertWorks([{ userId: author.id, title: "要下架的书", visibility: "public-vip", price: 10 }]);
    [keptWork] = await insertWorks([{ userId: keeper.id, title: "保留的书" }]);
    [otherWork] = await insertWorks([{ userId: reader.id, title: "读者的书" }]);
    for (const workId of [downWork, keptWork, otherWork]) {
      await db.insert(chapters).values({ workId, title: "第一章", content: "正文", position: 1, wordCount: 2 });
    }
    // The author has money, a reader who bought the work, a session, a token, a shelf, follows and a comment.
    await fund(author.id, 30);
    await fund(reader.id, 40);
    await purchaseWork(reader.id, downWork);
    await db.update(profiles).set({ pixivId: `p${author.id.slice(0, 8)}`, avatarUrl: null }).where(eq(profiles.id, author.id));
    await sessionCookieFor(author.id);
    await createOpdsToken(author.id, "KOReader");
    await setFavorite(viewer(author.id), otherWork, true);
    const [otherChapter] = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, otherWork));
    await addMark(viewer(author.id), { workId: otherWork, chapterId: otherChapter.id, kind: "bookmark", paragraph: 0, note: "作者的书签" });
    await setAuthorFollow(viewer(author.id), reader.id, true);
    await setAuthorFollow(viewer(reader.id), author.id, true);
    await postComment(viewer(author.id), { workId: otherWork, order: 1, paragraph: null, parentId: null, body: "作者留下的评论" });
    await postComment(viewer(keeper.id), { workId: otherWork, order: 1, paragraph: null, parentId: null, body: "保留者的评论" });

    const long = new Date(Date.now() - 16 * DAY);
    await requestAccountDeletion(author.id, { password: author.password, works: "take_down" }, "127.0.0.1", long);
    await requestAccountDeletion(keeper.id, { password: keeper.password, works: "keep" }, "127.0.0.1", long);
    // The reader asked too, but only yesterday: their cool-off is still running.
    await requestAccountDeletion(reader.id, { password: reader.password, works: "keep" }, "127.0.0.1", new Date(Date.now() - DAY));
  });

  it("erases each due account exactly once, however many runs there are at once", async () => {
    const runs = await Promise.all([deleteDueAccounts(), deleteDueAccounts(), deleteDueAccounts()]);
    const later = await deleteDueAccounts();
    expect(later).toEqual([]);
    expect(runs.flat().sort()).toEqual([author.id, keeper.id].sort());
    const forfeits = await db.select().from(creditTransactions).where(eq(creditTransactions.description, FORFEIT_CREDITS));
    // The author's 30 credits (the keeper had none, so no row for them).
    expect(forfeits.map((r) => [r.userId, r.amount])).toEqual([[author.id, 30]]);
    expect((await auditActions(author.id)).filter((a) => a === "account.deleted")).toHaveLength(1);
    expect((await auditActions(keeper.id)).filter((a) => a === "account.deleted")).toHaveLength(1);
    // The reader's cool-off runs on: untouched.
    const [readerRow] = await db.select().from(accountDeletions).where(eq(accountDeletions.userId, reader.id));
    expect(readerRow.deletedAt).toBeNull();
    expect(await creditBalance(reader.id)).toBe(30);
  });

  it("leaves an anonymous account that cannot sign in, with no personal data", async () => {
    const [u] = await db.select().from(users).where(eq(users.id, author.id));
    expect(u.email).toBe(`deleted-${author.id}@deleted.invalid`);
    expect(u.passwordHash).toBe("!");
    const [p] = await db.select().from(profiles).where(eq(profiles.id, author.id));
    expect(p).toMatchObject({ nickname: DELETED_NICKNAME, avatarUrl: null, pixivId: null, email: u.email, tokens: 0 });
    expect(await db.select().from(sessions).where(eq(sessions.userId, author.id))).toEqual([]);
    expect(await db.select().from(readerOpdsTokens).where(eq(readerOpdsTokens.userId, author.id))).toEqual([]);
    expect(await db.select().from(favorites).where(eq(favorites.userId, author.id))).toEqual([]);
    expect(await db.select().from(readerMarks).where(eq(readerMarks.userId, author.id))).toEqual([]);
    const follows = await db.select().from(authorFollows).where(sql`${authorFollows.userId} = ${author.id} or ${authorFollows.authorId} = ${author.id}`);
    expect(follows).toEqual([]);

    await expect(login(formOf({ email: author.email, password: author.password }), "127.0.0.1")).rejects.toThrow("邮箱或密码错误");
    await expect(login(formOf({ email: u.email, password: author.password }), "127.0.0.1")).rejects.toThrow("邮箱或密码错误");
    // Nor can an operator open it again with a new password.
    const operator = { admin: { id: null, email: "op@example.com" }, address: "127.0.0.1" };
    await expect(resetUserPassword(operator, author.id, "a-new-password-1")).rejects.toThrow("该账号已注销");
    expect((await getUserForAdmin(author.id)).deletedAt).toBeInstanceOf(Date);
    expect((await getUserForAdmin(reader.id)).deletionDueAt).toBeInstanceOf(Date);
  });

  it("takes down or keeps the works as chosen, and keeps the comments under 已注销用户", async () => {
    const [down] = await db.select().from(works).where(eq(works.id, downWork));
    expect(down).toMatchObject({ visibility: "private", price: 0, takedownReason: "作者已注销账号", takedownPrevious: { visibility: "public-vip", price: 10 } });
    expect(down.takenDownAt).toBeInstanceOf(Date);
    const [kept] = await db.select().from(works).where(eq(works.id, keptWork));
    expect(kept).toMatchObject({ visibility: "public", takenDownAt: null, userId: keeper.id });
    const comments = await db
      .select({ body: chapterComments.body, nickname: profiles.nickname })
      .from(chapterComments)
      .innerJoin(profiles, eq(profiles.id, chapterComments.userId))
      .where(eq(chapterComments.workId, otherWork))
      .orderBy(chapterComments.id);
    expect(comments).toEqual([
      { body: "作者留下的评论", nickname: DELETED_NICKNAME },
      { body: "保留者的评论", nickname: DELETED_NICKNAME },
    ]);
  });

  it("keeps the ledger: orders, purchases and income stay on the same id, and check:ledger balances", async () => {
    const authorRows = await db.select().from(creditTransactions).where(eq(creditTransactions.userId, author.id)).orderBy(creditTransactions.id);
    expect(authorRows.map((r) => [r.type, r.amount, r.description])).toEqual([
      ["recharge", 30, "测试充值"],
      ["consume", 30, FORFEIT_CREDITS],
    ]);
    expect(await creditBalance(author.id)).toBe(0);
    const tokens = await db.select().from(tokenTransactions).where(eq(tokenTransactions.userId, author.id));
    const forfeited = tokens.filter((t) => t.description === FORFEIT_TOKENS);
    expect(forfeited.length).toBe(tokens.some((t) => t.amount > 0) ? 1 : 0);
    // The reader's purchase: still theirs, and still the author's sale.
    expect(await db.select({ id: workPurchases.id }).from(workPurchases).where(eq(workPurchases.workId, downWork))).toHaveLength(1);
    expect(await db.select({ type: incomeTransactions.type }).from(incomeTransactions).where(eq(incomeTransactions.userId, author.id))).toEqual([{ type: "sale" }]);
    expect(await checkLedger()).toEqual([]);
  });
});

describe("a due account with a payout on its way", () => {
  it("waits until the payout is settled, then is erased", async () => {
    const author = await createUser();
    await requestAccountDeletion(author.id, { password: author.password, works: "keep" }, "127.0.0.1", new Date(Date.now() - 16 * DAY));
    // A payout asked for during the cool-off (the request page refuses one asked before).
    const [payout] = await db.insert(payoutRequests).values({ userId: author.id, amount: 50, payee: "支付宝 b***@example.com" }).returning({ id: payoutRequests.id });
    expect(await deleteDueAccounts()).toEqual([]);
    await db.update(payoutRequests).set({ status: "refused", settledAt: new Date(), reference: "测试" }).where(eq(payoutRequests.id, payout.id));
    expect(await deleteDueAccounts()).toEqual([author.id]);
    await db.delete(payoutRequests).where(eq(payoutRequests.id, payout.id));
  });
});

describe("a deleted account and a reset link", () => {
  it("is never sent one, whatever address is asked for", async () => {
    const { requestPasswordReset, resetMailsSettled } = await import("~/server/identity/password-reset.server");
    vi.stubEnv("SITE_URL", "https://inkstone.example");
    const gone = await createUser();
    await requestAccountDeletion(gone.id, { password: gone.password, works: "keep" }, "127.0.0.1", new Date(Date.now() - 16 * DAY));
    expect(await deleteDueAccounts()).toEqual([gone.id]);
    const { passwordResetTokens } = await import("~/db/schema");
    for (const email of [gone.email, `deleted-${gone.id}@deleted.invalid`]) await requestPasswordReset(email, "127.0.0.1");
    await resetMailsSettled();
    expect(await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, gone.id))).toEqual([]);
    vi.unstubAllEnvs();
  });
});
