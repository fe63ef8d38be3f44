import { createHash } from "node:crypto";
import { and, asc, desc, eq, inArray, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { chapterComments, chapters, commentAnchors, commentLikes, commentMutes, commentReports, profiles, reviewItems, works } from "~/db/schema";
import { COMMENT_MAX_CHARS, REPORT_MAX_CHARS } from "~/schemas/comment-rules";
import { reanchor } from "./comment-anchoring.server";
import { commentsTopic, publish } from "~/server/platform/events.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { phoneNeededToComment, refuseWithoutPhone } from "~/server/identity/phone-verification.server";
import { triggeredJob } from "~/server/platform/job-runner.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { notifyCommentReply } from "./notifications.server";
import { hitRateLimit, type RateLimitRule } from "~/server/platform/rate-limit.server";
import { splitParagraphs } from "~/utils/reading";
import type { CommentSort, CommentThread, CommentView } from "~/types/comments";
import { canReadChapter } from "~/server/catalog/chapter-access.server";
import { getOwnedWork, getWorkForViewer, type Viewer } from "~/server/catalog/works.server";
import { chapterNumber, getChapter, getChapterByOrder, isPublished } from "~/server/catalog/chapter-numbers.server";
import { pageWithin } from "~/utils/pagination";
import { maskTexts, refuseForbidden } from "~/server/screening/screening.server";
import { isOnlyInvisible } from "~/server/screening/matcher.server";
import { fanLevelsOf } from "./fans.server";

/**
 * Comments on chapters (docs/decisions/090-comments.md): 本章说 at a chapter's end and
 * 段评 on one paragraph, replies one level deep, likes, the author's hide and mute,
 * readers' reports. Reading and writing them needs what reading the chapter needs
 * (getWorkForViewer: private 404, r18 gate, paid content); the server checks every rule.
 */

const COMMENTS_PAGE_SIZE = 20;
/** Comments and replies a user may post a minute, counted in the database (every process). @internal */
export const COMMENT_RATE: RateLimitRule = { limit: 10, windowSeconds: 60 };

// Literal texts, not READER_MESSAGES: works.server imports this module (a cycle at load time).
export const COMMENT_MESSAGES = {
  empty: "评论内容不能为空",
  tooLong: `评论最多 ${COMMENT_MAX_CHARS} 字`,
  notFound: "评论不存在或已被删除",
  chapterMissing: "章节不存在",
  paragraphMissing: "这一段不存在，可能已被作者修改，请刷新后再试",
  replyToReply: "只能回复楼层，不能回复楼中楼的回复",
  replyToHidden: "这条评论已被隐藏，不能回复",
  rateLimited: "评论太频繁了，请一分钟后再试",
  muted: "作者已禁止你在这部作品下发表评论",
  reasonEmpty: "请填写举报理由",
  reasonTooLong: `举报理由最多 ${REPORT_MAX_CHARS} 字`,
  hidden: "当前显示设置下无法阅读该作品",
  locked: "购买本作品后才能查看和发表评论",
  muteSelf: "不能禁言自己",
  notMuted: "该用户没有被禁言",
} as const;


export function parseSort(value: string | null): CommentSort {
  return value === "new" ? "new" : "hot";
}

/** `p` of a thread address: a paragraph index, or null for 本章说. */
export function parseParagraph(value: string | null): number | null {
  if (value === null || !/^\d{1,7}$/.test(value)) return null;
  return Number(value);
}

/** A comment's text as stored: trimmed, line breaks normalised, at most two in a row. */
function normaliseBody(
  raw: unknown,
  messages: { empty: string; tooLong: string } = { empty: COMMENT_MESSAGES.empty, tooLong: COMMENT_MESSAGES.tooLong },
  max = COMMENT_MAX_CHARS,
): string {
  const text = (typeof raw === "string" ? raw : "")
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  // Only zero-width characters looks empty to the reader too (docs/product.md#screening).
  if (!text || isOnlyInvisible(text)) throw new DomainError(messages.empty, 400, "body");
  if (Array.from(text).length > max) throw new DomainError(messages.tooLong, 400, "body");
  return text;
}

/**
 * The work and a published chapter a viewer may read comments on, or the reader's
 * refusal. `order` is the chapter's number as readers see it (decision 080).
 */
async function readableChapter(viewer: Viewer, workId: number, where: { order: number } | { chapterId: number }) {
  const view = await getWorkForViewer(workId, viewer);
  if (view.gate !== "ok") throw new DomainError(COMMENT_MESSAGES.hidden, 403);
  if (!view.canReadContent && view.work.visibility !== "public-vip") throw new DomainError(COMMENT_MESSAGES.locked, 403);
  let found: { id: number; title: string; order: number; content: string } | null = null;
  if ("order" in where) {
    found = await getChapterByOrder(workId, where.order);
  } else {
    const row = await getChapter(workId, where.chapterId);
    if (row && row.state === "published" && row.kind === "chapter") found = { ...row, order: await chapterNumber(db, row) };
  }
  if (!found && !view.canReadContent) throw new DomainError(COMMENT_MESSAGES.locked, 403);
  if (!found) throw new DomainError(COMMENT_MESSAGES.chapterMissing, 404);
  // A work sold by chapter: comments on its free chapters and on the ones the viewer bought.
  if (!view.canReadContent && !(await canReadChapter(view, viewer, found))) throw new DomainError(COMMENT_MESSAGES.locked, 403);
  const chapter = { id: found.id, title: found.title, order: found.order, content: found.content };
  return { view, chapter };
}

/** A comment with its work, for actions on it by id. */
async function commentById(commentId: number, executor: Executor = db) {
  if (!Number.isSafeInteger(commentId) || commentId <= 0) throw new DomainError(COMMENT_MESSAGES.notFound, 404);
  const [row] = await executor
    .select({
      id: chapterComments.id,
      workId: chapterComments.workId,
      chapterId: chapterComments.chapterId,
      userId: chapterComments.userId,
      parentId: chapterComments.parentId,
      hiddenAt: chapterComments.hiddenAt,
      heldAt: chapterComments.heldAt,
      workOwner: works.userId,
      paragraph: commentAnchors.paragraphIndex,
    })
    .from(chapterComments)
    .innerJoin(works, eq(works.id, chapterComments.workId))
    .leftJoin(commentAnchors, eq(commentAnchors.id, chapterComments.anchorId))
    .where(eq(chapterComments.id, commentId));
  if (!row) throw new DomainError(COMMENT_MESSAGES.notFound, 404);
  return row;
}

/** Comment ids are addressed by number in forms. */
export function parseCommentId(value: unknown): number {
  const n = typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** Serialises re-anchoring of one chapter against itself and against new 段评 (shared). */
function chapterLock(tx: Executor, chapterId: number, mode: "exclusive" | "shared") {
  const key = `chapter-comments:${chapterId}`;
  return tx.execute(
    mode === "shared"
      ? sql`select pg_advisory_xact_lock_shared(hashtext(${key}))`
      : sql`select pg_advisory_xact_lock(hashtext(${key}))`,
  );
}

export interface PostInput {
  workId: number;
  order: number;
  /** A paragraph index for a 段评; null for 本章说 (and for replies). */
  paragraph: number | null;
  parentId: number | null;
  body: unknown;
}

/**
 * Posts a 本章说, a 段评 or a reply; returns the new comment's id and its thread's paragraph.
 * `record` writes the form's one-time token in the same transaction (decision 077).
 */
export async function postComment(
  user: NonNullable<Viewer>,
  input: PostInput,
  record?: RecordResult,
): Promise<{ id: number; paragraph: number | null; held: boolean }> {
  const body = normaliseBody(input.body);
  // A 禁止 word refuses the post (docs/product.md#screening); a 审核 word holds it for a
  // reviewer (decision 206): only its writer sees it until it is approved.
  const { held } = await refuseForbidden([{ label: input.parentId === null ? "评论" : "回复", field: "body", text: body }]);
  const heldAt = held ? new Date() : null;
  const { view, chapter } = await readableChapter(user, input.workId, { order: input.order });
  const [muted] = await db
    .select({ u: commentMutes.userId })
    .from(commentMutes)
    .where(and(eq(commentMutes.workId, view.work.id), eq(commentMutes.userId, user.id)));
  if (muted) throw new DomainError(COMMENT_MESSAGES.muted, 403);
  // 后台实名 (decision 235): while the operator requires it, a bound phone number first.
  await refuseWithoutPhone(user.id);

  // Checks first, then the limit (a refused post does not count), then the writes. The
  // limit's counter is its own statement outside the transaction: PGlite has one connection.
  if (input.parentId !== null) {
    const parent = await commentById(input.parentId).catch(() => null);
    if (!parent || parent.chapterId !== chapter.id) throw new DomainError(COMMENT_MESSAGES.notFound, 404);
    if (parent.parentId !== null) throw new DomainError(COMMENT_MESSAGES.replyToReply, 400);
    if (parent.hiddenAt) throw new DomainError(COMMENT_MESSAGES.replyToHidden, 400);
    await limit(user.id);
    return db.transaction(async (tx) => {
      const [row] = await tx
        .insert(chapterComments)
        .values({ workId: view.work.id, chapterId: chapter.id, userId: user.id, parentId: parent.id, body, hiddenAt: heldAt, heldAt })
        .returning({ id: chapterComments.id });
      if (heldAt) await holdForReview(tx, { id: row.id, workId: view.work.id, chapterId: chapter.id, userId: user.id, body });
      else await replyShown(tx, { workId: view.work.id, chapterId: chapter.id, userId: user.id }, parent);
      await record?.(tx, row.id);
      return { id: row.id, paragraph: parent.paragraph, held };
    });
  }

  const paragraph = input.paragraph;
  if (paragraph !== null && splitParagraphs(chapter.content)[paragraph] === undefined) {
    throw new DomainError(COMMENT_MESSAGES.paragraphMissing, 404);
  }
  await limit(user.id);
  return db.transaction(async (tx) => {
    let anchorId: number | null = null;
    if (paragraph !== null) {
      // The text as it is now, under the re-anchoring lock: an edit's re-anchoring that
      // runs after this commits sees this anchor and the words it was written on.
      await chapterLock(tx, chapter.id, "shared");
      const [current] = await tx.select({ content: chapters.content }).from(chapters).where(eq(chapters.id, chapter.id));
      const text = current ? splitParagraphs(current.content)[paragraph] : undefined;
      if (text === undefined) throw new DomainError(COMMENT_MESSAGES.paragraphMissing, 404);
      anchorId = await anchorFor(tx, chapter.id, paragraph, text);
    }
    const [row] = await tx
      .insert(chapterComments)
      .values({ workId: view.work.id, chapterId: chapter.id, userId: user.id, body, anchorId, hiddenAt: heldAt, heldAt })
      .returning({ id: chapterComments.id });
    if (heldAt) await holdForReview(tx, { id: row.id, workId: view.work.id, chapterId: chapter.id, userId: user.id, body });
    else await announce(tx, chapter.id, paragraph);
    await record?.(tx, row.id);
    return { id: row.id, paragraph, held };
  });
}

/** A reply others can see: its thread's count, the readers' pages, and its parent's writer told. */
async function replyShown(
  tx: Executor,
  reply: { workId: number; chapterId: number; userId: string },
  parent: { id: number; userId: string; paragraph: number | null },
): Promise<void> {
  await tx
    .update(chapterComments)
    .set({ replyCount: sql`${chapterComments.replyCount} + 1` })
    .where(eq(chapterComments.id, parent.id));
  await announce(tx, reply.chapterId, parent.paragraph);
  await notifyCommentReply(tx, {
    toUserId: parent.userId,
    fromUserId: reply.userId,
    workId: reply.workId,
    chapterId: reply.chapterId,
    parentCommentId: parent.id,
  });
}

/**
 * Where a tip from a chapter's end puts its notice (decision 207): the chapter, if the
 * tipper may read its comments, and whether the work's author muted them (then a message
 * is refused and a tip without one posts no notice).
 */
export async function tipNoticeTarget(user: NonNullable<Viewer>, workId: number, order: number): Promise<{ chapterId: number; order: number; muted: boolean }> {
  const { view, chapter } = await readableChapter(user, workId, { order });
  const [muted] = await db
    .select({ u: commentMutes.userId })
    .from(commentMutes)
    .where(and(eq(commentMutes.workId, view.work.id), eq(commentMutes.userId, user.id)));
  return { chapterId: chapter.id, order: chapter.order, muted: Boolean(muted) };
}

/**
 * The tip's notice in the chapter's 本章说 (打赏了 N 积分：message), inside the tip's
 * transaction: a 本章说 of its own kind (`tip_amount`), its body the message (possibly
 * empty). A message with a 审核 word is held for a reviewer like a comment (decision 206).
 */
export async function postTipNotice(
  tx: Executor,
  notice: { workId: number; chapterId: number; userId: string; amount: number; message: string; held: boolean },
): Promise<number> {
  const heldAt = notice.held ? new Date() : null;
  const [row] = await tx
    .insert(chapterComments)
    .values({ workId: notice.workId, chapterId: notice.chapterId, userId: notice.userId, body: notice.message, tipAmount: notice.amount, hiddenAt: heldAt, heldAt })
    .returning({ id: chapterComments.id });
  if (heldAt) await holdForReview(tx, { id: row.id, workId: notice.workId, chapterId: notice.chapterId, userId: notice.userId, body: notice.message });
  else await announce(tx, notice.chapterId, null);
  return row.id;
}

/** The version of a held comment a reviewer decides on: the SHA-256 of its text. */
export function heldCommentHash(body: string): string {
  return createHash("sha256").update(body, "utf8").digest("hex");
}

/** A comment held by a 审核 word waits in the review queue (kind `comment`, decision 206). */
async function holdForReview(tx: Executor, comment: { id: number; workId: number; chapterId: number; userId: string; body: string }): Promise<void> {
  await tx.insert(reviewItems).values({
    kind: "comment",
    commentId: comment.id,
    chapterId: comment.chapterId,
    workId: comment.workId,
    authorId: comment.userId,
    contentHash: heldCommentHash(comment.body),
    revision: 1,
    reason: "评论含待审词语",
  });
}

/**
 * 通过 on a held comment (the review queue, in its decision's transaction): it is shown
 * to everyone, as if posted now (a reply counts in its thread and tells its parent's
 * writer). False when it is no longer held.
 */
export async function releaseHeldComment(tx: Executor, commentId: number): Promise<boolean> {
  const [row] = await tx
    .update(chapterComments)
    .set({ heldAt: null, hiddenAt: null })
    .where(and(eq(chapterComments.id, commentId), isNotNull(chapterComments.heldAt)))
    .returning({ workId: chapterComments.workId, chapterId: chapterComments.chapterId, userId: chapterComments.userId, parentId: chapterComments.parentId });
  if (!row) return false;
  const comment = await commentById(commentId, tx);
  if (row.parentId !== null) {
    const parent = await commentById(row.parentId, tx);
    await replyShown(tx, row, parent);
  } else await announce(tx, row.chapterId, comment.paragraph);
  return true;
}

/**
 * The anchor of a paragraph with these words (decision 102), made on its first 段评. Two
 * first 段评 at the same moment may make two anchors for one paragraph: they move alike.
 */
async function anchorFor(tx: Executor, chapterId: number, paragraph: number, text: string): Promise<number> {
  const [found] = await tx
    .select({ id: commentAnchors.id })
    .from(commentAnchors)
    .where(and(eq(commentAnchors.chapterId, chapterId), eq(commentAnchors.paragraphIndex, paragraph), eq(commentAnchors.paragraphText, text)))
    .limit(1);
  if (found) return found.id;
  const [made] = await tx.insert(commentAnchors).values({ chapterId, paragraphIndex: paragraph, paragraphText: text }).returning({ id: commentAnchors.id });
  return made.id;
}

/**
 * Tells the readers of a chapter, on every app process, that its comments changed
 * (decision 101). Inside the caller's transaction: sent on commit, never on rollback.
 * The event carries no text, only where to look; each page fetches what it may see.
 */
function announce(tx: Executor, chapterId: number, paragraph: number | null) {
  return publish({ topic: commentsTopic(chapterId), kind: "comments", chapterId, paragraph }, tx);
}

async function limit(userId: string) {
  if (!(await hitRateLimit(`comments:${userId}`, COMMENT_RATE))) throw new DomainError(COMMENT_MESSAGES.rateLimited, 429);
}

/**
 * One page of a thread: the 段评 of paragraph `paragraph`, or the chapter's 本章说
 * (`paragraph` null, including 段评 whose paragraph is gone), each with its replies.
 * Hidden comments reach only their writer and the work's author.
 */
export async function listComments(
  viewer: Viewer,
  workId: number,
  order: number,
  opts: { paragraph: number | null; sort: CommentSort; page: number },
): Promise<CommentThread> {
  const { view, chapter } = await readableChapter(viewer, workId, { order });
  const paragraphs = splitParagraphs(chapter.content);
  const paragraph =
    opts.paragraph === null ? null : opts.paragraph < paragraphs.length ? { index: opts.paragraph, text: paragraphs[opts.paragraph] } : null;
  if (opts.paragraph !== null && !paragraph) throw new DomainError(COMMENT_MESSAGES.paragraphMissing, 404);

  const visible: SQL | undefined = and(
    view.isOwner
      ? // The work's author sees what they hid, not what waits for a reviewer (decision 206).
        or(isNull(chapterComments.heldAt), eq(chapterComments.userId, viewer!.id))
      : viewer
        ? or(isNull(chapterComments.hiddenAt), eq(chapterComments.userId, viewer.id))
        : isNull(chapterComments.hiddenAt),
    // A banned user's comments are hidden from everyone while the ban lasts (decision 137).
    sql`not ${authorBanned(sql`${chapterComments.userId}`)}`,
  );
  const where = and(
    eq(chapterComments.chapterId, chapter.id),
    isNull(chapterComments.parentId),
    paragraph
      ? inArray(chapterComments.anchorId, anchorsAt(chapter.id, eq(commentAnchors.paragraphIndex, paragraph.index)))
      : or(isNull(chapterComments.anchorId), inArray(chapterComments.anchorId, anchorsAt(chapter.id, isNull(commentAnchors.paragraphIndex)))),
    visible,
  );
  const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(chapterComments).where(where);
  const { page, pageCount } = pageWithin(opts.page, total, COMMENTS_PAGE_SIZE);
  const sortBy =
    opts.sort === "hot"
      ? [desc(chapterComments.likeCount), desc(chapterComments.replyCount), desc(chapterComments.id)]
      : [desc(chapterComments.id)];
  const top = await selectComments(where, sortBy, COMMENTS_PAGE_SIZE, (page - 1) * COMMENTS_PAGE_SIZE);
  const ids = top.map((c) => c.id);
  const replies = ids.length
    ? await selectComments(and(inArray(chapterComments.parentId, ids), visible), [asc(chapterComments.id)], 1000, 0)
    : [];
  const liked = viewer ? await likedBy(viewer.id, [...ids, ...replies.map((r) => r.id)]) : new Set<number>();
  // Each writer's 粉丝等级 on this work, beside their name (decision 207).
  const fanLevels = await fanLevelsOf(view.work.id, [...top, ...replies].map((c) => c.userId));
  // Readers see 替换 words masked (docs/product.md#screening); the stored text is unchanged.
  const bodies = new Map<number, string>();
  const quotes = new Map<number, string>();
  const all = [...top, ...replies];
  (await maskTexts(all.map((c) => c.body))).forEach((body, i) => bodies.set(all[i].id, body));
  (await maskTexts(all.map((c) => c.anchorText ?? ""))).forEach((quote, i) => quotes.set(all[i].id, quote));
  const shape = (c: (typeof top)[number]): CommentView => ({
    id: c.id,
    body: bodies.get(c.id) ?? c.body,
    createdAt: c.createdAt.toISOString(),
    author: { id: c.userId, nickname: c.nickname, avatarUrl: c.avatarUrl },
    byWorkAuthor: c.userId === view.work.userId,
    fanLevel: c.userId === view.work.userId ? null : (fanLevels.get(c.userId) ?? null),
    tipAmount: c.tipAmount,
    mine: viewer?.id === c.userId,
    hidden: c.hiddenAt !== null && c.heldAt === null,
    held: c.heldAt === null ? null : c.heldRejected ? "rejected" : "pending",
    likeCount: c.likeCount,
    liked: liked.has(c.id),
    replyCount: c.replyCount,
    quote: c.anchorId !== null && c.anchorIndex === null ? (quotes.get(c.id) ?? c.anchorText) : null,
    replies: [],
  });
  const threads = top.map(shape);
  const byId = new Map(threads.map((t) => [t.id, t]));
  for (const r of replies) byId.get(r.parentId!)?.replies.push(shape(r));
  return {
    work: { id: view.work.id, title: view.work.title, authorNickname: view.author.nickname },
    chapter: { id: chapter.id, title: chapter.title, order: chapter.order },
    isOwner: view.isOwner,
    paragraph: paragraph ? { ...paragraph, text: (await maskTexts([paragraph.text]))[0] } : null,
    comments: threads,
    total,
    page,
    pageCount,
    // 后台实名 (decision 235): the forms ask for a bound phone instead of a comment.
    phoneNeeded: viewer ? await phoneNeededToComment(viewer.id) : false,
  };
}

/** The ids of a chapter's anchors where `where` holds (a paragraph, or none: moved to 本章说). */
function anchorsAt(chapterId: number, where: SQL) {
  return db.select({ id: commentAnchors.id }).from(commentAnchors).where(and(eq(commentAnchors.chapterId, chapterId), where));
}

function selectComments(where: SQL | undefined, orderBy: SQL[], limitTo: number, offset: number) {
  return db
    .select({
      id: chapterComments.id,
      userId: chapterComments.userId,
      parentId: chapterComments.parentId,
      body: chapterComments.body,
      tipAmount: chapterComments.tipAmount,
      createdAt: chapterComments.createdAt,
      hiddenAt: chapterComments.hiddenAt,
      heldAt: chapterComments.heldAt,
      heldRejected: sql<boolean>`${chapterComments.heldAt} is not null and exists (select 1 from ${reviewItems} ri where ri.comment_id = ${chapterComments.id} and ri.status = 'rejected')`,
      likeCount: chapterComments.likeCount,
      replyCount: chapterComments.replyCount,
      anchorId: chapterComments.anchorId,
      anchorIndex: commentAnchors.paragraphIndex,
      anchorText: commentAnchors.paragraphText,
      nickname: profiles.nickname,
      avatarUrl: profiles.avatarUrl,
    })
    .from(chapterComments)
    .innerJoin(profiles, eq(profiles.id, chapterComments.userId))
    .leftJoin(commentAnchors, eq(commentAnchors.id, chapterComments.anchorId))
    .where(where)
    .orderBy(...orderBy)
    .limit(limitTo)
    .offset(offset);
}

async function likedBy(userId: string, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: commentLikes.commentId })
    .from(commentLikes)
    .where(and(eq(commentLikes.userId, userId), inArray(commentLikes.commentId, ids)));
  return new Set(rows.map((r) => Number(r.id)));
}

