import { createHash } from "node:crypto";
import { notifyAuthorFollowers } from "~/server/community/author-follows.server";
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { reviewItems, works, type WorkMeta } from "~/db/schema";
import type { Work } from "~/server/catalog/works.server";
import type { WorkReviewFacts } from "~/types/studio";
import { HELD_BY_SCREENING, reviewReason } from "./review.server";

/**
 * Review of a work's title, description, cover and tags (docs/product.md#review, decision
 * 214). Whoever's chapter releases wait for a reviewer (先审名单, 新作者, AI 标注), and anyone
 * whose title, description or tags hold a 审核 word, has these wait too:
 *
 * - a new work is private until its item is approved, its chosen listing (visibility and
 *   price) kept in `works.review_listing` and put on by the approval: readers find nothing of
 *   it (every reader query already leaves out private works);
 * - a change of an approved work's title, description, cover or tags waits in
 *   `works.pending_meta` while readers keep the approved ones; the approval applies it.
 *
 * One pending item per work (kind `work`, no chapter) holds the exact metadata submitted
 * (`review_items.edit_meta`); a later save withdraws it and submits the new one.
 */

/** The version a reviewer decides on: the SHA-256 of the metadata submitted. */
export function workMetaHash(meta: WorkMeta): string {
  return createHash("sha256").update(JSON.stringify([meta.title, meta.description, meta.coverUrl, meta.tags]), "utf8").digest("hex");
}

function metaOf(work: Pick<Work, "title" | "description" | "coverUrl" | "tags">): WorkMeta {
  return { title: work.title, description: work.description, coverUrl: work.coverUrl, tags: [...work.tags] };
}

/** What the author sees as their work's metadata: the version waiting, else the approved one. */
export function authorsMeta(work: Work): WorkMeta {
  return work.pendingMeta ?? metaOf(work);
}

function sameMeta(a: WorkMeta, b: WorkMeta): boolean {
  return workMetaHash(a) === workMetaHash(b);
}

/** Why this work's metadata must wait for a reviewer, or null when it may go out at once. */
async function metaReason(tx: Executor, work: Work, screenedHeld: boolean, releasing: SQL = sql`false`): Promise<string | null> {
  if (screenedHeld) return HELD_BY_SCREENING;
  return reviewReason(tx, work, "none", releasing);
}

async function withdrawWorkItem(tx: Executor, workId: number): Promise<void> {
  await tx
    .update(reviewItems)
    .set({ status: "withdrawn" })
    .where(and(eq(reviewItems.workId, workId), isNull(reviewItems.chapterId), eq(reviewItems.status, "pending")));
}

async function submit(tx: Executor, work: Work, meta: WorkMeta, reason: string): Promise<void> {
  await withdrawWorkItem(tx, work.id);
  await tx.insert(reviewItems).values({
    kind: "work",
    chapterId: null,
    workId: work.id,
    authorId: work.userId,
    contentHash: workMetaHash(meta),
    revision: 0,
    reason,
    editMeta: meta,
  });
}

/**
 * A new work, in the transaction that created it: when its metadata must wait, the work
 * turns private with its chosen listing kept, and its item joins the queue.
 */
export async function settleNewWorkListing(tx: Executor, workId: number, screenedHeld: boolean): Promise<void> {
  const [work] = await tx.select().from(works).where(eq(works.id, workId));
  if (!work) return;
  // The work's own chapters, released in the same transaction, do not count towards trust (as in settleNewWork).
  const reason = await metaReason(tx, work, screenedHeld, sql`c.work_id = ${workId}`);
  if (!reason) return;
  await tx
    .update(works)
    .set({ reviewListing: { visibility: work.visibility, price: work.price }, visibility: "private", price: 0 })
    .where(eq(works.id, workId));
  await submit(tx, work, metaOf(work), reason);
}

