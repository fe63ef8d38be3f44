import { and, eq, inArray, lte, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";
import { announceChaptersPublished } from "~/server/platform/events.server";
import { priceNewlyPublished } from "~/server/economy/chapter-sales.server";
import { chaptersReleased } from "~/server/platform/metrics.server";
import { enqueueChapterNotifications } from "~/server/community/notifications.server";
import { enqueueSummaryJobs } from "./summary-jobs.server";
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
 * chapters' prices when the work is sold by chapter (fixed from now on, D13), one
 * `chapter-published` event per chapter, delivered on commit, and one job telling the
 * work's followers, delivered in the background (decision 115), and, when the work has
 * AI summaries on, one summary job per chapter (docs/decisions/128).
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
}

/** Works with chapters due now, a batch at a time (the partial index chapters_due_idx finds them). */
async function dueWorks(limit: number): Promise<number[]> {
  const rows = rowsOf<{ work_id: string | number }>(
    await db.execute(sql`
      select distinct work_id from ${chapters}
      where state = 'scheduled' and publish_at <= now()
      limit ${limit}`),
  );
  return rows.map((r) => Number(r.work_id));
}

/**
 * Publishes one work's due chapters. The work's row is claimed with `FOR NO KEY UPDATE SKIP
 * LOCKED`, the same lock the studio's edits take first, so another process releasing it
 * (or an author editing it) is skipped rather than waited for, and never deadlocked; the
 * UPDATE only takes chapters still `scheduled`, so none is published twice.
 */
async function releaseWork(workId: number): Promise<number> {
  return db.transaction(async (tx) => {
    const [claimed] = await tx.select({ id: works.id }).from(works).where(eq(works.id, workId)).for("no key update", { skipLocked: true });
    if (!claimed) return 0;
    const released = await tx
      .update(chapters)
      .set({ state: "published", updatedAt: new Date() })
      .where(and(eq(chapters.workId, workId), eq(chapters.state, "scheduled"), lte(chapters.publishAt, sql`now()`)))
      .returning({ id: chapters.id });
    await onChaptersPublished(
      tx,
      workId,
      released.map((r) => r.id),
    );
    return released.length;
  });
}

/**
 * Publishes every chapter whose time has come; returns how many. Any number of processes
 * may run it at once (each work is released by whichever claims it first).
 */
export async function releaseDueChapters(batch = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await dueWorks(batch);
    if (ids.length === 0) return total;
    let released = 0;
    for (const id of ids) {
      const n = await releaseWork(id);
      // Counted after the commit: across processes the counters add up to the chapters released.
      if (n > 0) chaptersReleased.inc(n);
      released += n;
    }
    total += released;
    // Every due work was held by someone else: they will finish it.
    if (released === 0 || ids.length < batch) return total;
  }
}
