import { and, eq, lte, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";
import { chaptersReleased } from "~/server/platform/metrics.server";
import { readyScreening } from "~/server/screening/screening.server";
import { onChaptersPublished } from "./release.server";
import { holdDueChapters } from "./review.server";

/**
 * 定时 chapters coming due (decision 081): the release poller's work, any number of
 * processes at once. Each due chapter passes the review policy and the word list again
 * (decision 214) — held ones turn 审核中 — and the rest go out with their "on publish"
 * effects (onChaptersPublished), in one transaction per work.
 */

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
    const [claimed] = await tx.select().from(works).where(eq(works.id, workId)).for("no key update", { skipLocked: true });
    if (!claimed) return 0;
    const due = and(eq(chapters.workId, workId), eq(chapters.state, "scheduled"), lte(chapters.publishAt, sql`now()`));
    // Asked again now: the policy or the word list may have changed since it was scheduled (decision 214).
    const held = await holdDueChapters(tx, claimed, (await tx.select({ id: chapters.id }).from(chapters).where(due)).map((r) => r.id));
    const released = await tx
      .update(chapters)
      .set({ state: "published", updatedAt: new Date() })
      .where(due)
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
  // Due chapters are screened inside each work's transaction: the matcher first.
  await readyScreening();
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
