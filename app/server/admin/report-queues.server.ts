import { asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { db, type Transaction } from "~/db/client.server";
import { bookReviewReports, bookReviews, chapterComments, chapters, commentReports, profiles, works } from "~/db/schema";
import { pageWithin } from "~/utils/pagination";
import { DomainError } from "~/server/platform/errors.server";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";

/**
 * The back office's report queues: 评论举报 (docs/product.md#comments, decision 138) and 书评举报
 * (docs/product.md#book-reviews, decision 211). Each lists the reported items 20 a page with
 * every reporter and reason, the longest-waiting first (with resolved reports too: the most
 * recently reported first), and decides on one item (hide, restore, delete or dismiss) in
 * one transaction that resolves its open reports and writes its audit row. What the two
 * share is here once; what differs (the item's own columns and joins, a held comment, a
 * reply's count) stays with each queue.
 */

const REPORTS_PAGE_SIZE = 20;

export type ReportDecision = "hide" | "restore" | "delete" | "dismiss";

/** A reports table's columns: one row per reporter of one item. */
interface ReportsOf {
  table: PgTable;
  /** The reported item's id. */
  item: PgColumn;
  userId: PgColumn;
  reason: PgColumn;
  createdAt: PgColumn;
  resolvedAt: PgColumn;
}

const COMMENT_REPORTS: ReportsOf = {
  table: commentReports,
  item: commentReports.commentId,
  userId: commentReports.userId,
  reason: commentReports.reason,
  createdAt: commentReports.createdAt,
  resolvedAt: commentReports.resolvedAt,
};

const REVIEW_REPORTS: ReportsOf = {
  table: bookReviewReports,
  item: bookReviewReports.reviewId,
  userId: bookReviewReports.userId,
  reason: bookReviewReports.reason,
  createdAt: bookReviewReports.createdAt,
  resolvedAt: bookReviewReports.resolvedAt,
};

/** The reported items as a subquery: each item's id, its first and its last report. */
function reportedItems(q: ReportsOf, open: boolean) {
  return db
    .select({
      itemId: sql<number>`${q.item}`.as("item_id"),
      first: sql<Date>`min(${q.createdAt})`.as("first"),
      last: sql<Date>`max(${q.createdAt})`.as("last"),
    })
    .from(q.table)
    .groupBy(q.item)
    .having(open ? sql`count(*) filter (where ${q.resolvedAt} is null) > 0` : sql`true`)
    .as("g");
}

type ReportedItems = ReturnType<typeof reportedItems>;

/** One report as the queue shows it. */
interface Report {
  itemId: number;
  reason: string;
  createdAt: Date;
  resolvedAt: Date | null;
  reporter: string;
  reporterEmail: string | null;
}

/**
 * One page of a queue. `readItems` reads the page's items, joined to `reported` by their id,
 * in `order` (then by id), `limit` after `offset`; each comes back with its reports, oldest
 * first. `open`: only items with unresolved reports.
 */
async function queuePage<Item extends { id: number }>(
  q: ReportsOf,
  { open, page }: { open: boolean; page: number },
  readItems: (reported: ReportedItems, slice: { order: SQL; limit: number; offset: number }) => Promise<Item[]>,
) {
  const reported = reportedItems(q, open);
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(reported);
  const { page: current, pageCount } = pageWithin(page, total, REPORTS_PAGE_SIZE);
  const items = await readItems(reported, {
    order: open ? asc(reported.first) : desc(reported.last),
    limit: REPORTS_PAGE_SIZE,
    offset: (current - 1) * REPORTS_PAGE_SIZE,
  });
  const ids = items.map((item) => item.id);
  const reports: Report[] = ids.length
    ? ((await db
        .select({
          itemId: q.item,
          reason: q.reason,
          createdAt: q.createdAt,
          resolvedAt: q.resolvedAt,
          reporter: profiles.nickname,
          reporterEmail: profiles.email,
        })
        .from(q.table)
        .innerJoin(profiles, eq(profiles.id, q.userId))
        .where(inArray(q.item, ids))
        .orderBy(asc(q.createdAt))) as Report[])
    : [];
  return { items: items.map((item) => ({ ...item, reports: reports.filter((r) => r.itemId === item.id) })), total, page: current, pageCount };
}

/**
 * The part of a decision both queues share, inside its transaction: hide or restore the item
 * (`setHidden` writes its hidden time) unless it already is so, and resolve its open reports.
 * Returns the audit row's `after`. Deleting is each queue's own (the reports go with the item).
 */
async function settleReports(
  tx: Transaction,
  q: ReportsOf,
  itemId: number,
  decision: Exclude<ReportDecision, "delete">,
  hidden: boolean,
  setHidden: (at: Date | null) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  if (decision === "hide" && !hidden) await setHidden(new Date());
  if (decision === "restore" && hidden) await setHidden(null);
  await tx.execute(sql`update ${q.table} set ${sql.identifier(q.resolvedAt.name)} = now() where ${q.item} = ${itemId} and ${q.resolvedAt} is null`);
  return { hidden: decision === "hide" ? true : decision === "restore" ? false : hidden };
}

const isRowId = (id: number) => Number.isSafeInteger(id) && id > 0;

/**
 * 评论举报: each reported comment with its text, writer, work and chapter, and every report.
 */
export async function listReportedComments(options: { open: boolean; page: number }) {
  return queuePage(COMMENT_REPORTS, options, (reported, { order, limit, offset }) =>
    db
      .select({
        id: chapterComments.id,
        body: chapterComments.body,
        hiddenAt: chapterComments.hiddenAt,
        /** Held by a 审核 word (decision 206): shown only through the review queue's decision. */
        heldAt: chapterComments.heldAt,
        createdAt: chapterComments.createdAt,
        userId: chapterComments.userId,
        writer: profiles.nickname,
        writerEmail: profiles.email,
        workId: works.id,
        workTitle: works.title,
        chapterTitle: chapters.title,
      })
      .from(reported)
      .innerJoin(chapterComments, eq(chapterComments.id, reported.itemId))
      .innerJoin(profiles, eq(profiles.id, chapterComments.userId))
      .innerJoin(chapters, eq(chapters.id, chapterComments.chapterId))
      .innerJoin(works, eq(works.id, chapters.workId))
      .orderBy(order, asc(chapterComments.id))
      .limit(limit)
      .offset(offset),
  );
}

const COMMENT_MISSING = "评论不存在";
const HELD_COMMENT_RESTORE = "该评论含待审词语，只能在审核队列中通过后显示，本次操作未做任何更改";

/**
 * Decides on a reported comment: hide it (its writer and the work's author still see it,
 * marked), restore it, delete it (its replies go with it), or dismiss the reports leaving it
 * as it is.
 */
export async function decideReportedComment(actor: AdminActor, commentId: number, decision: ReportDecision): Promise<void> {
  if (!isRowId(commentId)) throw new DomainError(COMMENT_MISSING, 404);
  await db.transaction(async (tx) => {
    const [comment] = await tx
      .select({
        id: chapterComments.id,
        body: chapterComments.body,
        userId: chapterComments.userId,
        hiddenAt: chapterComments.hiddenAt,
        heldAt: chapterComments.heldAt,
        parentId: chapterComments.parentId,
      })
      .from(chapterComments)
      .where(eq(chapterComments.id, commentId))
      .for("update");
    if (!comment) throw new DomainError(COMMENT_MISSING, 404);
    // A comment held by a 审核 word is shown only by the review queue's 通过 (decision 206).
    if (decision === "restore" && comment.heldAt) throw new DomainError(HELD_COMMENT_RESTORE, 409);
    const before = { hidden: comment.hiddenAt !== null, body: comment.body, userId: comment.userId };
    let after: Record<string, unknown>;
    if (decision === "delete") {
      await tx.delete(chapterComments).where(eq(chapterComments.id, commentId));
      // A deleted reply no longer counts on its parent (postComment keeps the count).
      if (comment.parentId !== null) {
        await tx
          .update(chapterComments)
          .set({ replyCount: sql`greatest(${chapterComments.replyCount} - 1, 0)` })
          .where(eq(chapterComments.id, comment.parentId));
      }
      after = { deleted: true };
    } else {
      after = await settleReports(tx, COMMENT_REPORTS, commentId, decision, before.hidden, (at) =>
        tx.update(chapterComments).set({ hiddenAt: at }).where(eq(chapterComments.id, commentId)),
      );
    }
    await recordAdminAction(tx, actor, { action: `comment.${decision}`, targetType: "comment", targetId: commentId, before, after });
  });
}

/** 书评举报: each reported review with its rating, text, writer and work, and every report. */
export async function listReportedReviews(options: { open: boolean; page: number }) {
  return queuePage(REVIEW_REPORTS, options, (reported, { order, limit, offset }) =>
    db
      .select({
        id: bookReviews.id,
        rating: bookReviews.rating,
        body: bookReviews.body,
        hiddenAt: bookReviews.hiddenAt,
        createdAt: bookReviews.createdAt,
        userId: bookReviews.userId,
        writer: profiles.nickname,
        writerEmail: profiles.email,
        workId: works.id,
        workTitle: works.title,
      })
      .from(reported)
      .innerJoin(bookReviews, eq(bookReviews.id, reported.itemId))
      .innerJoin(profiles, eq(profiles.id, bookReviews.userId))
      .innerJoin(works, eq(works.id, bookReviews.workId))
      .orderBy(order, asc(bookReviews.id))
      .limit(limit)
      .offset(offset),
  );
}

const REVIEW_MISSING = "书评不存在";

/**
 * Decides on a reported review: hide it (its writer still sees it, marked; it leaves the
 * average), restore it, delete it, or dismiss the reports.
 */
export async function decideReportedReview(actor: AdminActor, reviewId: number, decision: ReportDecision): Promise<void> {
  if (!isRowId(reviewId)) throw new DomainError(REVIEW_MISSING, 404);
  await db.transaction(async (tx) => {
    const [review] = await tx
      .select({ id: bookReviews.id, body: bookReviews.body, rating: bookReviews.rating, userId: bookReviews.userId, hiddenAt: bookReviews.hiddenAt })
      .from(bookReviews)
      .where(eq(bookReviews.id, reviewId))
      .for("update");
    if (!review) throw new DomainError(REVIEW_MISSING, 404);
    const before = { hidden: review.hiddenAt !== null, rating: review.rating, body: review.body, userId: review.userId };
    let after: Record<string, unknown>;
    if (decision === "delete") {
      await tx.delete(bookReviews).where(eq(bookReviews.id, reviewId));
      after = { deleted: true };
    } else {
      after = await settleReports(tx, REVIEW_REPORTS, reviewId, decision, before.hidden, (at) =>
        tx.update(bookReviews).set({ hiddenAt: at }).where(eq(bookReviews.id, reviewId)),
      );
    }
    await recordAdminAction(tx, actor, { action: `book-review.${decision}`, targetType: "book_review", targetId: reviewId, before, after });
  });
}
