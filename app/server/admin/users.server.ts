import { desc, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import { escapeLike } from "~/server/platform/db-utils.server";
import { db } from "~/db/client.server";
import {
  accountDeletions,
  authorIncome,
  chapterPurchases,
  creditTransactions,
  credits,
  incomeTransactions,
  paymentOrders,
  profiles,
  sessions,
  tokenTransactions,
  users,
  workPurchases,
  works,
} from "~/db/schema";
import { banActive } from "~/server/identity/auth.server";
import { adjustCreditBalance, type AdminAdjustment } from "~/server/economy/ledger.server";
import { sendAdminMessage } from "~/server/community/notifications.server";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { pageWithin } from "~/utils/pagination";
import { DomainError } from "~/server/platform/errors.server";
import { hashPassword } from "~/server/platform/password.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { destroyAllUserSessions } from "~/server/identity/session.server";
import { screenedName } from "~/server/screening/screening.server";

const ADMIN_USERS_PAGE_SIZE = 30;

const userColumns = {
  id: profiles.id,
  email: profiles.email,
  nickname: profiles.nickname,
  tokens: profiles.tokens,
  credits: sql<number>`coalesce(${credits.balance}, 0)`.mapWith(Number),
  createdAt: profiles.createdAt,
  lastSignInAt: profiles.lastSignInAt,
  banned: banActive,
  bannedAt: users.bannedAt,
  bannedUntil: users.bannedUntil,
  banReason: users.banReason,
  reviewRequired: users.reviewRequired,
  contract: users.contract,
  // 注销账号 (decision 231): requested (deletion due then) or carried out.
  deletionDueAt: sql<Date | null>`(select d.due_at from ${accountDeletions} d where d.user_id = ${profiles.id} and d.deleted_at is null)`.mapWith(toDate),
  deletedAt: sql<Date | null>`(select d.deleted_at from ${accountDeletions} d where d.user_id = ${profiles.id})`.mapWith(toDate),
};

function toDate(value: string | Date | null): Date | null {
  return value === null ? null : new Date(value);
}

/** Users, 30 a page, newest first; `query` matches e-mail or nickname by substring. */
export async function listUsers({ query, page }: { query: string; page: number }) {
  const where: SQL | undefined = query
    ? or(ilike(profiles.email, `%${escapeLike(query)}%`), ilike(profiles.nickname, `%${escapeLike(query)}%`))
    : undefined;
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(profiles).where(where);
  const { page: current, pageCount } = pageWithin(page, total, ADMIN_USERS_PAGE_SIZE);
  const rows = await db
    .select(userColumns)
    .from(profiles)
    .innerJoin(users, eq(users.id, profiles.id))
    .leftJoin(credits, eq(credits.userId, profiles.id))
    .where(where)
    .orderBy(desc(profiles.createdAt), desc(profiles.id))
    .limit(ADMIN_USERS_PAGE_SIZE)
    .offset((current - 1) * ADMIN_USERS_PAGE_SIZE);
  return { users: rows, total, page: current, pageCount };
}

export async function getUserForAdmin(userId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(userId)) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
  const [row] = await db
    .select(userColumns)
    .from(profiles)
    .innerJoin(users, eq(users.id, profiles.id))
    .leftJoin(credits, eq(credits.userId, profiles.id))
    .where(eq(profiles.id, userId));
  if (!row) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
  return row;
}

export async function updateUserNickname(actor: AdminActor, userId: string, nickname: string): Promise<void> {
  const { masked } = await screenedName({ label: "昵称", field: "nickname", text: nickname });
  await db.transaction(async (tx) => {
    const [before] = await tx.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, userId)).for("update");
    if (!before) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
    await tx.update(profiles).set({ nickname: masked, updatedAt: new Date() }).where(eq(profiles.id, userId));
    await recordAdminAction(tx, actor, { action: "user.nickname", targetType: "user", targetId: userId, before, after: { nickname: masked } });
  });
}

/** Adds to or takes from the user's credits with a reason (ledger.server.ts), audited in the same transaction. */
export async function adjustUserCredits(
  actor: AdminActor,
  userId: string,
  change: number,
  reason: string,
  record?: RecordResult,
): Promise<AdminAdjustment> {
  return adjustCreditBalance(actor.admin.id ?? "system", userId, change, reason, async (tx, a) => {
    await recordAdminAction(tx, actor, {
      action: "user.credits",
      targetType: "user",
      targetId: userId,
      before: { credits: a.previous },
      after: { credits: a.balance, change: a.difference },
      reason,
    });
    // The form's one-time token, in the ledger row's transaction (decision 172).
    await record?.(tx, userId);
  });
}

