import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { bookReviewLikes, bookReviewReports, bookReviews, profiles, users, works } from "~/db/schema";
import { REVIEW_MAX_CHARS, REVIEW_MIN_CHARS, REVIEW_MIN_RATINGS, REVIEW_REPLY_MAX_CHARS, REVIEW_REPORT_MAX_CHARS } from "~/schemas/book-review-rules";
import { DomainError } from "~/server/platform/errors.server";
import { phoneNeededToComment } from "~/server/identity/phone-verification.server";
import { PHONE_MESSAGES } from "~/schemas/phone-rules";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { isOnlyInvisible } from "~/server/screening/matcher.server";
import { maskTexts, refuseForbidden } from "~/server/screening/screening.server";
import { banActive } from "~/server/identity/auth.server";
import { isByChapter } from "~/server/catalog/chapter-access.server";
import { getWorkForViewer, type Viewer } from "~/server/catalog/works.server";
import { pageWithin } from "~/utils/pagination";
import type { BookReviewView, RatingSummary, ReviewSort } from "~/types/book-reviews";

/**
 * 书评 (docs/product.md#book-reviews, decision 211): one review per reader per work with a
 * 1-10 rating, written by a reader who may read the work (the comments' gates:
 * getWorkForViewer's private 404 and R-18 gate, and the work's text, or a work sold by
 * chapter), never by its author or a banned account; the author marks 精华, pins and
 * answers once; readers like and report; operators hide or delete (admin/book-review-reports).
 * Screened like comments: 禁止 refuses naming the words, 替换 masks when shown; a 审核 word
 * refuses too, until held reviews have a place in the review queue (decision 211).
 */

const REVIEWS_PAGE_SIZE = 20;

/** @internal The messages, for tests to compare against. */
export const REVIEW_MESSAGES = {
  ratingInvalid: "请给出 1 到 10 分的评分",
  empty: "书评内容不能为空",
  tooShort: `书评至少 ${REVIEW_MIN_CHARS} 字`,
  tooLong: `书评最多 ${REVIEW_MAX_CHARS} 字`,
  replyEmpty: "回复内容不能为空",
  replyTooLong: `回复最多 ${REVIEW_REPLY_MAX_CHARS} 字`,
  reasonEmpty: "请填写举报理由",
  reasonTooLong: `举报理由最多 ${REVIEW_REPORT_MAX_CHARS} 字`,
  held: "内容含有需要人工审核的词语，书评区暂不接受此类内容，请修改后再发表",
  hidden: "当前显示设置下无法查看该作品",
  locked: "购买本作品后才能写书评",
  own: "不能给自己的作品写书评",
  banned: "你的账号已被封禁，不能写书评",
  already: "你已经写过这部作品的书评了，可以修改或删除原来的书评",
  noneOfMine: "你还没有写过这部作品的书评",
  notFound: "书评不存在或已被删除",
  notAuthor: "只有作品的作者可以这样做",
} as const;

export function parseReviewSort(value: string | null): ReviewSort {
  return value === "new" ? "new" : "hot";
}

