import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { alias } from "drizzle-orm/pg-core";
import { admins, chapterComments, chapters, profiles, reviewItems, works, type WorkMeta } from "~/db/schema";
import { REVIEW_KIND_DECISIONS, REVIEW_MESSAGES, REVIEW_STATUS_LABELS, type ReviewDecision, type ReviewKind } from "~/schemas/review";
import { heldCommentHash, releaseHeldComment } from "~/server/community/comments.server";
import { notifyReviewOutcome } from "~/server/community/notifications.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { countWords } from "~/utils/text";
import { DomainError } from "~/server/platform/errors.server";
import { recordAdminAction, type SignedInActor } from "~/server/platform/audit.server";
import type { AdminRole } from "~/server/identity/admin-session.server";
import { applyEdit, releaseReviewed, returnToAuthor, reviewedVersionHash, takeBackApproved, type ReviewPolicy } from "~/server/studio/review.server";
import { applyWorkMeta, stillWaiting, takeBackWorkApproval, workCovers } from "~/server/studio/work-review.server";
import { waitingMeta, workMetaHash } from "~/server/studio/work-meta.server";
import { deleteStoredImage } from "~/server/platform/images.server";
import { reanchorAfterCommit } from "~/server/community/comments.server";
import { saveSiteSettings } from "./site-settings.server";
import { claimFacts, claimNextPending, claimPendingRow, heldClaimSql } from "./queue-claims.server";

/**
 * The review queue (先审后发, docs/product.md#review, decision 196): pending items oldest
 * first; a reviewer claims one (`FOR UPDATE SKIP LOCKED`, so two reviewers, in any
 * processes, never get the same one) and decides on it. A claim lasts CLAIM_MINUTES: an
 * item its reviewer left goes back to the queue. Every decision writes its audit row, with
 * the exact version reviewed, in the transaction that makes it. Items are of four kinds
 * (decision 206): a held release, a 跟踪审读 sample of a chapter already out, an author's
 * appeal (for a 总编辑 or 超级管理员 only), a comment held by a 审核 word.
 */

const QUEUE_PAGE = 100;

const heldClaim = heldClaimSql(reviewItems);

export interface QueueRow {
  id: number;
  kind: ReviewKind;
  /** A held comment's text (kind `comment`). */
  comment: string | null;
  workTitle: string;
  /** Null for a work's own item (kind `work`). */
  chapterTitle: string | null;
  author: string;
  reason: string;
  submittedAt: Date;
  claimedBy: string | null;
  wordCount: number | null;
}

/** Pending items, oldest first, with who holds each claim. */
export async function reviewQueue(): Promise<{ rows: QueueRow[]; pending: number; oldest: Date | null }> {
  const rows = await db
    .select({
      id: reviewItems.id,
      kind: reviewItems.kind,
      comment: chapterComments.body,
      workTitle: works.title,
      chapterTitle: chapters.title,
      author: profiles.nickname,
      reason: reviewItems.reason,
      submittedAt: reviewItems.submittedAt,
      claimedBy: sql<string | null>`case when ${heldClaim} then ${admins.email} end`,
      wordCount: chapters.wordCount,
    })
    .from(reviewItems)
    .leftJoin(chapters, eq(chapters.id, reviewItems.chapterId))
    .innerJoin(works, eq(works.id, reviewItems.workId))
    .leftJoin(profiles, eq(profiles.id, reviewItems.authorId))
    .leftJoin(admins, eq(admins.id, reviewItems.claimedBy))
    .leftJoin(chapterComments, eq(chapterComments.id, reviewItems.commentId))
    .where(eq(reviewItems.status, "pending"))
    .orderBy(asc(reviewItems.submittedAt), asc(reviewItems.id))
    .limit(QUEUE_PAGE);
  const { pending, oldest } = await queueSummary();
  return { rows: rows.map((r) => ({ ...r, author: r.author ?? "" })), pending, oldest };
}