export interface CommentCounts {
  /** Visible 段评 per paragraph index (only paragraphs that have some). */
  paragraphs: Record<number, number>;
  /** Visible 本章说 (top-level, including 段评 moved there by an edit). */
  chapter: number;
}

/**
 * The bubbles' numbers for one chapter (of the paragraphs in `range` only, when given:
 * the reader asks for the batch it shows), in one statement: the anchors of the chapter
 * joined to their visible 段评 over partial indexes, and the chapter's own 本章说.
 */
export async function commentCounts(chapterId: number, range?: { from: number; to: number }): Promise<CommentCounts> {
  const inRange = range ? sql`and (a.paragraph_index is null or a.paragraph_index between ${range.from} and ${range.to - 1})` : sql``;
  const result = await db.execute(sql`
    select a.paragraph_index as p, count(*)::int as n
    from ${commentAnchors} a join ${chapterComments} c on c.anchor_id = a.id and c.parent_id is null and c.hidden_at is null
    where a.chapter_id = ${chapterId} ${inRange} and not ${authorBanned(sql`c.user_id`)}
    group by a.paragraph_index
    union all
    select null, count(*)::int from ${chapterComments} c
    where c.chapter_id = ${chapterId} and c.anchor_id is null and c.parent_id is null and c.hidden_at is null
      and not ${authorBanned(sql`c.user_id`)}`);
  const counts: CommentCounts = { paragraphs: {}, chapter: 0 };
  for (const row of rowsOf<{ p: number | null; n: number }>(result)) {
    if (row.p === null) counts.chapter += Number(row.n);
    else counts.paragraphs[Number(row.p)] = Number(row.n);
  }
  return counts;
}

