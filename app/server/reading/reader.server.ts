import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { refuseClosedHours } from "~/server/identity/minor-mode.server";
import { db } from "~/db/client.server";
import { chapterReads, chapters, readingProgress, volumes } from "~/db/schema";
import { canReadChapter, isByChapter } from "~/server/catalog/chapter-access.server";
import { chapterNumber, chapterNumberSql, chapterOrder, chapterForReaders, getChapter, getChapterByOrder, isPublished, publishedNotices } from "~/server/catalog/chapter-numbers.server";
import { DomainError } from "~/server/platform/errors.server";
import { chapterReadToRecord, rememberChapterRead } from "~/server/studio/author-stats.server";
import { getWorkForViewer, type Viewer } from "~/server/catalog/works.server";
import { pageWithin } from "~/utils/pagination";
import { splitParagraphs } from "~/utils/reading";
import { maskTexts } from "~/server/screening/screening.server";

/** docs/product.md: Constants: the reader renders 50 paragraphs at a time. @internal */
export const PARAGRAPH_BATCH = 50;
/**
 * A batch also stops once it holds this many characters (at least one paragraph), and a
 * paragraph longer than PARAGRAPH_MAX_CHARS (app/utils/reading.ts) is shown in pieces: a chapter with few line
 * breaks must not put a megabyte into the first response.
 * @internal
 */
export const BATCH_MAX_CHARS = 12_000;
const PREVIEW_CHARS = 100;

export const READER_MESSAGES = {
  chapterMissing: "章节不存在",
  noChapters: "暂无章节",
  locked: "购买后才能阅读该作品",
  hidden: "当前显示设置下无法阅读该作品",
  loginRequired: "请先登录",
  loadFailed: "加载失败，请重试",
} as const;

export interface ParagraphBatch {
  /** Index of the first paragraph in `paragraphs`. */
  from: number;
  paragraphs: string[];
  /** Where the next batch starts, or null at the end of the chapter. */
  next: number | null;
  total: number;
}

/** Up to 50 paragraphs (and at most BATCH_MAX_CHARS characters) starting at `from`. */
export function paragraphBatch(all: string[], from: number): ParagraphBatch {
  const start = Math.min(Math.max(0, Math.floor(from) || 0), all.length);
  const paragraphs: string[] = [];
  let chars = 0;
  for (let i = start; i < all.length && paragraphs.length < PARAGRAPH_BATCH; i++) {
    if (paragraphs.length > 0 && chars + all[i].length > BATCH_MAX_CHARS) break;
    paragraphs.push(all[i]);
    chars += all[i].length;
  }
  const end = start + paragraphs.length;
  return { from: start, paragraphs, next: end < all.length ? end : null, total: all.length };
}

/**
 * The batch that ends just before paragraph `before` (same limits as paragraphBatch,
 * counted backwards): what the reader loads when scrolling up from a resumed position.
 * @internal
 */
export function paragraphBatchBefore(all: string[], before: number): ParagraphBatch {
  const end = Math.min(Math.max(0, Math.floor(before) || 0), all.length);
  let start = end;
  let chars = 0;
  while (start > 0 && end - start < PARAGRAPH_BATCH) {
    if (end - start > 0 && chars + all[start - 1].length > BATCH_MAX_CHARS) break;
    start--;
    chars += all[start].length;
  }
  return { from: start, paragraphs: all.slice(start, end), next: end < all.length ? end : null, total: all.length };
}

