import { notifyAuthorFollowers } from "~/server/community/author-follows.server";
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { reviewItems, works, type WorkMeta } from "~/db/schema";
import type { Work } from "~/server/catalog/works.server";
import type { WorkReviewFacts } from "~/types/studio";
import { HELD_BY_SCREENING, reviewReason } from "./review.server";
import { metaOf, waitingMeta, workMetaHash } from "./work-meta.server";

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
 * 通过 of a work's item (or a granted appeal of one): readers get the metadata submitted, and
 * a new work its listing. Returns what readers had before (kept on the item, for a 总编辑
 * taking the approval back: `meta: null` for a new work), or false when the work changed since
 * (the item is then stale: a later save withdrew it). Covers left unused are the caller's
 * (workCovers before and after).
 */
export async function applyWorkMeta(tx: Executor, workId: number, meta: WorkMeta): Promise<{ approvedOver: { meta: WorkMeta | null } } | false> {
  const [work] = await tx.select().from(works).where(eq(works.id, workId));
  if (!work) return false;
  const waiting = waitingMeta(work);
  if (!waiting || !sameMeta(waiting, meta)) return false;
  await tx
    .update(works)
    .set({ ...meta, pendingMeta: null, ...(work.reviewListing ? { ...work.reviewListing, reviewListing: null } : {}), updatedAt: new Date() })
    .where(eq(works.id, workId));
  // A held new work goes on its listing: followers hear of it if readers now see it (decision 230).
  if (work.reviewListing && work.reviewListing.visibility !== "private") await notifyAuthorFollowers(tx, workId);
  return { approvedOver: { meta: work.reviewListing ? null : metaOf(work) } };
}

/**
 * Whether the work's item sent back (退回修改, 拒绝) or decided on appeal still stands for the
 * version waiting: a 总编辑 reversing between the two, or an appeal, needs it unchanged.
 */
export async function stillWaiting(tx: Executor, workId: number, meta: WorkMeta): Promise<boolean> {
  const [work] = await tx.select().from(works).where(eq(works.id, workId));
  const waiting = work ? waitingMeta(work) : null;
  return waiting !== null && sameMeta(waiting, meta);
}

/**
 * A 总编辑 taking back the approval of a work's item (decision 239), while readers still see
 * the metadata it approved (`approved`). A change of an approved work: readers get what they
 * had before it again (`approvedOver`; a cover that approval replaced was removed then, so the
 * site's default cover instead), and the version taken back waits for its author to revise,
 * unless a newer change of theirs waits already. A new work put on its listing by the approval:
 * private again, its listing kept in `review_listing` as while it waited (a newer change
 * waiting becomes its version waiting, as a save of a waiting new work would make it). False
 * when readers no longer see that version; "unkept" when what they had before was not kept
 * (an approval made before decision 239).
 */
export async function takeBackWorkApproval(
  tx: Executor,
  workId: number,
  approved: WorkMeta,
  approvedOver: { meta: WorkMeta | null } | null,
): Promise<boolean | "unkept"> {
  const [work] = await tx.select().from(works).where(eq(works.id, workId));
  if (!work || work.reviewListing || !sameMeta(metaOf(work), approved)) return false;
  if (!approvedOver) return "unkept";
  const previous = approvedOver.meta;
  await tx
    .update(works)
    .set(
      previous === null
        ? { ...work.pendingMeta, pendingMeta: null, reviewListing: { visibility: work.visibility, price: work.price }, visibility: "private", price: 0, updatedAt: new Date() }
        : { ...previous, coverUrl: previous.coverUrl === approved.coverUrl ? previous.coverUrl : null, pendingMeta: work.pendingMeta ?? approved, updatedAt: new Date() },
    )
    .where(eq(works.id, workId));
  return true;
}

/** The cover files a work's versions use: readers' and the one waiting. */
export async function workCovers(tx: Executor, workId: number): Promise<Set<string>> {
  const [work] = await tx.select({ coverUrl: works.coverUrl, pendingMeta: works.pendingMeta }).from(works).where(eq(works.id, workId));
  return new Set([work?.coverUrl, work?.pendingMeta?.coverUrl].filter((c): c is string => Boolean(c)));
}

/** The review facts of the owner's works given, for those with any (decisions 214, 239). */
export async function workReviewFacts(userId: string, workIds: number[], executor: Executor = db): Promise<Map<number, WorkReviewFacts>> {
  const out = new Map<number, WorkReviewFacts>();
  if (workIds.length === 0) return out;
  type Row = Pick<Work, "title" | "description" | "tags"> & {
    id: number;
    cover_url: string | null;
    review_listing: Work["reviewListing"];
    pending_meta: Work["pendingMeta"];
    status: string | null;
    note: string | null;
    content_hash: string | null;
    appeal_status: string | null;
    appeal_note: string | null;
  };
  const rows = rowsOf<Row>(
    await executor.execute(sql`
      select w.id, w.title, w.description, w.cover_url, w.tags, w.review_listing, w.pending_meta,
        last.status, last.note, last.content_hash, appeal.status as appeal_status, appeal.note as appeal_note
      from ${works} w
      left join lateral (
        select r.id, r.status, r.note, r.content_hash from ${reviewItems} r
        where r.work_id = w.id and r.chapter_id is null and r.kind = 'work' and r.status <> 'withdrawn'
        order by r.id desc limit 1) last on true
      left join ${reviewItems} appeal on appeal.appeal_of = last.id and appeal.status <> 'withdrawn'
      where w.user_id = ${userId} and w.id in (${sql.join(
        workIds.map((id) => sql`${id}`),
        sql`, `,
      )})
        and (w.review_listing is not null or w.pending_meta is not null)`),
  );
  for (const r of rows) {
    let sentBack: WorkReviewFacts["sentBack"] = null;
    if (r.status === "returned" || r.status === "rejected") {
      // Only the version the decision was made on may be appealed, once (decision 239).
      const waiting = waitingMeta({ title: r.title, description: r.description, coverUrl: r.cover_url, tags: r.tags, reviewListing: r.review_listing, pendingMeta: r.pending_meta });
      const unchanged = waiting !== null && workMetaHash(waiting) === r.content_hash;
      const onAppeal = r.appeal_status === "rejected";
      const appeal = r.appeal_status === "pending" ? "pending" : r.appeal_status || !unchanged ? "closed" : "open";
      sentBack = { status: r.status, note: (onAppeal ? r.appeal_note : r.note) ?? "", onAppeal, appeal };
    }
    out.set(Number(r.id), { newWork: r.review_listing !== null, pending: r.status === "pending", sentBack });
  }
  return out;
}