/**
 * What a save of the work's settings does with the metadata `next` (under the work's row
 * lock, in the save's transaction): the columns to write. A work waiting for its first
 * approval takes the new metadata at once (readers see none of it) and resubmits it, or goes
 * on its listing when nothing holds it any more; an approved work keeps its metadata while
 * a held change waits in `pending_meta`.
 */
export async function settleWorkMeta(
  tx: Executor,
  work: Work,
  next: WorkMeta,
  screenedHeld: boolean,
): Promise<Partial<Pick<Work, "title" | "description" | "coverUrl" | "tags" | "pendingMeta" | "reviewListing" | "visibility" | "price">>> {
  const reason = await metaReason(tx, work, screenedHeld);
  if (work.reviewListing) {
    if (reason) {
      await submit(tx, work, next, reason);
      return { ...next };
    }
    await withdrawWorkItem(tx, work.id);
    return { ...next, ...work.reviewListing, reviewListing: null };
  }
  if (reason && !sameMeta(next, metaOf(work))) {
    // Resubmitting the very version waiting keeps its place in the queue.
    if (!work.pendingMeta || !sameMeta(next, work.pendingMeta) || !(await hasPendingItem(tx, work.id))) await submit(tx, work, next, reason);
    return { pendingMeta: next };
  }
  await withdrawWorkItem(tx, work.id);
  return { ...next, pendingMeta: null };
}

async function hasPendingItem(tx: Executor, workId: number): Promise<boolean> {
  const [row] = await tx
    .select({ id: reviewItems.id })
    .from(reviewItems)
    .where(and(eq(reviewItems.workId, workId), isNull(reviewItems.chapterId), eq(reviewItems.status, "pending")));
  return Boolean(row);
}

/**
 * 通过 of a work's item: readers get the metadata submitted, and a new work its listing.
 * Returns the cover no longer used (removed by the caller after the commit), or false
 * when the work changed since (the item is then stale: a later save withdrew it).
 */
export async function applyWorkMeta(tx: Executor, workId: number, meta: WorkMeta): Promise<{ oldCover: string | null } | false> {
  const [work] = await tx.select().from(works).where(eq(works.id, workId));
  if (!work) return false;
  const live = metaOf(work);
  const waiting = work.reviewListing ? live : work.pendingMeta;
  if (!waiting || !sameMeta(waiting, meta)) return false;
  await tx
    .update(works)
    .set({ ...meta, pendingMeta: null, ...(work.reviewListing ? { ...work.reviewListing, reviewListing: null } : {}), updatedAt: new Date() })
    .where(eq(works.id, workId));
  // A held new work goes on its listing: followers hear of it if readers now see it (decision 230).
  if (work.reviewListing && work.reviewListing.visibility !== "private") await notifyAuthorFollowers(tx, workId);
  return { oldCover: live.coverUrl !== meta.coverUrl ? live.coverUrl : null };
}

/** The review facts of the owner's works given, for those with any (decision 214). */
export async function workReviewFacts(userId: string, workIds: number[], executor: Executor = db): Promise<Map<number, WorkReviewFacts>> {
  const out = new Map<number, WorkReviewFacts>();
  if (workIds.length === 0) return out;
  const rows = rowsOf<{ id: number; new_work: boolean; status: string | null; note: string | null }>(
    await executor.execute(sql`
      select w.id, w.review_listing is not null as new_work, last.status, last.note
      from ${works} w
      left join lateral (
        select r.status, r.note from ${reviewItems} r
        where r.work_id = w.id and r.chapter_id is null and r.status <> 'withdrawn'
        order by r.id desc limit 1) last on true
      where w.user_id = ${userId} and w.id in (${sql.join(
        workIds.map((id) => sql`${id}`),
        sql`, `,
      )})
        and (w.review_listing is not null or w.pending_meta is not null)`),
  );
  for (const r of rows) {
    const sentBack = r.status === "returned" || r.status === "rejected" ? { status: r.status as "returned" | "rejected", note: r.note ?? "" } : null;
    out.set(Number(r.id), { newWork: r.new_work, pending: r.status === "pending", sentBack });
  }
  return out;
}