/** Review ids are posted by number. */
export function parseReviewId(value: unknown): number {
  const n = typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** A rating as posted: a whole number 1-10, or a 400 naming the range. */
function parseRating(raw: unknown): number {
  const text = typeof raw === "string" ? raw.trim() : typeof raw === "number" ? String(raw) : "";
  if (!/^\d{1,2}$/.test(text)) throw new DomainError(REVIEW_MESSAGES.ratingInvalid, 400, "rating");
  const n = Number(text);
  if (n < 1 || n > 10) throw new DomainError(REVIEW_MESSAGES.ratingInvalid, 400, "rating");
  return n;
}

/** A text as stored: trimmed, line breaks normalised, at most two in a row; its length checked in 字. */
function normaliseText(raw: unknown, limits: { min: number; max: number; empty: string; tooShort?: string; tooLong: string }, field: string): string {
  const text = (typeof raw === "string" ? raw : "")
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (!text || isOnlyInvisible(text)) throw new DomainError(limits.empty, 400, field);
  const length = Array.from(text).length;
  if (length < limits.min) throw new DomainError(limits.tooShort ?? limits.empty, 400, field);
  if (length > limits.max) throw new DomainError(limits.tooLong, 400, field);
  return text;
}

const reviewText = (raw: unknown) =>
  normaliseText(raw, { min: REVIEW_MIN_CHARS, max: REVIEW_MAX_CHARS, empty: REVIEW_MESSAGES.empty, tooShort: REVIEW_MESSAGES.tooShort, tooLong: REVIEW_MESSAGES.tooLong }, "body");

/** 禁止 refuses naming the words; a 审核 word refuses too (no review queue place yet, decision 211). */
async function screen(label: string, field: string, text: string): Promise<void> {
  const { held } = await refuseForbidden([{ label, field, text }]);
  if (held) throw new DomainError(REVIEW_MESSAGES.held, 400, field);
}

/** The work a viewer may see the 书评区 of (the work page's own gates), or its refusal. */
async function visibleWork(viewer: Viewer, workId: number) {
  const view = await getWorkForViewer(workId, viewer);
  if (view.gate !== "ok") throw new DomainError(REVIEW_MESSAGES.hidden, 403);
  return view;
}

/** Whether `user` may write a review of the work, and if not, why (a Chinese sentence). */
async function whyCannotReview(user: NonNullable<Viewer>, view: Awaited<ReturnType<typeof visibleWork>>): Promise<string | null> {
  if (view.isOwner) return REVIEW_MESSAGES.own;
  // What reading its chapters needs: the work's text, or a work sold by chapter (its free chapters).
  if (!view.canReadContent && !isByChapter(view.work)) return REVIEW_MESSAGES.locked;
  const [row] = await db.select({ banned: banActive }).from(users).where(eq(users.id, user.id));
  if (!row || row.banned) return REVIEW_MESSAGES.banned;
  // 后台实名 (decision 235): while the operator requires it, a bound phone number first.
  if (await phoneNeededToComment(user.id)) return PHONE_MESSAGES.required;
  return null;
}

async function writableWork(user: NonNullable<Viewer>, workId: number) {
  const view = await visibleWork(user, workId);
  const why = await whyCannotReview(user, view);
  if (why) throw new DomainError(why, 403);
  return view;
}

/**
 * Writes the reader's review of a work. A second review (even two posted at once: the
 * unique (work, reader) decides) is refused with 409 and the way to edit the first.
 * `record` writes the form's one-time token in the same transaction (decision 077).
 */
export async function postReview(
  user: NonNullable<Viewer>,
  workId: number,
  input: { rating: unknown; body: unknown },
  record?: RecordResult,
): Promise<{ id: number }> {
  const rating = parseRating(input.rating);
  const body = reviewText(input.body);
  await screen("书评", "body", body);
  const view = await writableWork(user, workId);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(bookReviews)
      .values({ workId: view.work.id, userId: user.id, rating, body })
      .onConflictDoNothing({ target: [bookReviews.workId, bookReviews.userId] })
      .returning({ id: bookReviews.id });
    if (!row) throw new DomainError(REVIEW_MESSAGES.already, 409);
    await record?.(tx, row.id);
    return { id: row.id };
  });
}

/** The reader changes the rating and text of their review; it keeps its likes, 精华, pin and the author's reply. */
export async function editReview(user: NonNullable<Viewer>, workId: number, input: { rating: unknown; body: unknown }): Promise<{ id: number }> {
  const rating = parseRating(input.rating);
  const body = reviewText(input.body);
  await screen("书评", "body", body);
  const view = await writableWork(user, workId);
  const [row] = await db
    .update(bookReviews)
    .set({ rating, body, updatedAt: new Date() })
    .where(and(eq(bookReviews.workId, view.work.id), eq(bookReviews.userId, user.id)))
    .returning({ id: bookReviews.id });
  if (!row) throw new DomainError(REVIEW_MESSAGES.noneOfMine, 404);
  return { id: row.id };
}

/** The reader deletes their review (its likes and reports go with it). */
export async function deleteReview(user: NonNullable<Viewer>, workId: number): Promise<void> {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new DomainError(REVIEW_MESSAGES.noneOfMine, 404);
  const removed = await db
    .delete(bookReviews)
    .where(and(eq(bookReviews.workId, workId), eq(bookReviews.userId, user.id)))
    .returning({ id: bookReviews.id });
  if (removed.length === 0) throw new DomainError(REVIEW_MESSAGES.noneOfMine, 404);
}

/** A review with its work's owner, for actions on it by id. */
async function reviewById(reviewId: number, executor: Executor = db) {
  if (!Number.isSafeInteger(reviewId) || reviewId <= 0) throw new DomainError(REVIEW_MESSAGES.notFound, 404);
  const [row] = await executor
    .select({ id: bookReviews.id, workId: bookReviews.workId, userId: bookReviews.userId, hiddenAt: bookReviews.hiddenAt, workOwner: works.userId })
    .from(bookReviews)
    .innerJoin(works, eq(works.id, bookReviews.workId))
    .where(eq(bookReviews.id, reviewId));
  if (!row) throw new DomainError(REVIEW_MESSAGES.notFound, 404);
  return row;
}