/** A message to the user's inbox (docs/product.md#notifications), audited with its text. */
export async function messageUser(actor: AdminActor, userId: string, body: unknown, record?: RecordResult): Promise<void> {
  await sendAdminMessage(userId, body, async (tx, text) => {
    await recordAdminAction(tx, actor, { action: "user.message", targetType: "user", targetId: userId, after: { body: text } });
    await record?.(tx, userId);
  });
}

/**
 * Sets a user's password (docs/product.md: Back office, users) and ends every session of that
 * user, so whoever was signed in with the old password is signed out everywhere.
 */
export async function resetUserPassword(actor: AdminActor, userId: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    // A deleted account stays closed (decision 231): a new password would open it again.
    const [closed] = await tx.select({ at: accountDeletions.deletedAt }).from(accountDeletions).where(eq(accountDeletions.userId, userId));
    if (closed?.at) throw new DomainError(ADMIN_MESSAGES.userDeleted, 409, "password");
    const rows = await tx.update(users).set({ passwordHash }).where(eq(users.id, userId)).returning({ id: users.id });
    if (rows.length === 0) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
    await destroyAllUserSessions(userId, tx);
    // The password itself is a secret: the log says that it changed, not to what.
    await recordAdminAction(tx, actor, { action: "user.password-reset", targetType: "user", targetId: userId });
  });
}

/** The longest ban reason. */
const MAX_BAN_REASON = 200;

/**
 * Bans a user (decision 137): with a reason and an optional end (null: until lifted). In one
 * transaction the ban is written and every session of the user deleted, so their open pages
 * are signed out at their next request; sign-in is refused with the reason while the ban
 * lasts, and their comments are hidden. Banning again replaces the reason and end.
 */
export async function banUser(actor: AdminActor, userId: string, reason: string, until: Date | null): Promise<void> {
  const why = reason.trim();
  if (!why) throw new DomainError("请填写封禁原因", 400);
  if (why.length > MAX_BAN_REASON) throw new DomainError(`封禁原因不能超过${MAX_BAN_REASON}个字`, 400);
  if (until && until.getTime() <= Date.now()) throw new DomainError("解封时间必须晚于现在", 400);
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ bannedAt: users.bannedAt, bannedUntil: users.bannedUntil, banReason: users.banReason })
      .from(users)
      .where(eq(users.id, userId))
      .for("update");
    if (!before) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
    await tx.update(users).set({ bannedAt: new Date(), bannedUntil: until, banReason: why }).where(eq(users.id, userId));
    const ended = await tx.delete(sessions).where(eq(sessions.userId, userId)).returning({ id: sessions.id });
    await recordAdminAction(tx, actor, {
      action: "user.ban",
      targetType: "user",
      targetId: userId,
      before: before.bannedAt ? { bannedUntil: before.bannedUntil, banReason: before.banReason } : { banned: false },
      after: { bannedUntil: until, sessionsEnded: ended.length },
      reason: why,
    });
  });
}

/** Lifts a ban; 该用户未被封禁 when there is none to lift. */
/**
 * 先审名单 (docs/product.md#review, decision 196): this author's chapters wait for review
 * whatever the policy's count says, or no longer do. Chapters already released stay out.
 */
export async function setReviewRequired(actor: AdminActor, userId: string, required: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    const [before] = await tx.select({ reviewRequired: users.reviewRequired }).from(users).where(eq(users.id, userId)).for("update");
    if (!before) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
    if (before.reviewRequired === required) return;
    await tx.update(users).set({ reviewRequired: required }).where(eq(users.id, userId));
    await recordAdminAction(tx, actor, { action: "user.review-required", targetType: "user", targetId: userId, before, after: { reviewRequired: required } });
  });
}

export async function unbanUser(actor: AdminActor, userId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ banReason: users.banReason, bannedAt: users.bannedAt, bannedUntil: users.bannedUntil })
      .from(users)
      .where(eq(users.id, userId))
      .for("update");
    if (!before) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
    if (!before.bannedAt) throw new DomainError("该用户未被封禁", 409);
    await tx.update(users).set({ bannedAt: null, bannedUntil: null, banReason: null }).where(eq(users.id, userId));
    await recordAdminAction(tx, actor, {
      action: "user.unban",
      targetType: "user",
      targetId: userId,
      before: { bannedUntil: before.bannedUntil, banReason: before.banReason },
      after: { banned: false },
    });
  });
}

