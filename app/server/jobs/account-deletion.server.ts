import { and, eq, isNull, or, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import {
  accountDeletions,
  announcementReads,
  authorFollows,
  authorIdentities,
  autoSubscriptions,
  chapterReads,
  favorites,
  formSubmissions,
  minorModes,
  notificationMutes,
  notifications,
  passwordResetTokens,
  phoneCodes,
  authorBlocks,
  tagBlocks,
  payoutAccounts,
  profiles,
  readerOpdsTokens,
  readingProgress,
  readerMarks,
  sessions,
  textOperations,
  aiTextMarks,
  users,
  works,
  writingProjects,
  outlineJobs,
  type DeletionWorkChoice,
} from "~/db/schema";
import { DELETED_NICKNAME } from "~/schemas/account-deletion";
import { forgetBooklistFollows } from "~/server/community/booklists.server";
import { forfeitBalances } from "~/server/economy/account-closure.server";
import { recordAdminAction } from "~/server/platform/audit.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { deleteStoredImage } from "~/server/platform/images.server";
import { periodicJob } from "~/server/platform/job-runner.server";

/**
 * 注销账号's last step (docs/product.md#account-deletion, decision 231): every hour, each
 * request whose 15-day cool-off has run out is carried out, one account per transaction.
 * The claim is the request row, locked FOR UPDATE SKIP LOCKED and marked `deleted_at` in the
 * transaction that erases, so however many processes (or runs) look at once, each account
 * is erased exactly once, and a failure leaves it whole for the next run. An account with a
 * pending payout waits until the payout is settled (its money is on its way to them).
 *
 * Erased: the e-mail (replaced by an address that cannot receive mail), the password hash
 * (replaced by one no password matches), the phone number and its codes (decision 235),
 * nickname (已注销用户), avatar, pixiv ID, reader
 * settings, 实名 rows, 收款账户, sessions, reset links, reading-app tokens, 青少年模式, the
 * bookshelf, follows (both ways; of 书单 too, their counts following), 屏蔽 lists, reading positions and history, 书签 and 划线, notifications and their
 * mutes, announcement reads, auto-subscriptions, AI writing projects and operations, queued 细纲 drafting, form
 * tokens. Kept, tied to the same id which is now anonymous: orders, credit and token
 * ledgers (the balances forfeited by a ledger row each), purchases, income and payouts,
 * tax statements, tips and fans, votes, comments and book reviews (shown under 已注销用户),
 * likes and reports (counts and moderation history), their 书单 (public lists, shown under
 * 已注销用户 like their comments), and the works as the author chose.
 */

const TAKE_DOWN_REASON = "作者已注销账号";
const SYSTEM = { admin: { id: null, email: "（系统）" }, address: "account-deletion job" };

async function erasePersonalData(tx: Executor, userId: string): Promise<void> {
  await tx.delete(sessions).where(eq(sessions.userId, userId));
  await tx.delete(phoneCodes).where(eq(phoneCodes.userId, userId));
  await forgetBooklistFollows(tx, userId);
  await tx.delete(authorBlocks).where(eq(authorBlocks.userId, userId));
  await tx.delete(tagBlocks).where(eq(tagBlocks.userId, userId));
  await tx.delete(passwordResetTokens).where(eq(passwordResetTokens.userId, userId));
  await tx.delete(readerOpdsTokens).where(eq(readerOpdsTokens.userId, userId));
  await tx.delete(authorIdentities).where(eq(authorIdentities.userId, userId));
  await tx.delete(payoutAccounts).where(eq(payoutAccounts.userId, userId));
  await tx.delete(minorModes).where(eq(minorModes.userId, userId));
  await tx.delete(favorites).where(eq(favorites.userId, userId));
  await tx.delete(authorFollows).where(or(eq(authorFollows.userId, userId), eq(authorFollows.authorId, userId)));
  await tx.delete(readingProgress).where(eq(readingProgress.userId, userId));
  await tx.delete(readerMarks).where(eq(readerMarks.userId, userId));
  await tx.delete(chapterReads).where(eq(chapterReads.userId, userId));
  await tx.delete(notifications).where(eq(notifications.userId, userId));
  await tx.delete(notificationMutes).where(eq(notificationMutes.userId, userId));
  await tx.delete(announcementReads).where(eq(announcementReads.userId, userId));
  await tx.delete(autoSubscriptions).where(eq(autoSubscriptions.userId, userId));
  await tx.delete(formSubmissions).where(eq(formSubmissions.userId, userId));
  await tx.delete(aiTextMarks).where(eq(aiTextMarks.userId, userId));
  await tx.delete(textOperations).where(eq(textOperations.userId, userId));
  await tx.delete(writingProjects).where(eq(writingProjects.userId, userId));
  // AI 细纲 drafting still queued: nobody is there to pay for it (the outlines stay with the works, decision 255).
  await tx.delete(outlineJobs).where(eq(outlineJobs.userId, userId));
  const anonymous = `deleted-${userId}@deleted.invalid`;
  // "!" is no scrypt record: verifyPassword refuses every password against it.
  await tx.update(users).set({ email: anonymous, passwordHash: "!", lastSignInAt: null, phone: null, phoneVerifiedAt: null }).where(eq(users.id, userId));
  await tx
    .update(profiles)
    .set({ email: anonymous, nickname: DELETED_NICKNAME, avatarUrl: null, pixivId: null, readerSettings: null, showR18: false, lastSignInAt: null, updatedAt: new Date() })
    .where(eq(profiles.id, userId));
}

/** 下架: the administrators' take-down (decision 138), its reason saying why; already taken-down works stay as they are. */
async function takeDownWorks(tx: Executor, userId: string): Promise<number> {
  const rows = await tx
    .update(works)
    .set({
      visibility: "private",
      price: 0,
      takenDownAt: new Date(),
      takedownReason: TAKE_DOWN_REASON,
      takedownPrevious: sql`jsonb_build_object('visibility', ${works.visibility}, 'price', ${works.price})`,
      updatedAt: new Date(),
    })
    .where(and(eq(works.userId, userId), isNull(works.takenDownAt)))
    .returning({ id: works.id });
  return rows.length;
}

/**
 * Carries out one due request, if there is one not claimed by another run: returns the
 * erased avatar's URL (removed from storage after the commit) or null when none was due.
 */
async function deleteOneDueAccount(now: Date): Promise<{ userId: string; avatarUrl: string | null } | null> {
  return db.transaction(async (tx) => {
    const [claim] = rowsOf<{ user_id: string; works: DeletionWorkChoice; avatar_url: string | null }>(
      await tx.execute(sql`
        select d.user_id, d.works, (select p.avatar_url from profiles p where p.id = d.user_id) as avatar_url
        from account_deletions d
        where d.deleted_at is null and d.due_at <= ${now.toISOString()}::timestamptz
          and not exists (select 1 from payout_requests r where r.user_id = d.user_id and r.status = 'pending')
        order by d.due_at, d.user_id
        limit 1
        for update of d skip locked`),
    );
    if (!claim) return null;
    const userId = claim.user_id;
    const forfeited = await forfeitBalances(tx, userId);
    const takenDown = claim.works === "take_down" ? await takeDownWorks(tx, userId) : 0;
    await erasePersonalData(tx, userId);
    await tx.update(accountDeletions).set({ deletedAt: now }).where(eq(accountDeletions.userId, userId));
    await recordAdminAction(tx, SYSTEM, {
      action: "account.deleted",
      targetType: "user",
      targetId: userId,
      after: { works: claim.works, worksTakenDown: takenDown, creditsForfeited: forfeited.credits, tokensForfeited: forfeited.tokens },
    });
    return { userId, avatarUrl: claim.avatar_url };
  });
}

/** Carries out every request due by `now`; returns the ids of the accounts erased by this run. The job's run; tests call it. @internal */
export async function deleteDueAccounts(now: Date = new Date()): Promise<string[]> {
  const erased: string[] = [];
  for (;;) {
    const done = await deleteOneDueAccount(now);
    if (!done) return erased;
    erased.push(done.userId);
    if (done.avatarUrl) await deleteStoredImage(done.avatarUrl).catch((error) => console.error("deleted account's avatar not removed", done.avatarUrl, error));
  }
}

export const accountDeletionJob = periodicJob({
  name: "account-deletion",
  failure: "carrying out account deletions failed",
  everyMs: () => 3_600_000,
  run: () => deleteDueAccounts(),
  atStart: true,
  whenBusy: "skip",
});