/** A review of `workId` the viewer may see (hidden ones: their writer only). */
async function visibleReview(viewer: Viewer, workId: number, reviewId: number) {
  const review = await reviewById(reviewId);
  if (review.workId !== workId) throw new DomainError(REVIEW_MESSAGES.notFound, 404);
  await visibleWork(viewer, review.workId);
  if (review.hiddenAt && review.userId !== viewer?.id) throw new DomainError(REVIEW_MESSAGES.notFound, 404);
  return review;
}

/** A review on the author's own work; anyone else is told only the author may. */
async function ownersReview(user: NonNullable<Viewer>, workId: number, reviewId: number) {
  const review = await visibleReview(user, workId, reviewId);
  if (review.workOwner !== user.id) throw new DomainError(REVIEW_MESSAGES.notAuthor, 403);
  return review;
}

/** The author marks (or unmarks) a review 精华. */
export async function setFeatured(user: NonNullable<Viewer>, workId: number, reviewId: number, on: boolean): Promise<void> {
  const review = await ownersReview(user, workId, reviewId);
  await db.update(bookReviews).set({ featured: on }).where(eq(bookReviews.id, review.id));
}

/** The author pins (置顶) or unpins a review; the latest pinned shows first. */
export async function setPinned(user: NonNullable<Viewer>, workId: number, reviewId: number, on: boolean): Promise<void> {
  const review = await ownersReview(user, workId, reviewId);
  await db.update(bookReviews).set({ pinnedAt: on ? new Date() : null }).where(eq(bookReviews.id, review.id));
}

/** The author's one reply under a review: writing it again replaces it (编辑回复). */
export async function replyToReview(user: NonNullable<Viewer>, workId: number, reviewId: number, raw: unknown): Promise<void> {
  const text = normaliseText(raw, { min: 1, max: REVIEW_REPLY_MAX_CHARS, empty: REVIEW_MESSAGES.replyEmpty, tooLong: REVIEW_MESSAGES.replyTooLong }, "reply");
  await screen("回复", "reply", text);
  const review = await ownersReview(user, workId, reviewId);
  await db.update(bookReviews).set({ authorReply: text, authorRepliedAt: new Date() }).where(eq(bookReviews.id, review.id));
}

/** Likes (on) or unlikes a review; liking twice counts once. */
export async function setReviewLike(user: NonNullable<Viewer>, workId: number, reviewId: number, on: boolean): Promise<void> {
  const review = await visibleReview(user, workId, reviewId);
  await db.transaction(async (tx) => {
    const changed = on
      ? await tx.insert(bookReviewLikes).values({ reviewId: review.id, userId: user.id }).onConflictDoNothing().returning({ id: bookReviewLikes.reviewId })
      : await tx
          .delete(bookReviewLikes)
          .where(and(eq(bookReviewLikes.reviewId, review.id), eq(bookReviewLikes.userId, user.id)))
          .returning({ id: bookReviewLikes.reviewId });
    if (changed.length === 0) return;
    await tx
      .update(bookReviews)
      .set({ likeCount: sql`greatest(0, ${bookReviews.likeCount} + ${on ? 1 : -1})` })
      .where(eq(bookReviews.id, review.id));
  });
}

/** Stores a report for the back office; reporting the same review again updates the reason. */
export async function reportReview(user: NonNullable<Viewer>, workId: number, reviewId: number, raw: unknown): Promise<void> {
  const reason = normaliseText(raw, { min: 1, max: REVIEW_REPORT_MAX_CHARS, empty: REVIEW_MESSAGES.reasonEmpty, tooLong: REVIEW_MESSAGES.reasonTooLong }, "reason");
  await refuseForbidden([{ label: "举报理由", field: "reason", text: reason }]);
  const review = await visibleReview(user, workId, reviewId);
  await db
    .insert(bookReviewReports)
    .values({ reviewId: review.id, userId: user.id, reason })
    .onConflictDoUpdate({ target: [bookReviewReports.reviewId, bookReviewReports.userId], set: { reason, createdAt: new Date(), resolvedAt: null } });
}

/** Shown to everyone: not hidden by an operator, and its writer not banned now (as comments, decision 137). */
const shown: SQL = sql`${bookReviews.hiddenAt} is null and not exists (select 1 from ${users} bu where bu.id = ${bookReviews.userId} and bu.banned_at is not null and (bu.banned_until is null or bu.banned_until > now()))`;

/**
 * A work's rating: how many shown reviews rated it and their average (one decimal), the
 * average only from REVIEW_MIN_RATINGS on. One aggregate over the work's reviews.
 */