/** Ends every session of the user (they must sign in again everywhere); returns how many. */
export async function endUserSessions(actor: AdminActor, userId: string): Promise<number> {
  return db.transaction(async (tx) => {
    const [exists] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId));
    if (!exists) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
    const ended = await tx.delete(sessions).where(eq(sessions.userId, userId)).returning({ id: sessions.id });
    await recordAdminAction(tx, actor, { action: "user.end-sessions", targetType: "user", targetId: userId, after: { sessionsEnded: ended.length } });
    return ended.length;
  });
}

const LEDGER_ROWS = 50;

/**
 * What the user page shows beside the account (decision 137): the last 50 rows of each
 * ledger (credits, tokens, income), the income balance, purchases (whole works and
 * chapters), payment orders and works. Read-only; several small indexed queries.
 */
export async function getUserActivity(userId: string) {
  const [creditRows, tokenRows, incomeRows, income, purchases, chapterBuys, orders, ownWorks, live] = await Promise.all([
    db
      .select({ id: creditTransactions.id, amount: creditTransactions.amount, type: creditTransactions.type, description: creditTransactions.description, createdAt: creditTransactions.createdAt })
      .from(creditTransactions)
      .where(eq(creditTransactions.userId, userId))
      .orderBy(desc(creditTransactions.createdAt), desc(creditTransactions.id))
      .limit(LEDGER_ROWS),
    db
      .select({ id: tokenTransactions.id, amount: tokenTransactions.amount, type: tokenTransactions.type, description: tokenTransactions.description, createdAt: tokenTransactions.createdAt })
      .from(tokenTransactions)
      .where(eq(tokenTransactions.userId, userId))
      .orderBy(desc(tokenTransactions.createdAt), desc(tokenTransactions.id))
      .limit(LEDGER_ROWS),
    db
      .select({ id: incomeTransactions.id, amount: incomeTransactions.amount, type: incomeTransactions.type, description: incomeTransactions.description, createdAt: incomeTransactions.createdAt })
      .from(incomeTransactions)
      .where(eq(incomeTransactions.userId, userId))
      .orderBy(desc(incomeTransactions.createdAt), desc(incomeTransactions.id))
      .limit(LEDGER_ROWS),
    db.select({ balance: authorIncome.balance, held: authorIncome.held }).from(authorIncome).where(eq(authorIncome.userId, userId)),
    db
      .select({ workId: workPurchases.workId, title: works.title, price: workPurchases.price, createdAt: workPurchases.createdAt })
      .from(workPurchases)
      .leftJoin(works, eq(works.id, workPurchases.workId))
      .where(eq(workPurchases.userId, userId))
      .orderBy(desc(workPurchases.createdAt))
      .limit(LEDGER_ROWS),
    db
      .select({
        workId: chapterPurchases.workId,
        title: works.title,
        chapters: sql<number>`count(*)`.mapWith(Number),
        credits: sql<number>`sum(${chapterPurchases.price})`.mapWith(Number),
        lastAt: sql<Date>`max(${chapterPurchases.createdAt})`.mapWith((v: string | Date) => new Date(v)),
      })
      .from(chapterPurchases)
      .leftJoin(works, eq(works.id, chapterPurchases.workId))
      .where(eq(chapterPurchases.userId, userId))
      .groupBy(chapterPurchases.workId, works.title)
      .orderBy(desc(sql`max(${chapterPurchases.createdAt})`))
      .limit(LEDGER_ROWS),
    db
      .select({ outTradeNo: paymentOrders.outTradeNo, amount: paymentOrders.amount, status: paymentOrders.status, createdAt: paymentOrders.createdAt, paidAt: paymentOrders.paidAt, refundedAt: paymentOrders.refundedAt })
      .from(paymentOrders)
      .where(eq(paymentOrders.userId, userId))
      .orderBy(desc(paymentOrders.createdAt))
      .limit(LEDGER_ROWS),
    db
      .select({ id: works.id, title: works.title, visibility: works.visibility, chapterCount: works.chapterCount, createdAt: works.createdAt })
      .from(works)
      .where(eq(works.userId, userId))
      .orderBy(desc(works.createdAt))
      .limit(LEDGER_ROWS),
    db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(sessions).where(eq(sessions.userId, userId)),
  ]);
  return {
    creditRows,
    tokenRows,
    incomeRows,
    income: income[0] ? { balance: Number(income[0].balance), held: Number(income[0].held) } : { balance: 0, held: 0 },
    purchases,
    chapterBuys,
    orders,
    works: ownWorks,
    sessions: live[0]?.n ?? 0,
  };
}