/**
 * The id of a published chapter of `workId` whose comments the viewer may read, or a
 * refusal as for listing them; reads no chapter text (the live stream and the counts ask
 * this on every connection).
 */
export async function readableChapterId(viewer: Viewer, workId: number, chapterId: number): Promise<number> {
  if (!Number.isSafeInteger(workId) || workId <= 0 || !Number.isSafeInteger(chapterId) || chapterId <= 0) {
    throw new DomainError(COMMENT_MESSAGES.chapterMissing, 404);
  }
  const view = await getWorkForViewer(workId, viewer);
  if (view.gate !== "ok") throw new DomainError(COMMENT_MESSAGES.hidden, 403);
  if (!view.canReadContent && view.work.visibility !== "public-vip") throw new DomainError(COMMENT_MESSAGES.locked, 403);
  const [row] = await db
    .select({ id: chapters.id, workId: chapters.workId, position: chapters.position })
    .from(chapters)
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId), isPublished));
  if (!row) throw new DomainError(view.canReadContent ? COMMENT_MESSAGES.chapterMissing : COMMENT_MESSAGES.locked, view.canReadContent ? 404 : 403);
  if (!view.canReadContent && !(await canReadChapter(view, viewer, { id: row.id, order: await chapterNumber(db, row) }))) {
    throw new DomainError(COMMENT_MESSAGES.locked, 403);
  }
  return row.id;
}