/** How many items wait and since when the oldest (the dashboard's figure). */
export async function queueSummary(): Promise<{ pending: number; oldest: Date | null }> {
  const [row] = await db
    .select({ pending: sql<number>`count(*)::int`, oldest: sql<Date | null>`min(${reviewItems.submittedAt})` })
    .from(reviewItems)
    .where(eq(reviewItems.status, "pending"));
  return { pending: Number(row?.pending ?? 0), oldest: row?.oldest ? new Date(row.oldest) : null };
}

/**
 * Claims the oldest item nobody holds (or the one this reviewer holds already); null when
 * the queue is empty (`FOR UPDATE SKIP LOCKED`: two reviewers never get the same one).
 */
export async function claimNext(actor: SignedInActor, role: AdminRole): Promise<number | null> {
  // Appeals go to a 总编辑 (or 超级管理员): a 审核员's next item is never one.
  return claimNextPending(reviewItems, actor.admin.id, takeableBy(role));
}

/** Who decides appeals and overrules: 总编辑 and 超级管理员. */
function mayDecideAppeals(role: AdminRole): boolean {
  return role === "chief_editor" || role === "super";
}

/** The items a reviewer may claim: appeals only if they decide them (decision 206). */
function takeableBy(role: AdminRole): SQL | undefined {
  return mayDecideAppeals(role) ? undefined : sql`kind <> 'appeal'`;
}

function itemId(value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new DomainError(REVIEW_MESSAGES.notFound, 404);
  return value;
}

/** Claims one item from its page; someone else's live claim or a decided item: a clear message, nothing changes. */
export async function claimItem(actor: SignedInActor, role: AdminRole, id: number): Promise<void> {
  itemId(id);
  if (!(await claimPendingRow(reviewItems, actor.admin.id, id, takeableBy(role)))) await explainRefusal(id, actor.admin.id, role);
}

/** Why an item cannot be claimed or decided by this reviewer: always throws. */
async function explainRefusal(id: number, adminId: string, role: AdminRole, executor: Executor = db): Promise<never> {
  const [item] = await executor
    .select({ kind: reviewItems.kind, status: reviewItems.status, claimedBy: reviewItems.claimedBy, held: sql<boolean>`${heldClaim}`, email: admins.email })
    .from(reviewItems)
    .leftJoin(admins, eq(admins.id, reviewItems.claimedBy))
    .where(eq(reviewItems.id, id));
  if (!item) throw new DomainError(REVIEW_MESSAGES.notFound, 404);
  if (item.kind === "appeal" && !mayDecideAppeals(role)) throw new DomainError(REVIEW_MESSAGES.appealForChief, 403);
  if (item.status !== "pending") throw new DomainError(REVIEW_MESSAGES.alreadyDecided(item.status), 409);
  if (item.claimedBy !== adminId && item.held) throw new DomainError(REVIEW_MESSAGES.claimedByOther(item.email ?? ""), 409);
  throw new DomainError(REVIEW_MESSAGES.notClaimed, 409);
}

export interface ReviewItemView {
  id: number;
  kind: ReviewKind;
  status: "pending" | "approved" | "returned" | "rejected" | "withdrawn";
  reason: string;
  submittedAt: Date;
  claimedByMe: boolean;
  claimedBy: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  note: string | null;
  contentHash: string;
  revision: number;
  work: { id: number; title: string };
  author: string;
  /**
   * `authorNote`: 作者的话, screened with the text (decision 202), so the reviewer sees it
   * too. Null for a work's own item, which has `meta` instead.
   */
  chapter: { id: number; title: string; content: string; authorNote: string; wordCount: number; publishAt: Date | null } | null;
  /**
   * A work's item (decision 214): the title, description, cover and tags submitted, and
   * what readers have now (null for a new work, which readers do not see yet); once
   * approved, what readers had before it (decision 239).
   */
  meta: { submitted: WorkMeta; approved: WorkMeta | null } | null;
  /** A held comment's text (kind `comment`): what the reviewer decides on. */
  comment: string | null;
  /** An appeal's author note and the decision it contests. */
  appeal: { authorNote: string; status: string; note: string | null; decidedBy: string | null } | null;
  /**
   * An edit (decision 213): what readers have now, beside `chapter` holding the edit
   * submitted; null for the other kinds.
   */
  approved: { title: string; content: string; authorNote: string } | null;
}

