import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { bookReviewReports, bookReviews, profiles, works } from "~/db/schema";
import { pageWithin } from "~/utils/pagination";
import { DomainError } from "~/server/platform/errors.server";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";

/**
 * 书评举报 (docs/product.md#book-reviews, decision 211): reported reviews with every reporter
 * and reason, the longest-waiting first; hide, restore, delete or dismiss, each resolving
 * the review's open reports with its audit row, as the comment report queue does.
 */

const REPORTS_PAGE_SIZE = 20;
const MISSING = "书评不存在";

export async function listReportedReviews({ open, page }: { open: boolean; page: number }) {
  const having = open ? sql`count(*) filter (where ${bookReviewReports.resolvedAt} is null) > 0` : sql`true`;
  const grouped = db
    .select({
      reviewId: bookReviewReports.reviewId,
      first: sql<Date>`min(${bookReviewReports.createdAt})`.as("first"),
      last: sql<Date>`max(${bookReviewReports.createdAt})`.as("last"),
    })
    .from(bookReviewReports)
    .groupBy(bookReviewReports.reviewId)
    .having(having)
    .as("g");
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(grouped);
  const { page: current, pageCount } = pageWithin(page, total, REPORTS_PAGE_SIZE);
  const rows = await db
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
    .from(grouped)
    .innerJoin(bookReviews, eq(bookReviews.id, grouped.reviewId))
    .innerJoin(profiles, eq(profiles.id, bookReviews.userId))
    .innerJoin(works, eq(works.id, bookReviews.workId))
    .orderBy(open ? asc(grouped.first) : desc(grouped.last), asc(bookReviews.id))
    .limit(REPORTS_PAGE_SIZE)
    .offset((current - 1) * REPORTS_PAGE_SIZE);
  const ids = rows.map((r) => r.id);
  const reports = ids.length
    ? await db
        .select({
          reviewId: bookReviewReports.reviewId,
          reason: bookReviewReports.reason,
          createdAt: bookReviewReports.createdAt,
          resolvedAt: bookReviewReports.resolvedAt,
          reporter: profiles.nickname,
          reporterEmail: profiles.email,
        })
        .from(bookReviewReports)
        .innerJoin(profiles, eq(profiles.id, bookReviewReports.userId))
        .where(inArray(bookReviewReports.reviewId, ids))
        .orderBy(asc(bookReviewReports.createdAt))
    : [];
  return { reviews: rows.map((r) => ({ ...r, reports: reports.filter((x) => x.reviewId === r.id) })), total, page: current, pageCount };
}

export type ReviewReportDecision = "hide" | "restore" | "delete" | "dismiss";

/**
 * Decides on a reported review, in one transaction with its audit row: hide it (its writer
 * still sees it, marked; it leaves the average), restore it, delete it, or dismiss the
 * reports. Every open report of the review is resolved.
 */
export async function decideReportedReview(actor: AdminActor, reviewId: number, decision: ReviewReportDecision): Promise<void> {
  if (!Number.isSafeInteger(reviewId) || reviewId <= 0) throw new DomainError(MISSING, 404);
  await db.transaction(async (tx) => {
    const [review] = await tx
      .select({ id: bookReviews.id, body: bookReviews.body, rating: bookReviews.rating, userId: bookReviews.userId, hiddenAt: bookReviews.hiddenAt })
      .from(bookReviews)
      .where(eq(bookReviews.id, reviewId))
      .for("update");
    if (!review) throw new DomainError(MISSING, 404);
    const before = { hidden: review.hiddenAt !== null, rating: review.rating, body: review.body, userId: review.userId };
    let after: Record<string, unknown>;
    if (decision === "delete") {
      await tx.delete(bookReviews).where(eq(bookReviews.id, reviewId));
      after = { deleted: true };
    } else {
      if (decision === "hide" && !review.hiddenAt) await tx.update(bookReviews).set({ hiddenAt: new Date() }).where(eq(bookReviews.id, reviewId));
      if (decision === "restore" && review.hiddenAt) await tx.update(bookReviews).set({ hiddenAt: null }).where(eq(bookReviews.id, reviewId));
      await tx
        .update(bookReviewReports)
        .set({ resolvedAt: new Date() })
        .where(and(eq(bookReviewReports.reviewId, reviewId), isNull(bookReviewReports.resolvedAt)));
      after = { hidden: decision === "hide" ? true : decision === "restore" ? false : before.hidden };
    }
    await recordAdminAction(tx, actor, { action: `book-review.${decision}`, targetType: "book_review", targetId: reviewId, before, after });
  });
}