/** The bubbles' numbers for a chapter the viewer may read (the reader's live refresh). */
export async function commentCountsFor(
  viewer: Viewer,
  workId: number,
  chapterId: number,
  range?: { from: number; to: number },
): Promise<CommentCounts> {
  return commentCounts(await readableChapterId(viewer, workId, chapterId), range);
}

/** Whether the writer of a comment (`userId`, a column) is banned now (decision 137). */
function authorBanned(userId: SQL): SQL {
  return sql`exists (select 1 from users bu where bu.id = ${userId} and bu.banned_at is not null and (bu.banned_until is null or bu.banned_until > now()))`;
}

/** Checks the viewer may read the comment's chapter; returns the comment. */
async function readableComment(viewer: Viewer, commentId: number) {
  const comment = await commentById(commentId);
  await readableChapter(viewer, comment.workId, { chapterId: comment.chapterId });
  const visible = !comment.hiddenAt || comment.userId === viewer?.id || (comment.workOwner === viewer?.id && !comment.heldAt);
  if (!visible) throw new DomainError(COMMENT_MESSAGES.notFound, 404);
  return comment;
}

/** Likes (on) or unlikes a comment; liking twice counts once. */
export async function setLike(user: NonNullable<Viewer>, commentId: number, on: boolean): Promise<void> {
  const comment = await readableComment(user, commentId);
  await db.transaction(async (tx) => {
    const changed = on
      ? await tx.insert(commentLikes).values({ commentId: comment.id, userId: user.id }).onConflictDoNothing().returning({ id: commentLikes.commentId })
      : await tx
          .delete(commentLikes)
          .where(and(eq(commentLikes.commentId, comment.id), eq(commentLikes.userId, user.id)))
          .returning({ id: commentLikes.commentId });
    if (changed.length === 0) return;
    await tx
      .update(chapterComments)
      .set({ likeCount: sql`greatest(0, ${chapterComments.likeCount} + ${on ? 1 : -1})` })
      .where(eq(chapterComments.id, comment.id));
  });
}