const appealed = alias(reviewItems, "appealed");

/** One item with the text submitted (the chapter's text, which a change by its author would have withdrawn). */
export async function reviewItemView(actor: SignedInActor, id: number): Promise<ReviewItemView> {
  itemId(id);
  const [row] = await db
    .select({
      id: reviewItems.id,
      kind: reviewItems.kind,
      status: reviewItems.status,
      reason: reviewItems.reason,
      submittedAt: reviewItems.submittedAt,
      ...claimFacts(reviewItems),
      decidedAt: reviewItems.decidedAt,
      note: reviewItems.note,
      authorNote: reviewItems.authorNote,
      contentHash: reviewItems.contentHash,
      revision: reviewItems.revision,
      workId: works.id,
      workTitle: works.title,
      author: profiles.nickname,
      chapterId: chapters.id,
      chapterTitle: chapters.title,
      content: chapters.content,
      chapterAuthorNote: chapters.authorNote,
      wordCount: chapters.wordCount,
      publishAt: chapters.publishAt,
      comment: chapterComments.body,
      editMeta: reviewItems.editMeta,
      approvedOver: reviewItems.approvedOver,
      liveMeta: { title: works.title, description: works.description, coverUrl: works.coverUrl, tags: works.tags },
      newWork: sql<boolean>`${works.reviewListing} is not null`,
      editTitle: reviewItems.editTitle,
      editContent: reviewItems.editContent,
      editAuthorNote: reviewItems.editAuthorNote,
      appealedStatus: appealed.status,
      appealedNote: appealed.note,
      appealedBy: sql<string | null>`(select email from ${admins} a where a.id = ${appealed.decidedBy})`,
    })
    .from(reviewItems)
    .leftJoin(chapters, eq(chapters.id, reviewItems.chapterId))
    .innerJoin(works, eq(works.id, reviewItems.workId))
    .leftJoin(profiles, eq(profiles.id, reviewItems.authorId))
    .leftJoin(chapterComments, eq(chapterComments.id, reviewItems.commentId))
    .leftJoin(appealed, eq(appealed.id, reviewItems.appealOf))
    .where(eq(reviewItems.id, id));
  if (!row) throw new DomainError(REVIEW_MESSAGES.notFound, 404);
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    reason: row.reason,
    submittedAt: row.submittedAt,
    claimedByMe: row.status === "pending" && row.claimedBy === actor.admin.id && Boolean(row.held),
    claimedBy: row.status === "pending" && row.held ? row.claimer : null,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    note: row.note,
    contentHash: row.contentHash,
    revision: row.revision,
    work: { id: row.workId, title: row.workTitle },
    author: row.author ?? "",
    chapter:
      row.chapterId === null
        ? null
        : row.editContent !== null
        ? {
            id: row.chapterId,
            title: row.editTitle ?? row.chapterTitle!,
            content: row.editContent,
            authorNote: row.editAuthorNote ?? "",
            wordCount: countWords(row.editContent),
            publishAt: null,
          }
        : { id: row.chapterId, title: row.chapterTitle!, content: row.content!, authorNote: row.chapterAuthorNote!, wordCount: row.wordCount!, publishAt: row.publishAt },
    approved: row.editContent !== null ? { title: row.chapterTitle!, content: row.content!, authorNote: row.chapterAuthorNote! } : null,
    // Once approved, "what readers had" is what the approval replaced (decision 239): what taking it back restores.
    meta: row.editMeta ? { submitted: row.editMeta, approved: row.approvedOver ? row.approvedOver.meta : row.newWork ? null : row.liveMeta } : null,
    comment: row.comment,
    appeal:
      row.kind === "appeal" && row.appealedStatus
        ? { authorNote: row.authorNote ?? "", status: REVIEW_STATUS_LABELS[row.appealedStatus], note: row.appealedNote, decidedBy: row.appealedBy }
        : null,
  };
}

const ACTIONS: Record<ReviewDecision, { status: "approved" | "returned" | "rejected"; audit: string }> = {
  approve: { status: "approved", audit: "review.approve" },
  return: { status: "returned", audit: "review.return" },
  reject: { status: "rejected", audit: "review.reject" },
};

