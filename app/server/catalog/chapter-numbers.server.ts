import { and, asc, eq, ne, sql, type SQL } from "drizzle-orm";
import { db, readDb, type Executor } from "~/db/client.server";
import { chapters } from "~/db/schema";

/**
 * Chapters as readers number them. A chapter's number (`?chapter=N`, 第N章) is its place
 * in the work's order, derived from `position` and never stored (docs/decisions/080): a
 * move or a delete renumbers what follows without writing it.
 */

/** The chapters readers see, in order. */
export const chapterOrder = [asc(chapters.position), asc(chapters.id)] as const;
/**
 * The numbered chapters readers see: published 正文. 存稿 and 定时 chapters are the
 * author's (docs/product.md D12); notice chapters (请假条, 作品相关) are outside the numbering, the counts,
 * reading positions and prices (docs/decisions/203): they have their own queries.
 */
export const isPublished = and(eq(chapters.state, "published"), eq(chapters.kind, "chapter"))!;

/** One chapter of a work, with its text. Callers decide who may read it. */
export async function getChapter(workId: number, chapterId: number) {
  if (!Number.isSafeInteger(chapterId) || chapterId <= 0) return null;
  const [row] = await db
    .select()
    .from(chapters)
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId)));
  return row ?? null;
}

/** The `order`-th published chapter of a work (1-based), with its number as `order`. */
export async function getChapterByOrder(workId: number, order: number, from: Executor = db) {
  if (!Number.isSafeInteger(order) || order <= 0) return null;
  // The index scan skips the earlier chapters without reading their rows; only the one
  // chapter is fetched whole.
  const nth = from
    .select({ id: chapters.id })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), isPublished))
    .orderBy(...chapterOrder)
    .offset(order - 1)
    .limit(1);
  const [row] = await from.select().from(chapters).where(eq(chapters.id, sql`(${nth})`));
  return row ? { ...row, order } : null;
}

/**
 * The `order`-th published chapter as a reader gets it: from a read replica when the
 * request may read one (readDb, docs/architecture.md#read-replicas), from the primary when
 * the replica does not hold it yet (a chapter published a moment ago). Who may read it is
 * still the caller's question, asked of the primary.
 */
export async function chapterForReaders(workId: number, order: number) {
  const replica = readDb();
  const found = await getChapterByOrder(workId, order, replica);
  return found ?? (replica === db ? null : getChapterByOrder(workId, order));
}

/**
 * A published chapter's number as a subquery, for statements that read chapters of several
 * works at once: how many published chapters of work `workId` come up to (`position`, `id`).
 * The arguments are the outer statement's columns (or values).
 */
export function chapterNumberSql(workId: unknown, position: unknown, id: unknown): SQL<number> {
  return sql<number>`(select count(*)::int from ${chapters} c where c.work_id = ${workId} and c.state = 'published' and c.kind = 'chapter' and (c.position, c.id) <= (${position}, ${id}))`;
}

/** A published chapter's number: how many published chapters of its work come before it, plus one. */
export async function chapterNumber(executor: Executor, chapter: { workId: number; position: number; id: number }): Promise<number> {
  const [{ n }] = await executor
    .select({ n: sql<number>`count(*)::int` })
    .from(chapters)
    .where(
      and(
        eq(chapters.workId, chapter.workId),
        isPublished,
        sql`(${chapters.position}, ${chapters.id}) <= (${chapter.position}, ${chapter.id})`,
      ),
    );
  return n;
}

/**
 * The number of the work's published chapter `chapterId` (its place for readers today), or
 * null: the chapter's lasting address (`/works/:id?chapterId=`, feed entries) resolves to the
 * reader's `?chapter=N` through it, so a move or a delete never sends a link elsewhere.
 */
export async function publishedChapterNumber(workId: number, chapterId: number): Promise<number | null> {
  if (!Number.isSafeInteger(chapterId) || chapterId <= 0) return null;
  const [row] = await db
    .select({ workId: chapters.workId, position: chapters.position, id: chapters.id })
    .from(chapters)
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId), isPublished));
  return row ? chapterNumber(db, row) : null;
}

/** The kinds of notice chapter (docs/decisions/203). */
export type NoticeKind = "leave" | "about";

/**
 * A work's published notice chapters (作品相关 and 请假条), in the work's order: the 目录's
 * own groups. Titles only; a notice is opened by id (`?notice=<id>`).
 */
export async function publishedNotices(workId: number): Promise<{ id: number; title: string; kind: NoticeKind; publishAt: Date | null }[]> {
  const rows = await db
    .select({ id: chapters.id, title: chapters.title, kind: chapters.kind, publishAt: chapters.publishAt })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), eq(chapters.state, "published"), ne(chapters.kind, "chapter")))
    .orderBy(...chapterOrder);
  return rows.map((r) => ({ ...r, kind: r.kind as NoticeKind }));
}

/** One published notice chapter of a work, with its text; null when there is none by that id. */
export async function getPublishedNotice(workId: number, chapterId: number) {
  if (!Number.isSafeInteger(chapterId) || chapterId <= 0) return null;
  const [row] = await db
    .select()
    .from(chapters)
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId), eq(chapters.state, "published"), ne(chapters.kind, "chapter")));
  return row ?? null;
}