/** The work's author hides (or shows again) a comment on their work; anyone else gets 404. */
export async function setHidden(user: NonNullable<Viewer>, commentId: number, hidden: boolean): Promise<void> {
  const comment = await commentById(commentId);
  // A comment waiting for a reviewer is not the author's to show (decision 206).
  if (comment.workOwner !== user.id || comment.heldAt) throw new DomainError(COMMENT_MESSAGES.notFound, 404);
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(chapterComments)
      .set({ hiddenAt: hidden ? new Date() : null })
      .where(eq(chapterComments.id, comment.id))
      .returning({ id: chapterComments.id });
    // Others' pages drop (or show again) the comment and its bubble's count.
    if (row) await announce(tx, comment.chapterId, comment.paragraph);
  });
}

/** Stores a report for the moderators; reporting the same comment again updates the reason. */
export async function reportComment(user: NonNullable<Viewer>, commentId: number, rawReason: unknown): Promise<void> {
  const reason = normaliseBody(rawReason, { empty: COMMENT_MESSAGES.reasonEmpty, tooLong: COMMENT_MESSAGES.reasonTooLong }, REPORT_MAX_CHARS);
  await refuseForbidden([{ label: "举报理由", field: "body", text: reason }]);
  const comment = await readableComment(user, commentId);
  await db
    .insert(commentReports)
    .values({ commentId: comment.id, userId: user.id, reason })
    .onConflictDoUpdate({ target: [commentReports.commentId, commentReports.userId], set: { reason, createdAt: new Date(), resolvedAt: null } });
}