/** What a decision did, for the queue's notice. */
export type ReviewOutcome =
  | "published"
  | "scheduled"
  | "returned"
  | "rejected"
  | "passed"
  | "sample-returned"
  | "upheld"
  | "comment-shown"
  | "comment-refused"
  | "appeal-withdrawn"
  | "edit-applied"
  | "edit-returned"
  | "edit-rejected"
  | "approval-returned"
  | "approval-rejected"
  | "work-approved"
  | "work-returned"
  | "work-rejected"
  | "work-approval-returned"
  | "work-approval-rejected";

/**
 * 通过, 退回修改 or 拒绝 on a pending item the reviewer holds (a 总编辑 or 超级管理员 may
 * decide one someone else holds, or reverse a 退回修改 or 拒绝 while the chapter is still
 * the unchanged draft it sent back). The work's row is locked first, as the author's edits
 * lock it, so a decision and an edit of the same chapter take turns; the item's row next.
 * An item decided, withdrawn or held by someone else: a clear message, nothing changes.
 * What each decision does depends on the item's kind (decision 206); the author of a
 * chapter hears of it in their inbox, in the same transaction.
 */
export async function decideItem(actor: SignedInActor, role: AdminRole, id: number, decision: ReviewDecision, note: string): Promise<ReviewOutcome> {
  itemId(id);
  const text = note.trim();
  if (decision !== "approve" && !text) throw new DomainError(REVIEW_MESSAGES.noteRequired, 400, "note");
  const chief = mayDecideAppeals(role);
  const decided = await db.transaction(async (tx) => {
    const [peek] = await tx.select({ workId: reviewItems.workId }).from(reviewItems).where(eq(reviewItems.id, id));
    if (!peek) throw new DomainError(REVIEW_MESSAGES.notFound, 404);
    await tx.select({ id: works.id }).from(works).where(eq(works.id, peek.workId)).for("no key update");
    const [item] = await tx
      .select({
        id: reviewItems.id,
        kind: reviewItems.kind,
        status: reviewItems.status,
        chapterId: reviewItems.chapterId,
        workId: reviewItems.workId,
        authorId: reviewItems.authorId,
        commentId: reviewItems.commentId,
        claimedBy: reviewItems.claimedBy,
        held: sql<boolean>`${heldClaim}`,
        contentHash: reviewItems.contentHash,
        revision: reviewItems.revision,
      })
      .from(reviewItems)
      .where(eq(reviewItems.id, id))
      .for("update");
    if (item?.kind === "appeal" && !chief) throw new DomainError(REVIEW_MESSAGES.appealForChief, 403);
    const mine = item && item.status === "pending" && item.claimedBy === actor.admin.id && item.held;
    // 总编辑 overrules: a pending item someone else holds, or a decision on a release or a
    // work's information already made: a 退回修改 / 拒绝 while the chapter (or the work's
    // version waiting) is still what it sent back, unchanged, or an approval while readers
    // still have what it approved (decisions 214, 239).
    const reversal = chief && item && (item.kind === "release" || item.kind === "work") && item.status !== "pending" && item.status !== "withdrawn" && ACTIONS[decision].status !== item.status;
    if (!item || !(mine || (chief && item.status === "pending") || reversal)) return explainRefusal(id, actor.admin.id, role, tx);
    if (!REVIEW_KIND_DECISIONS[item.kind].includes(decision)) throw new DomainError(REVIEW_MESSAGES.decisionNotFor(item.kind), 400, "decision");
    if ((await currentVersion(tx, item)) !== item.contentHash) {
      // An appeal of a chapter its author changed since (a rename) is moot: withdrawn, said so.
      if (item.kind !== "appeal") throw new DomainError(REVIEW_MESSAGES.changed, 409);
      await tx.update(reviewItems).set({ status: "withdrawn" }).where(eq(reviewItems.id, id));
      return "appeal-withdrawn";
    }
    const { status, audit } = ACTIONS[decision];
    // A work's cover files before the decision: those no version uses after it go once it has committed.
    const coversBefore = item.chapterId === null ? await workCovers(tx, item.workId) : null;
    const { outcome, approvedOver } = await apply(tx, item, decision, reversal ? (item.status as "approved" | "returned" | "rejected") : undefined);
    const coversAfter = coversBefore ? await workCovers(tx, item.workId) : null;
    await tx
      .update(reviewItems)
      .set({
        status,
        decidedBy: actor.admin.id,
        decidedAt: new Date(),
        note: text || null,
        claimedBy: item.claimedBy ?? actor.admin.id,
        ...(approvedOver !== undefined ? { approvedOver } : {}),
      })
      .where(eq(reviewItems.id, id));
    await recordAdminAction(tx, actor, {
      action: audit,
      targetType: item.kind === "comment" ? "comment" : item.chapterId === null ? "work" : "chapter",
      targetId: item.kind === "comment" ? item.commentId! : (item.chapterId ?? item.workId),
      before: reversal ? { status: item.status } : undefined,
      after: { item: id, kind: item.kind, status, contentHash: item.contentHash, revision: item.revision, ...(mine ? {} : { overrule: true }) },
      reason: text || null,
    });
    if (item.kind !== "comment") await tellAuthor(tx, item, outcome, text);
    const unusedCovers = coversBefore ? [...coversBefore].filter((c) => !coversAfter!.has(c)) : [];
    return { outcome, chapterId: item.chapterId, unusedCovers };
  });
  if (typeof decided === "string") return decided;
  // An approved edit changed the text readers see: 段评 follow their paragraphs (decision 090).
  if (decided.outcome === "edit-applied" && decided.chapterId !== null) reanchorAfterCommit(decided.chapterId);
  // A cover no version of the work uses any more (an approved cover replaced readers' one, a
  // version taken back or sent back was dropped): its file goes once the change has committed.
  for (const cover of decided.unusedCovers) await deleteStoredImage(cover).catch(() => {});
  return decided.outcome;
}

