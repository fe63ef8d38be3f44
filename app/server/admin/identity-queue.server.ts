import { and, asc, eq, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { admins, authorIdentities, profiles, users } from "~/db/schema";
import { IDENTITY_MESSAGES, IDENTITY_NOTE_MAX, type IdentityDocument } from "~/schemas/identity";
import { notifyReviewOutcome } from "~/server/community/notifications.server";
import { openIdentityField } from "~/server/identity/author-identity.server";
import type { AdminRole } from "~/server/identity/admin-session.server";
import { DomainError } from "~/server/platform/errors.server";
import { recordAdminAction, type SignedInActor } from "~/server/platform/audit.server";
import { claimFacts, claimNextPending, claimPendingRow, heldClaimSql } from "./queue-claims.server";

/**
 * 实名审核 (docs/product.md#author-identity, decision 204): the operators' queue of identity
 * submissions, shaped like the chapters' review queue (decision 196): oldest first, a claim
 * taken with `FOR UPDATE SKIP LOCKED` and held CLAIM_MINUTES, every decision audited in its
 * transaction. The queue and the item show masked values only; the full values open for a
 * 超级管理员 who gives a reason (revealIdentity), and that view is audited.
 */

const QUEUE_PAGE = 100;

const heldClaim = heldClaimSql(authorIdentities);

export interface IdentityQueueRow {
  id: number;
  author: string;
  email: string;
  documentType: IdentityDocument;
  nameMasked: string;
  numberMasked: string;
  submittedAt: Date;
  claimedBy: string | null;
}

/** Pending submissions, oldest first, masked. */
export async function identityQueue(): Promise<{ rows: IdentityQueueRow[]; pending: number }> {
  const rows = await db
    .select({
      id: authorIdentities.id,
      author: profiles.nickname,
      email: users.email,
      documentType: authorIdentities.documentType,
      nameMasked: authorIdentities.nameMasked,
      numberMasked: authorIdentities.numberMasked,
      submittedAt: authorIdentities.submittedAt,
      claimedBy: sql<string | null>`case when ${heldClaim} then ${admins.email} end`,
    })
    .from(authorIdentities)
    .innerJoin(users, eq(users.id, authorIdentities.userId))
    .leftJoin(profiles, eq(profiles.id, authorIdentities.userId))
    .leftJoin(admins, eq(admins.id, authorIdentities.claimedBy))
    .where(eq(authorIdentities.status, "pending"))
    .orderBy(asc(authorIdentities.submittedAt), asc(authorIdentities.id))
    .limit(QUEUE_PAGE);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(authorIdentities).where(eq(authorIdentities.status, "pending"));
  return { rows: rows.map((r) => ({ ...r, author: r.author ?? "" })), pending: Number(count?.n ?? 0) };
}

/** Claims the oldest submission nobody holds (or one this operator holds); null when none waits. */
export async function claimNextIdentity(actor: SignedInActor): Promise<number | null> {
  return claimNextPending(authorIdentities, actor.admin.id);
}

function itemId(value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new DomainError(IDENTITY_MESSAGES.notFound, 404);
  return value;
}

/** Why a submission cannot be claimed or decided by this operator: always throws. */
async function explainRefusal(id: number, adminId: string, executor: Executor = db): Promise<never> {
  const [item] = await executor
    .select({ status: authorIdentities.status, claimedBy: authorIdentities.claimedBy, held: sql<boolean>`${heldClaim}`, email: admins.email })
    .from(authorIdentities)
    .leftJoin(admins, eq(admins.id, authorIdentities.claimedBy))
    .where(eq(authorIdentities.id, id));
  if (!item) throw new DomainError(IDENTITY_MESSAGES.notFound, 404);
  if (item.status !== "pending") throw new DomainError(IDENTITY_MESSAGES.alreadyDecided, 409);
  if (item.claimedBy !== adminId && item.held) throw new DomainError(IDENTITY_MESSAGES.claimedByOther(item.email ?? ""), 409);
  throw new DomainError(IDENTITY_MESSAGES.alreadyDecided, 409);
}

/** 领取 from the item's page; someone else's live claim or a decided submission: a clear message, nothing changes. */
export async function claimIdentity(actor: SignedInActor, id: number): Promise<void> {
  itemId(id);
  if (!(await claimPendingRow(authorIdentities, actor.admin.id, id))) await explainRefusal(id, actor.admin.id);
}

export interface IdentityItemView {
  id: number;
  userId: string;
  author: string;
  email: string;
  status: "pending" | "approved" | "rejected";
  documentType: IdentityDocument;
  nameMasked: string;
  numberMasked: string;
  verifier: string;
  submittedAt: Date;
  claimedByMe: boolean;
  claimedBy: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  note: string | null;
}

/** One submission, masked. */
export async function identityItemView(actor: SignedInActor, id: number): Promise<IdentityItemView> {
  itemId(id);
  const [row] = await db
    .select({
      id: authorIdentities.id,
      userId: authorIdentities.userId,
      author: profiles.nickname,
      email: users.email,
      status: authorIdentities.status,
      documentType: authorIdentities.documentType,
      nameMasked: authorIdentities.nameMasked,
      numberMasked: authorIdentities.numberMasked,
      verifier: authorIdentities.verifier,
      submittedAt: authorIdentities.submittedAt,
      ...claimFacts(authorIdentities),
      decidedAt: authorIdentities.decidedAt,
      note: authorIdentities.note,
    })
    .from(authorIdentities)
    .innerJoin(users, eq(users.id, authorIdentities.userId))
    .leftJoin(profiles, eq(profiles.id, authorIdentities.userId))
    .where(eq(authorIdentities.id, id));
  if (!row) throw new DomainError(IDENTITY_MESSAGES.notFound, 404);
  const { held, claimer, claimedBy, ...rest } = row;
  return {
    ...rest,
    author: row.author ?? "",
    claimedByMe: row.status === "pending" && claimedBy === actor.admin.id && Boolean(held),
    claimedBy: row.status === "pending" && held ? claimer : null,
  };
}

/**
 * 通过 or 退回 (with a reason the author reads) a pending submission this operator holds or
 * nobody holds; someone else's live claim or a decision already made: a clear message,
 * nothing changes. The audit row is written in the same transaction.
 */
export async function decideIdentity(actor: SignedInActor, id: number, decision: "approve" | "reject", noteInput: string): Promise<"approved" | "rejected"> {
  itemId(id);
  const note = noteInput.trim();
  if (decision === "reject" && !note) throw new DomainError(IDENTITY_MESSAGES.noteRequired, 400, "note");
  if (note.length > IDENTITY_NOTE_MAX) throw new DomainError(IDENTITY_MESSAGES.noteTooLong, 400, "note");
  const status = decision === "approve" ? "approved" : "rejected";
  return db.transaction(async (tx) => {
    const [decided] = await tx
      .update(authorIdentities)
      .set({ status, decidedBy: actor.admin.id, decidedAt: new Date(), note: note || null, claimedBy: actor.admin.id, claimedAt: new Date() })
      .where(
        and(
          eq(authorIdentities.id, id),
          eq(authorIdentities.status, "pending"),
          sql`(${authorIdentities.claimedBy} is null or ${authorIdentities.claimedBy} = ${actor.admin.id} or not (${heldClaim}))`,
        ),
      )
      .returning({ userId: authorIdentities.userId, nameMasked: authorIdentities.nameMasked, numberMasked: authorIdentities.numberMasked });
    if (!decided) return explainRefusal(id, actor.admin.id, tx);
    await recordAdminAction(tx, actor, {
      action: decision === "approve" ? "identity.approve" : "identity.reject",
      targetType: "identity",
      targetId: id,
      after: { status, name: decided.nameMasked, number: decided.numberMasked },
      reason: note || null,
    });
    // The author hears of it in their inbox (审核通知), beside the settings page's status.
    await notifyReviewOutcome(tx, {
      userId: decided.userId,
      body: status === "approved" ? "实名认证已通过" : `实名认证未通过，请修改后重新提交。原因：${note}`,
    });
    return status;
  });
}

/**
 * 查看完整信息: a 超级管理员 with a reason sees the legal name and document number once. The
 * audit row (who, when, the reason) is written in the transaction that reads them; a value
 * that does not decrypt answers a clear message and shows nothing.
 */
export async function revealIdentity(actor: SignedInActor, role: AdminRole, id: number, reasonInput: string): Promise<{ legalName: string; documentNumber: string }> {
  if (role !== "super") throw new DomainError(IDENTITY_MESSAGES.superOnly, 403);
  itemId(id);
  const reason = reasonInput.trim();
  if (!reason) throw new DomainError(IDENTITY_MESSAGES.reasonRequired, 400, "reason");
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ userId: authorIdentities.userId, nameCipher: authorIdentities.nameCipher, numberCipher: authorIdentities.numberCipher })
      .from(authorIdentities)
      .where(eq(authorIdentities.id, id));
    if (!row) throw new DomainError(IDENTITY_MESSAGES.notFound, 404);
    const legalName = openIdentityField(row.userId, "name", row.nameCipher);
    const documentNumber = openIdentityField(row.userId, "number", row.numberCipher);
    await recordAdminAction(tx, actor, { action: "identity.reveal", targetType: "identity", targetId: id, reason });
    return { legalName, documentNumber };
  });
}