/** Parses `?from=` (a paragraph index); anything else is 0. */
export function parseFrom(value: string | null): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** Parses `?chapter=` (a chapter order); null when absent or not a positive integer. */
export function parseChapterOrder(value: string | null): number | null {
  if (value === null || value === "") return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * A batch of a chapter's paragraphs for a viewer who may read the work's content: the
 * one check every route that returns chapter text goes through. Private works and
 * missing ones are 404; an r18 gate or an unbought paid work is 403, with no text.
 */
export async function readChapter(workId: number, viewer: Viewer, order: number, from: number, direction: "after" | "before" = "after") {
  const view = await getWorkForViewer(workId, viewer);
  if (view.gate !== "ok") throw new DomainError(READER_MESSAGES.hidden, 403);
  // 青少年模式's reading hours (decision 218).
  await refuseClosedHours(viewer?.id ?? null);
  if (!view.canReadContent && !isByChapter(view.work) && view.work.visibility !== "public-vip") {
    throw new DomainError(READER_MESSAGES.locked, 403);
  }
  const chapter = await chapterForReaders(workId, order);
  if (!chapter) throw new DomainError(view.canReadContent ? READER_MESSAGES.chapterMissing : READER_MESSAGES.locked, view.canReadContent ? 404 : 403);
  // A work sold by chapter: its free chapters and the ones the viewer bought (decision 110).
  if (!view.canReadContent && !(await canReadChapter(view, viewer, chapter))) throw new DomainError(READER_MESSAGES.locked, 403);
  const all = splitParagraphs(chapter.content);
  const batch = direction === "before" ? paragraphBatchBefore(all, from) : paragraphBatch(all, from);
  return { view, chapter: { id: chapter.id, title: chapter.title, order: chapter.order }, batch: await maskedBatch(batch) };
}

/** 作者的话 as readers see it (decision 202): 替换 words masked; null when there is none. */
export async function authorNoteForReaders(note: string): Promise<string[] | null> {
  if (!/\S/u.test(note)) return null;
  return maskTexts(splitParagraphs(note));
}

/** A batch as readers see it: 替换 words masked with ＊ (docs/product.md#screening). */
export async function maskedBatch(batch: ParagraphBatch): Promise<ParagraphBatch> {
  return { ...batch, paragraphs: await maskTexts(batch.paragraphs) };
}

/** Chapters per page of the table of contents (a 3,000-chapter TXT novel pages it). */
export const TOC_PAGE_SIZE = 100;

/** The order a table of contents lists chapters in: 正序 (first chapter first) or 倒序 (`?order=desc`). */
export type TocOrder = "asc" | "desc";

/** Parses `?order=`: "desc" is 倒序, anything else the usual order. */
export function parseTocOrder(value: string | null): TocOrder {
  return value === "desc" ? "desc" : "asc";
}

/**
 * One page of the table of contents with 100-character previews. Previews are chapter
 * text: only for viewers who may read the content; others get titles alone. 倒序 lists
 * the newest chapter first (page 1 holds the latest 100); each chapter keeps its number.
 * `latest` is the newest chapter, for 最新章节 above the list.
 */
export async function tableOfContents(workId: number, withPreviews: boolean, page = 1, order: TocOrder = "asc") {
  const [{ total }] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), isPublished));
  const { page: current, pageCount } = pageWithin(page, total, TOC_PAGE_SIZE);
  const offset = (current - 1) * TOC_PAGE_SIZE;
  const newestFirst = order === "desc";
  const listed = newestFirst ? [desc(chapters.position), desc(chapters.id)] : chapterOrder;
  const [rows, heads, latest, notices] = await Promise.all([
    db
      .select({
        id: chapters.id,
        title: chapters.title,
        wordCount: chapters.wordCount,
        aiLevel: chapters.aiLevel,
        // Line breaks and indentation squeeze out of a preview: 300 raw characters leave
        // enough to cut 100 from.
        preview: withPreviews ? sql<string>`left(${chapters.content}, ${PREVIEW_CHARS * 3})` : sql<string>`''`,
      })
      .from(chapters)
      .where(and(eq(chapters.workId, workId), isPublished))
      .orderBy(...listed)
      .limit(TOC_PAGE_SIZE)
      .offset(offset),
    volumeHeadings(workId),
    // 倒序's first page already starts with it.
    total === 0 || (newestFirst && current === 1)
      ? null
      : db
          .select({ title: chapters.title })
          .from(chapters)
          .where(and(eq(chapters.workId, workId), isPublished))
          .orderBy(desc(chapters.position), desc(chapters.id))
          .limit(1)
          .then((r) => r[0] ?? null),
    // 作品相关 and 请假条: outside the numbering, listed in their own groups (decision 203).
    publishedNotices(workId),
  ]);
  // The number readers see: the chapter's place in the order (docs/decisions/080).
  const numberAt = (i: number) => (newestFirst ? total - offset - i : offset + i + 1);
  const previews = withPreviews ? await maskTexts(rows.map((r) => previewOf(r.preview))) : [];
  const listedChapters = rows.map((r, i) => ({
    id: r.id,
    title: r.title,
    order: numberAt(i),
    wordCount: r.wordCount,
    preview: withPreviews ? previews[i] : null,
  }));
  const first = newestFirst ? total - offset - rows.length + 1 : offset + 1;
  const last = newestFirst ? total - offset : offset + rows.length;
  return {
    total,
    page: current,
    pageCount,
    order,
    latest: total === 0 ? null : { title: latest?.title ?? listedChapters[0].title, order: total },
    chapters: listedChapters,
    notices: notices.map((n) => ({ id: n.id, title: n.title, kind: n.kind })),
    // Volume headings over the chapters of this page, each shown before the chapter
    // numbered `at`: in 正序 a volume's first chapter, in 倒序 its last one (where the
    // volume starts when read from the newest).
    volumes: newestFirst ? headingsFromNewest(heads, total).filter((v) => v.at >= first && v.at <= last) : heads.filter((v) => v.at >= first && v.at <= last),
  };
}