interface DecidedItem {
  id: number;
  kind: ReviewKind;
  /** Null for a work's own item (kind `work`). */
  chapterId: number | null;
  workId: number;
  authorId: string;
  commentId: number | null;
}

/** The version of what the item holds now: the chapter's title and text, or the comment's text. */
async function currentVersion(tx: Executor, item: DecidedItem): Promise<string | null> {
  if (item.kind === "edit") {
    // An edit holds its own text; a later 保存 withdraws it rather than changing it.
    const [edit] = await tx.select({ title: reviewItems.editTitle, content: reviewItems.editContent }).from(reviewItems).where(eq(reviewItems.id, item.id));
    return edit?.title != null && edit.content != null ? reviewedVersionHash(edit.title, edit.content) : null;
  }
  if (item.kind === "comment") {
    const [comment] = await tx.select({ body: chapterComments.body }).from(chapterComments).where(eq(chapterComments.id, item.commentId!));
    return comment ? heldCommentHash(comment.body) : null;
  }
  if (item.chapterId === null) {
    // A work's item holds its own metadata; a later save withdraws it (decision 214). An
    // appeal stands for the version sent back, which must still be the one waiting (decision 239).
    if (item.kind === "appeal") {
      const [work] = await tx.select().from(works).where(eq(works.id, item.workId));
      const waiting = work ? waitingMeta(work) : null;
      return waiting ? workMetaHash(waiting) : null;
    }
    const [own] = await tx.select({ meta: reviewItems.editMeta }).from(reviewItems).where(eq(reviewItems.id, item.id));
    return own?.meta ? workMetaHash(own.meta) : null;
  }
  // The author's edits withdraw a release (and move a sample's version); this holds the line
  // should anything else change the text.
  const [chapter] = await tx.select({ title: chapters.title, content: chapters.content }).from(chapters).where(eq(chapters.id, item.chapterId));
  return chapter ? reviewedVersionHash(chapter.title, chapter.content) : null;
}

/** What the decision does to the chapter, the comment or the work; for a work's approval, what readers had before. */
async function apply(
  tx: Executor,
  item: DecidedItem,
  decision: ReviewDecision,
  /** The decision a 总编辑 reverses. */
  reversal: "approved" | "returned" | "rejected" | undefined,
): Promise<{ outcome: ReviewOutcome; approvedOver?: { meta: WorkMeta | null } }> {
  if (item.chapterId === null) return applyToWork(tx, item, decision, reversal);
  return { outcome: await applyToChapter(tx, { ...item, chapterId: item.chapterId }, decision, reversal) };
}