/** The work's author mutes (or unmutes) a commenter on that work: found through one of their comments. */
export async function setMuted(user: NonNullable<Viewer>, commentId: number, muted: boolean): Promise<void> {
  const comment = await commentById(commentId);
  if (comment.workOwner !== user.id) throw new DomainError(COMMENT_MESSAGES.notFound, 404);
  if (comment.userId === user.id) throw new DomainError(COMMENT_MESSAGES.muteSelf, 400);
  if (muted) {
    await db.insert(commentMutes).values({ workId: comment.workId, userId: comment.userId }).onConflictDoNothing();
  } else {
    await db.delete(commentMutes).where(and(eq(commentMutes.workId, comment.workId), eq(commentMutes.userId, comment.userId)));
  }
}

export interface MutedUser {
  userId: string;
  nickname: string;
  mutedAt: string;
}

/** The commenters the author muted on their work, newest first; someone else's work is a 404. */
export async function listMutedUsers(ownerId: string, workId: number): Promise<MutedUser[]> {
  await getOwnedWork(ownerId, workId);
  const rows = await db
    .select({ userId: commentMutes.userId, nickname: profiles.nickname, mutedAt: commentMutes.createdAt })
    .from(commentMutes)
    .innerJoin(profiles, eq(profiles.id, commentMutes.userId))
    .where(eq(commentMutes.workId, workId))
    .orderBy(desc(commentMutes.createdAt));
  return rows.map((r) => ({ userId: r.userId, nickname: r.nickname, mutedAt: r.mutedAt.toISOString() }));
}