/** 倒序's headings: each volume's heading moves to its last chapter; empty volumes have none. */
function headingsFromNewest(heads: { id: number; title: string; at: number }[], total: number) {
  return heads.flatMap((v, i) => {
    const end = (heads[i + 1]?.at ?? total + 1) - 1;
    return end >= v.at ? [{ ...v, at: end }] : [];
  });
}

/** A work's volume headings, each with the number of the first chapter after it. */
async function volumeHeadings(workId: number): Promise<{ id: number; title: string; at: number }[]> {
  const rows = await db
    .select({
      id: volumes.id,
      title: volumes.title,
      at: sql<number>`(select count(*)::int + 1 from ${chapters} c where c.work_id = "volumes"."work_id" and c.state = 'published' and c.kind = 'chapter' and c.position < "volumes"."position")`,
    })
    .from(volumes)
    .where(eq(volumes.workId, workId))
    .orderBy(asc(volumes.position), asc(volumes.id));
  return rows.map((r) => ({ id: Number(r.id), title: r.title, at: Number(r.at) }));
}

/** @internal */
export function previewOf(text: string): string {
  const flat = text.replace(/\s+/gu, " ").trim();
  const chars = Array.from(flat);
  return chars.length > PREVIEW_CHARS ? `${chars.slice(0, PREVIEW_CHARS).join("")}…` : flat;
}

/** The previous and next chapter numbers around `order`, if they exist. */
export async function neighbours(workId: number, order: number) {
  const [{ total }] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), isPublished));
  return { prev: order > 1 ? Math.min(order - 1, total) : null, next: order < total ? order + 1 : null };
}

export interface Progress {
  chapterOrder: number;
  chapterTitle: string;
  paragraph: number;
}

/**
 * Records where the user is reading. Only for a chapter of a work they may read; the
 * caller has checked that (readChapter). `keepWithin` keeps a stored position that is
 * more precise: opening (or reloading) the batch that holds it does not move it back.
 * `readAt` also records the day's read of the chapter for the author's statistics, in the
 * same statement (one round trip), unless this process already did today (decision 099).
 */