/**
 * A work's title, description, cover and tags (decisions 214, 239): readers keep what they
 * have (a new work stays private) unless it passes; an appeal granted passes it; a 总编辑
 * taking an approval back gives readers what they had before it (a new work goes private).
 */
async function applyToWork(
  tx: Executor,
  item: DecidedItem,
  decision: ReviewDecision,
  reversal: "approved" | "returned" | "rejected" | undefined,
): Promise<{ outcome: ReviewOutcome; approvedOver?: { meta: WorkMeta | null } }> {
  const changed = () => new DomainError(REVIEW_MESSAGES.workChanged, 409);
  const [own] = await tx.select({ meta: reviewItems.editMeta, approvedOver: reviewItems.approvedOver }).from(reviewItems).where(eq(reviewItems.id, item.id));
  if (!own?.meta) throw changed();
  if (decision === "approve") {
    const applied = await applyWorkMeta(tx, item.workId, own.meta);
    if (!applied) throw changed();
    // A 总编辑 reversing a 退回修改 may find the same version resubmitted, or appealed: moot now.
    await tx
      .update(reviewItems)
      .set({ status: "withdrawn" })
      .where(and(eq(reviewItems.workId, item.workId), sql`${reviewItems.chapterId} is null`, eq(reviewItems.status, "pending"), sql`${reviewItems.id} <> ${item.id}`));
    // A granted appeal is not itself taken back (as a chapter's): what readers had is kept on work items.
    return { outcome: "work-approved", approvedOver: item.kind === "work" ? applied.approvedOver : undefined };
  }
  if (item.kind === "appeal") return { outcome: "upheld" };
  if (reversal === "approved") {
    const taken = await takeBackWorkApproval(tx, item.workId, own.meta, own.approvedOver);
    if (taken === "unkept") throw new DomainError(REVIEW_MESSAGES.takeBackUnkept, 409);
    if (!taken) throw changed();
    return { outcome: decision === "return" ? "work-approval-returned" : "work-approval-rejected" };
  }
  // A reversal between 退回修改 and 拒绝 needs the version it sent back still waiting.
  if (reversal && !(await stillWaiting(tx, item.workId, own.meta))) throw changed();
  return { outcome: decision === "return" ? "work-returned" : "work-rejected" };
}

async function applyToChapter(
  tx: Executor,
  item: DecidedItem & { chapterId: number },
  decision: ReviewDecision,
  reversal: "approved" | "returned" | "rejected" | undefined,
): Promise<ReviewOutcome> {
  const changed = () => new DomainError(REVIEW_MESSAGES.changed, 409);
  const release = async (from: "review" | "draft") => {
    const state = await releaseReviewed(tx, item.workId, item.chapterId, from);
    if (!state) throw changed();
    return state;
  };
  switch (item.kind) {
    case "release":
      if (decision === "approve") return release(reversal ? "draft" : "review");
      if (reversal === "approved") {
        // The approval taken back: readers lose the chapter until it is out again.
        if (!(await takeBackApproved(tx, item.workId, item.chapterId))) throw changed();
        return decision === "return" ? "approval-returned" : "approval-rejected";
      }
      // A reversal between 退回修改 and 拒绝 finds the chapter a draft already.
      if (reversal ? !(await isDraft(tx, item.chapterId)) : !(await returnToAuthor(tx, item.workId, item.chapterId))) throw changed();
      return decision === "return" ? "returned" : "rejected";
    case "sample":
      // The chapter is out already and stays out: 要求作者修改 tells its author why.
      return decision === "approve" ? "passed" : "sample-returned";
    case "appeal":
      // 申诉成立: the chapter sent back goes out, as if the first decision had been 通过.
      if (decision === "approve") return release("draft");
      return "upheld";
    case "comment":
      if (decision === "approve" && !(await releaseHeldComment(tx, item.commentId!))) throw changed();
      return decision === "approve" ? "comment-shown" : "comment-refused";
    case "edit":
      // Readers keep the approved text unless the edit passes (decision 213).
      if (decision === "approve" && !(await applyEdit(tx, item.id))) throw changed();
      return decision === "approve" ? "edit-applied" : decision === "return" ? "edit-returned" : "edit-rejected";
    case "work":
      throw changed();
  }
}