/** The author lets a muted commenter comment on their work again (from the muted list). */
export async function unmuteUser(ownerId: string, workId: number, userId: unknown): Promise<void> {
  await getOwnedWork(ownerId, workId);
  const id = typeof userId === "string" && UUID.test(userId) ? userId : null;
  const removed = id
    ? await db
        .delete(commentMutes)
        .where(and(eq(commentMutes.workId, workId), eq(commentMutes.userId, id)))
        .returning({ userId: commentMutes.userId })
    : [];
  if (removed.length === 0) throw new DomainError(COMMENT_MESSAGES.notMuted, 404);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// ---------------------------------------------------------------------------------------
// Re-anchoring after an edit

/**
 * Moves a chapter's 段评 to where their paragraphs are now (comment-anchoring.server.ts):
 * the same text, else the most similar paragraph, else 本章说 with the quote kept. The
 * comments' anchors move (decision 102), one row per paragraph that has 段评, in one
 * statement; the comments are not written. Reads the chapter's current text under an
 * exclusive per-chapter lock, so runs after two quick edits end on the last text
 * whichever finishes first. Returns how many anchors moved and how many lost their paragraph.
 */
async function reanchorChapter(chapterId: number): Promise<{ moved: number; detached: number }> {
  return db.transaction(async (tx) => {
    await chapterLock(tx, chapterId, "exclusive");
    const [chapter] = await tx.select({ content: chapters.content }).from(chapters).where(eq(chapters.id, chapterId));
    if (!chapter) return { moved: 0, detached: 0 };
    const paragraphs = splitParagraphs(chapter.content);
    const anchors = await tx
      .select({ id: commentAnchors.id, index: commentAnchors.paragraphIndex, text: commentAnchors.paragraphText })
      .from(commentAnchors)
      .where(and(eq(commentAnchors.chapterId, chapterId), isNotNull(commentAnchors.paragraphIndex)));
    const targets = reanchor(
      anchors.map((a) => ({ index: a.index!, text: a.text })),
      paragraphs,
    );
    const moves: { id: number; i: number | null; t: string | null }[] = [];
    anchors.forEach((a, k) => {
      const index = targets[k];
      if (index !== null && index === a.index && paragraphs[index] === a.text) return;
      // A detached anchor keeps the words it was about (the quote in 本章说).
      moves.push({ id: a.id, i: index, t: index === null ? null : paragraphs[index] });
    });
    if (moves.length > 0) {
      await tx.execute(sql`
        update ${commentAnchors} a
        set paragraph_index = m.i, paragraph_text = coalesce(m.t, a.paragraph_text)
        from jsonb_to_recordset(${JSON.stringify(moves)}::jsonb) as m(id bigint, i int, t text)
        where a.id = m.id and a.chapter_id = ${chapterId}`);
      await announce(tx, chapterId, null);
    }
    const detached = moves.filter((m) => m.i === null).length;
    return { moved: moves.length - detached, detached };
  });
}

/** Re-anchoring as a job (app/server/platform/job-runner.server.ts, decision 179): one run per chapter at a time. */
const reanchoring = triggeredJob("reanchor", "re-anchoring comments failed", reanchorChapter);

/**
 * Re-anchors after the edit that called it has committed, without making the author's
 * save wait. Saves during a run of the same chapter run it once more after, on the last
 * text. A failure is logged: the next edit re-anchors again.
 */
export function reanchorAfterCommit(chapterId: number): void {
  reanchoring.trigger(chapterId);
}

/** For tests: waits for the re-anchoring runs started so far (the shutdown waits for them too). @internal */
export const settleReanchors = (): Promise<void> => reanchoring.settle();