export async function saveProgress(
  userId: string,
  workId: number,
  chapterId: number,
  paragraph: number,
  keepWithin?: { from: number; to: number },
  readAt?: Date,
  savedAt?: Date,
): Promise<void> {
  const p = Math.max(0, Math.floor(paragraph) || 0);
  const keep = keepWithin
    ? sql`${readingProgress.chapterId} = excluded.chapter_id and ${readingProgress.paragraph} >= ${keepWithin.from} and ${readingProgress.paragraph} < ${keepWithin.to}`
    : sql`false`;
  const upsert = db
    .insert(readingProgress)
    .values({ userId, workId, chapterId, paragraph: p, updatedAt: savedAt ?? new Date() })
    .onConflictDoUpdate({
      target: [readingProgress.userId, readingProgress.workId],
      // A position saved offline (decision 244) loses to one saved since, elsewhere.
      ...(savedAt ? { setWhere: sql`${readingProgress.updatedAt} <= excluded.updated_at` } : {}),
      set: {
        chapterId: sql`case when ${keep} then ${readingProgress.chapterId} else excluded.chapter_id end`,
        paragraph: sql`case when ${keep} then ${readingProgress.paragraph} else excluded.paragraph end`,
        updatedAt: sql`excluded.updated_at`,
        // Reading a work again puts it back in a 阅读记录 it was removed from (decision 234).
        historyHidden: false,
      },
    });
  const read = readAt ? chapterReadToRecord(userId, workId, chapterId, readAt) : null;
  if (!read) {
    await upsert;
    return;
  }
  const insertRead = db.insert(chapterReads).values(read).onConflictDoNothing().getSQL();
  await db.execute(sql`with chapter_read as (${insertRead}) ${upsert.getSQL()}`);
  rememberChapterRead(read);
}

/**
 * Saves a position sent by the reader page while scrolling: checks the user may read the
 * work and that the chapter exists. The page names the chapter by id, which a reorder
 * meanwhile does not change (by its number from older pages). Returns false (nothing
 * saved) otherwise.
 */
export async function saveProgressFor(
  viewer: NonNullable<Viewer>,
  workId: number,
  ref: { chapterId: number } | { order: number },
  paragraph: number,
  savedAt?: Date,
) {
  const view = await getWorkForViewer(workId, viewer).catch(() => null);
  if (!view || view.gate !== "ok") return false;
  const chapter = "chapterId" in ref ? await getChapter(workId, ref.chapterId) : await getChapterByOrder(workId, ref.order);
  if (!chapter || chapter.state !== "published" || chapter.kind !== "chapter") return false;
  if (!view.canReadContent) {
    const order = "order" in ref ? ref.order : await chapterNumber(db, chapter);
    if (!(await canReadChapter(view, viewer, { id: chapter.id, order }))) return false;
  }
  await saveProgress(viewer.id, workId, chapter.id, paragraph, undefined, undefined, savedAt);
  return true;
}

/** The user's position in each of the given works. */
export async function progressForWorks(userId: string, workIds: number[]): Promise<Map<number, Progress>> {
  const map = new Map<number, Progress>();
  if (workIds.length === 0) return map;
  const rows = await db
    .select({
      workId: readingProgress.workId,
      chapterOrder: chapterNumberSql(chapters.workId, chapters.position, chapters.id),
      chapterTitle: chapters.title,
      paragraph: readingProgress.paragraph,
    })
    .from(readingProgress)
    .innerJoin(chapters, eq(chapters.id, readingProgress.chapterId))
    .where(and(eq(readingProgress.userId, userId), inArray(readingProgress.workId, workIds)));
  for (const r of rows) map.set(Number(r.workId), { chapterOrder: r.chapterOrder, chapterTitle: r.chapterTitle, paragraph: r.paragraph });
  return map;
}

export async function getProgress(userId: string, workId: number): Promise<Progress | null> {
  return (await progressForWorks(userId, [workId])).get(workId) ?? null;
}