const OUTCOME_TEXT: Record<Exclude<ReviewOutcome, "comment-shown" | "comment-refused" | "appeal-withdrawn">, string> = {
  published: "已通过审核并发布",
  scheduled: "已通过审核，将按定时发布",
  returned: "被退回修改，请修改后重新发布",
  rejected: "未通过审核",
  passed: "跟踪审读无问题",
  "sample-returned": "在跟踪审读中发现问题，请尽快修改",
  upheld: "的申诉已被驳回，维持原审核结果",
  "edit-applied": "的修改已通过审核，读者现在看到修改后的版本",
  "edit-returned": "的修改被退回，请修改后重新保存；读者仍看到修改前的版本",
  "edit-rejected": "的修改未通过审核，读者仍看到修改前的版本",
  "approval-returned": "此前的审核通过已被总编辑撤销，读者暂时看不到该章节，请修改后重新发布",
  "approval-rejected": "此前的审核通过已被总编辑撤销，改为未通过审核，读者看不到该章节",
  "work-approved": "的书名、简介、封面和标签已通过审核，读者现在看到它们",
  "work-returned": "的书名、简介、封面或标签被退回修改，请在作品设置中修改后保存",
  "work-rejected": "的书名、简介、封面或标签未通过审核，请在作品设置中修改后保存",
  "work-approval-returned": "的书名、简介、封面和标签此前的审核通过已被总编辑撤销，读者暂时看不到这些信息，请在作品设置中修改后保存",
  "work-approval-rejected": "的书名、简介、封面和标签此前的审核通过已被总编辑撤销，改为未通过审核，读者看不到这些信息",
};

/** The author's inbox line about a decision on their chapter, with the reviewer's reason. */
async function tellAuthor(tx: Executor, item: DecidedItem, outcome: ReviewOutcome, reason: string): Promise<void> {
  if (outcome === "comment-shown" || outcome === "comment-refused" || outcome === "appeal-withdrawn") return;
  const appeal = item.kind === "appeal" && outcome !== "upheld" ? "（申诉成立）" : "";
  const because = reason ? `。原因：${reason}` : "";
  if (item.chapterId === null) {
    // Named by what the author submitted: a new work's readers-facing title may be the item's own.
    const [own] = await tx.select({ meta: reviewItems.editMeta }).from(reviewItems).where(eq(reviewItems.id, item.id));
    await notifyReviewOutcome(tx, { userId: item.authorId, workId: item.workId, body: `作品《${own?.meta?.title ?? ""}》${OUTCOME_TEXT[outcome]}${appeal}${because}` });
    return;
  }
  const [chapter] = await tx.select({ title: chapters.title }).from(chapters).where(eq(chapters.id, item.chapterId));
  const body = `章节「${chapter?.title ?? ""}」${OUTCOME_TEXT[outcome]}${appeal}${because}`;
  await notifyReviewOutcome(tx, { userId: item.authorId, workId: item.workId, body });
}

async function isDraft(tx: Executor, chapterId: number): Promise<boolean> {
  const [row] = await tx.select({ state: chapters.state }).from(chapters).where(eq(chapters.id, chapterId));
  return row?.state === "draft";
}

/** The review policy (/admin/settings/review, 总编辑 and 超级管理员), audited as `settings.review`. */
export async function saveReviewPolicy(actor: SignedInActor, policy: ReviewPolicy): Promise<void> {
  await saveSiteSettings(actor, "settings.review", {
    review_new_authors: policy.newAuthors ? "on" : "off",
    review_trusted_after: String(policy.trustedAfter),
    review_ai_works: policy.aiWorks ? "on" : "off",
    review_sample_percent: String(policy.samplePercent),
    review_unsigned_authors: policy.unsignedAuthors ? "on" : "off",
  });
}
