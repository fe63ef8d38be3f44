import { and, eq, isNull, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { accountDeletions, authorIncome, credits, payoutRequests, profiles, users, works, type DeletionWorkChoice } from "~/db/schema";
import { ACCOUNT_DELETION_DAYS, ACCOUNT_DELETION_MESSAGES } from "~/schemas/account-deletion";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { DomainError } from "~/server/platform/errors.server";
import { verifyPassword } from "~/server/platform/password.server";
import { hitRateLimit } from "~/server/platform/rate-limit.server";
import { formatShanghai } from "~/utils/shanghai-time";

/**
 * 注销账号 (docs/product.md#account-deletion, decision 231): the person's request, with their
 * password and their works' fate, starts a 15-day cool-off during which the account works
 * as before and 撤销 ends it; when it runs out the account-deletion job
 * (app/server/jobs/account-deletion.server.ts) erases the personal data, once. A request is
 * refused while a payout request of theirs is pending (its money is on its way to them).
 */

/** Who acts in the audit log when the person acts on their own account (no admin). */
function selfActor(address: string): AdminActor {
  return { admin: { id: null, email: "（用户本人）" }, address };
}

export interface AccountDeletionPage {
  /** The request waiting out its cool-off, if any. */
  pending: { requestedAt: Date; dueAt: Date; works: DeletionWorkChoice } | null;
  /** What the page warns about: the balances that go, the works that need a choice. */
  credits: number;
  tokens: number;
  income: number;
  workCount: number;
  payoutPending: boolean;
}

export async function getAccountDeletionPage(userId: string): Promise<AccountDeletionPage> {
  const [row] = await db
    .select({
      requestedAt: accountDeletions.requestedAt,
      dueAt: accountDeletions.dueAt,
      works: accountDeletions.works,
      tokens: profiles.tokens,
      credits: sql<number>`coalesce((select c.balance from ${credits} c where c.user_id = ${profiles.id}), 0)`.mapWith(Number),
      income: sql<number>`coalesce((select i.balance from ${authorIncome} i where i.user_id = ${profiles.id}), 0)`.mapWith(Number),
      workCount: sql<number>`(select count(*)::int from ${works} w where w.user_id = ${profiles.id})`.mapWith(Number),
      payoutPending: sql<boolean>`exists (select 1 from ${payoutRequests} p where p.user_id = ${profiles.id} and p.status = 'pending')`,
    })
    .from(profiles)
    .leftJoin(accountDeletions, and(eq(accountDeletions.userId, profiles.id), isNull(accountDeletions.deletedAt)))
    .where(eq(profiles.id, userId));
  if (!row) throw new DomainError("用户不存在", 404);
  const { requestedAt, dueAt, works: choice, ...rest } = row;
  return { ...rest, tokens: Number(rest.tokens), pending: requestedAt && dueAt && choice ? { requestedAt, dueAt, works: choice } : null };
}

/** Wrong passwords allowed per user per 15 minutes, as for a password change. */
const PASSWORD_RULE = { limit: 10, windowSeconds: 15 * 60 };

/**
 * Files the request: the password must verify; a second request while one waits, or a
 * pending payout, is refused with its reason; the row and its audit line are written in
 * one transaction. Returns when the account will be deleted.
 */
export async function requestAccountDeletion(
  userId: string,
  input: { password: string; works: DeletionWorkChoice },
  address: string,
  now: Date = new Date(),
): Promise<{ dueAt: Date }> {
  if (!(await hitRateLimit(`account-deletion:user:${userId}`, PASSWORD_RULE))) {
    throw new DomainError(ACCOUNT_DELETION_MESSAGES.tooManyAttempts, 429, "password");
  }
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId));
  if (!user) throw new DomainError("用户不存在", 404);
  if (!(await verifyPassword(input.password, user.passwordHash))) {
    throw new DomainError(ACCOUNT_DELETION_MESSAGES.passwordWrong, 400, "password");
  }
  const dueAt = new Date(now.getTime() + ACCOUNT_DELETION_DAYS * 24 * 3600 * 1000);
  return db.transaction(async (tx) => {
    // The user row locked: a payout request (which locks the income row, not this) may still
    // start after this check; the job checks again before it erases anything.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    const [existing] = await tx.select({ dueAt: accountDeletions.dueAt }).from(accountDeletions).where(eq(accountDeletions.userId, userId));
    if (existing) throw new DomainError(ACCOUNT_DELETION_MESSAGES.alreadyRequested(formatShanghai(existing.dueAt)), 409);
    const [pending] = await tx
      .select({ id: payoutRequests.id })
      .from(payoutRequests)
      .where(and(eq(payoutRequests.userId, userId), eq(payoutRequests.status, "pending")))
      .limit(1);
    if (pending) throw new DomainError(ACCOUNT_DELETION_MESSAGES.payoutPending, 409);
    await tx.insert(accountDeletions).values({ userId, requestedAt: now, dueAt, works: input.works });
    await recordAdminAction(tx, selfActor(address), {
      action: "account.deletion-request",
      targetType: "user",
      targetId: userId,
      after: { dueAt: dueAt.toISOString(), works: input.works },
    });
    return { dueAt };
  });
}

/** 撤销: ends the waiting request (none waiting: 没有待处理的注销申请, 409), audited. */
export async function cancelAccountDeletion(userId: string, address: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [gone] = await tx
      .delete(accountDeletions)
      .where(and(eq(accountDeletions.userId, userId), isNull(accountDeletions.deletedAt)))
      .returning({ dueAt: accountDeletions.dueAt, works: accountDeletions.works });
    if (!gone) throw new DomainError(ACCOUNT_DELETION_MESSAGES.nothingToCancel, 409);
    await recordAdminAction(tx, selfActor(address), {
      action: "account.deletion-cancel",
      targetType: "user",
      targetId: userId,
      before: { dueAt: gone.dueAt.toISOString(), works: gone.works },
    });
  });
}