export async function ratingSummary(workId: number): Promise<RatingSummary> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int`, sum: sql<number>`coalesce(sum(${bookReviews.rating}), 0)::int` })
    .from(bookReviews)
    .where(and(eq(bookReviews.workId, workId), shown));
  const count = Number(row?.count ?? 0);
  const average = count >= REVIEW_MIN_RATINGS ? Math.round((Number(row.sum) * 10) / count) / 10 : null;
  return { count, average, min: REVIEW_MIN_RATINGS };
}

export interface ReviewPage {
  work: { id: number; title: string; authorNickname: string };
  summary: RatingSummary;
  isOwner: boolean;
  /** The viewer's own review, shown above the list with its edit form (`editBody`: the text unmasked). */
  mine: (BookReviewView & { editBody: string }) | null;
  /** Why a signed-in viewer cannot write one (null: they can, or they wrote one). */
  cannotReview: string | null;
  reviews: BookReviewView[];
  sort: ReviewSort;
  total: number;
  page: number;
  pageCount: number;
}

/**
 * One page of a work's 书评区: 置顶 first in both orders; then 热门 (精华, then likes, then
 * newest) or 最新. Hidden reviews reach only their writer (as `mine`).
 */
export async function listReviews(viewer: Viewer, workId: number, opts: { sort: ReviewSort; page: number }): Promise<ReviewPage> {
  const view = await visibleWork(viewer, workId);
  const where = and(eq(bookReviews.workId, view.work.id), shown);
  const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(bookReviews).where(where);
  const { page, pageCount } = pageWithin(opts.page, Number(total), REVIEWS_PAGE_SIZE);
  const pinnedFirst = [sql`${bookReviews.pinnedAt} desc nulls last`];
  const orderBy =
    opts.sort === "new"
      ? [...pinnedFirst, desc(bookReviews.createdAt), desc(bookReviews.id)]
      : [...pinnedFirst, desc(bookReviews.featured), desc(bookReviews.likeCount), desc(bookReviews.createdAt), desc(bookReviews.id)];
  const rows = await selectReviews(where).orderBy(...orderBy).limit(REVIEWS_PAGE_SIZE).offset((page - 1) * REVIEWS_PAGE_SIZE);
  const [mineRow] = viewer ? await selectReviews(and(eq(bookReviews.workId, view.work.id), eq(bookReviews.userId, viewer.id))) : [];
  const all = mineRow ? [...rows, mineRow] : rows;
  const liked = viewer ? await likedBy(viewer.id, all.map((r) => r.id)) : new Set<number>();
  const bodies = await maskTexts(all.map((r) => r.body));
  const replies = await maskTexts(all.map((r) => r.authorReply ?? ""));
  const shape = (r: (typeof all)[number], i: number): BookReviewView => ({
    id: r.id,
    rating: r.rating,
    body: bodies[i] ?? r.body,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    edited: r.updatedAt.getTime() - r.createdAt.getTime() > 1000,
    author: { id: r.userId, nickname: r.nickname, avatarUrl: r.avatarUrl },
    mine: viewer?.id === r.userId,
    featured: r.featured,
    pinned: r.pinnedAt !== null,
    hidden: r.hiddenAt !== null,
    likeCount: r.likeCount,
    liked: liked.has(r.id),
    authorReply: r.authorReply && r.authorRepliedAt ? { body: replies[i] ?? r.authorReply, at: r.authorRepliedAt.toISOString() } : null,
  });
  const shaped = all.map(shape);
  return {
    work: { id: view.work.id, title: view.work.title, authorNickname: view.author.nickname },
    summary: await ratingSummary(view.work.id),
    isOwner: view.isOwner,
    // The writer edits their own words, not the masked ones.
    mine: mineRow ? { ...shaped[shaped.length - 1], editBody: mineRow.body } : null,
    cannotReview: viewer && !mineRow ? await whyCannotReview(viewer, view) : null,
    reviews: shaped.slice(0, rows.length),
    sort: opts.sort,
    total: Number(total),
    page,
    pageCount,
  };
}

function selectReviews(where: SQL | undefined) {
  return db
    .select({
      id: bookReviews.id,
      userId: bookReviews.userId,
      rating: bookReviews.rating,
      body: bookReviews.body,
      featured: bookReviews.featured,
      pinnedAt: bookReviews.pinnedAt,
      authorReply: bookReviews.authorReply,
      authorRepliedAt: bookReviews.authorRepliedAt,
      likeCount: bookReviews.likeCount,
      hiddenAt: bookReviews.hiddenAt,
      createdAt: bookReviews.createdAt,
      updatedAt: bookReviews.updatedAt,
      nickname: profiles.nickname,
      avatarUrl: profiles.avatarUrl,
    })
    .from(bookReviews)
    .innerJoin(profiles, eq(profiles.id, bookReviews.userId))
    .where(where)
    .$dynamic();
}

async function likedBy(userId: string, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: bookReviewLikes.reviewId })
    .from(bookReviewLikes)
    .where(and(eq(bookReviewLikes.userId, userId), inArray(bookReviewLikes.reviewId, ids)));
  return new Set(rows.map((r) => Number(r.id)));
}
