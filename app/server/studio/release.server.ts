import { and, eq, inArray } from "drizzle-orm";
import { type Executor } from "~/db/client.server";
import { chapters } from "~/db/schema";
import { announceChaptersPublished } from "~/server/platform/events.server";
import { priceNewlyPublished } from "~/server/economy/chapter-sales.server";
import { enqueueChapterNotifications } from "~/server/community/notifications.server";
import { enqueueSummaryJobs } from "./summary-jobs.server";
import { checkChapters } from "./continuity.server";
import { refreshWorkCounts } from "~/server/catalog/works.server";

/**
 * Publishing chapters (docs/product.md#author-studio, decision 081). Whatever publishes a
 * chapter (the editor's 立即发布, the manager, the old add-chapter page, or a schedule
 * coming due) turns its state to `published` in a conditional UPDATE and runs
 * `onChaptersPublished` in the same transaction, so each chapter's "on publish" effects
 * happen once, on commit, or not at all.
 */

/**
 * The "on publish" effects for chapters just turned published, inside their transaction:
 * the work's counts and updated_at (whose trigger tells open pages and caches), the
 * chapters' prices when the work is sold by chapter (fixed from now on, docs/product.md D13), one
 * `chapter-published` event per chapter, delivered on commit, and one job telling the
 * work's followers, delivered in the background (decision 115), and, when the work has
 * AI summaries on, one summary job per chapter (docs/decisions/128); and the continuity
 * checks of the chapters (decision 247), with the reader numbers they now have.
 */
export async function onChaptersPublished(tx: Executor, workId: number, chapterIds: number[]): Promise<void> {
  if (chapterIds.length === 0) return;
  // A notice chapter (请假条, 作品相关) is free, tells no follower and has no summary (decision 203).
  const numbered = (
    await tx
      .select({ id: chapters.id })
      .from(chapters)
      .where(and(inArray(chapters.id, chapterIds), eq(chapters.kind, "chapter")))
  ).map((r) => r.id);
  await priceNewlyPublished(tx, workId, numbered);
  await refreshWorkCounts(tx, workId);
  await announceChaptersPublished(tx, workId, numbered);
  await enqueueChapterNotifications(tx, workId, numbered);
  await enqueueSummaryJobs(tx, workId, numbered);
  await checkChapters(tx, workId, numbered);
}
