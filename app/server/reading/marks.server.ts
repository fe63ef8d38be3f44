import { and, count, desc, eq, inArray, ne, or, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters, readerMarks, users, works } from "~/db/schema";
import { MARK_MESSAGES, MARK_NOTE_MAX, MARKS_PER_WORK } from "~/schemas/reader-mark-rules";
import { canReadChapter } from "~/server/catalog/chapter-access.server";
import { chapterNumber, chapterNumberSql, getChapter } from "~/server/catalog/chapter-numbers.server";
import { getWorkForViewer } from "~/server/catalog/works.server";
import type { SessionUser } from "~/server/identity/session.server";
import { DomainError } from "~/server/platform/errors.server";
import { maskTexts } from "~/server/screening/screening.server";
import type { ChapterMark, ListedMark } from "~/types/reader-marks";
import { pageWithin } from "~/utils/pagination";
import { markStillMatches } from "~/utils/reader-marks";
import { splitParagraphs } from "~/utils/reading";

/**
 * 书签 and 划线 (decision 241): a signed-in reader marks a paragraph of a chapter they may
 * read (a bookmark), or characters of one paragraph (a highlight), with an optional note.
 * Offsets and quotes are of the text as readers see it (替换 words masked, as the reader
 * page shows it). The marks are the reader's alone: every read and delete is by their id.
 * A mark whose quote no longer matches the chapter (the author changed it) is listed as
 * 原文已修改 and not drawn.
 */

type Reader = Pick<SessionUser, "id" | "showR18" | "showAi">;

/** A bookmark keeps this many characters of its paragraph's start, for the lists. */
const BOOKMARK_QUOTE = 60;
const LIST_PAGE_SIZE = 30;

export interface MarkInput {
  workId: number;
  chapterId: number;
  kind: "bookmark" | "highlight";
  paragraph: number;
  /** A highlight of a selection: its offsets in the paragraph and its text; without, the whole paragraph. */
  selection?: { start: number; end: number; quote: string } | null;
  note: string;
}

/** A chapter of the work the reader may read (the reader page's gates), or the refusal. */
async function readableChapter(reader: Reader, workId: number, chapterId: number) {
  const view = await getWorkForViewer(workId, reader);
  if (view.gate !== "ok") throw new DomainError(MARK_MESSAGES.hidden, 403);
  const chapter = await getChapter(view.work.id, chapterId);
  if (!chapter || chapter.state !== "published" || chapter.kind !== "chapter") throw new DomainError(MARK_MESSAGES.chapterMissing, 404);
  if (!view.canReadContent && !(await canReadChapter(view, reader, { id: chapter.id, order: await chapterNumber(db, chapter) }))) {
    throw new DomainError(MARK_MESSAGES.locked, 403);
  }
  return chapter;
}

/** The paragraph as readers see it, or null when the chapter has no such paragraph. */
async function shownParagraph(content: string, index: number): Promise<string | null> {
  const all = splitParagraphs(content);
  if (!Number.isSafeInteger(index) || index < 0 || index >= all.length) return null;
  const [text] = await maskTexts([all[index]]);
  return text;
}

/** 加书签 / 划线: adds the mark, or on a place already marked sets its note (a form sent twice adds nothing). */
export async function addMark(reader: Reader, input: MarkInput): Promise<{ id: number }> {
  const note = input.note.trim();
  if (Array.from(note).length > MARK_NOTE_MAX) throw new DomainError(MARK_MESSAGES.noteTooLong, 400, "note");
  const chapter = await readableChapter(reader, input.workId, input.chapterId);
  const text = await shownParagraph(chapter.content, input.paragraph);
  if (text === null) throw new DomainError(MARK_MESSAGES.paragraphMissing, 400);

  let start = 0;
  let end = 0;
  let quote = Array.from(text).slice(0, BOOKMARK_QUOTE).join("");
  if (input.kind === "highlight") {
    const selection = input.selection;
    if (!selection) {
      end = text.length;
      quote = text;
    } else {
      ({ start, end } = selection);
      if (!selection.quote.trim()) throw new DomainError(MARK_MESSAGES.quoteEmpty, 400);
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start || end > text.length || text.slice(start, end) !== selection.quote) {
        throw new DomainError(MARK_MESSAGES.quoteMismatch, 400);
      }
      quote = selection.quote;
    }
  }

  return db.transaction(async (tx) => {
    // One reader's adds in turn, so the limit holds when two arrive at once.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, reader.id)).for("update");
    const place = and(
      eq(readerMarks.userId, reader.id),
      eq(readerMarks.chapterId, chapter.id),
      eq(readerMarks.kind, input.kind),
      eq(readerMarks.paragraph, input.paragraph),
      eq(readerMarks.startOffset, start),
      eq(readerMarks.endOffset, end),
    );
    const [existing] = await tx.select({ id: readerMarks.id }).from(readerMarks).where(place);
    if (existing) {
      await tx.update(readerMarks).set({ note, quote, updatedAt: new Date() }).where(eq(readerMarks.id, existing.id));
      return { id: existing.id };
    }
    const [{ n }] = await tx
      .select({ n: count() })
      .from(readerMarks)
      .where(and(eq(readerMarks.userId, reader.id), eq(readerMarks.workId, chapter.workId)));
    if (n >= MARKS_PER_WORK) throw new DomainError(MARK_MESSAGES.tooMany, 409);
    const [row] = await tx
      .insert(readerMarks)
      .values({ userId: reader.id, workId: chapter.workId, chapterId: chapter.id, kind: input.kind, paragraph: input.paragraph, startOffset: start, endOffset: end, quote, note })
      .returning({ id: readerMarks.id });
    return { id: row.id };
  });
}

/** 删除: only the reader's own mark; another's or a missing one is 404. */
export async function removeMark(userId: string, id: number): Promise<void> {
  if (!Number.isSafeInteger(id) || id <= 0) throw new DomainError(MARK_MESSAGES.missing, 404);
  const gone = await db
    .delete(readerMarks)
    .where(and(eq(readerMarks.id, id), eq(readerMarks.userId, userId)))
    .returning({ id: readerMarks.id });
  if (gone.length === 0) throw new DomainError(MARK_MESSAGES.missing, 404);
}

const markColumns = {
  id: readerMarks.id,
  kind: readerMarks.kind,
  paragraph: readerMarks.paragraph,
  start: readerMarks.startOffset,
  end: readerMarks.endOffset,
  quote: readerMarks.quote,
  note: readerMarks.note,
};

/** The reader's marks in a chapter the page shows them (the page has checked they may read it). */
export async function marksForChapter(userId: string, chapterId: number): Promise<ChapterMark[]> {
  return db
    .select(markColumns)
    .from(readerMarks)
    .where(and(eq(readerMarks.userId, userId), eq(readerMarks.chapterId, chapterId)))
    .orderBy(readerMarks.paragraph, readerMarks.startOffset, readerMarks.id);
}

export function markHref(workId: number, chapterOrder: number, paragraph: number): string {
  return `/works/${workId}?chapter=${chapterOrder}${paragraph > 0 ? `&from=${paragraph}` : ""}#p-${paragraph}`;
}

export interface MarksPage {
  marks: ListedMark[];
  total: number;
  page: number;
  pageCount: number;
}

/**
 * A page of the reader's marks, newest first; of one work when `workId` is given. A work
 * taken private (unless the reader's own) is left out, as in 阅读记录. Each mark is checked
 * against its chapter's text now: 原文已修改 when it no longer matches.
 */
export async function listMarks(reader: Reader, requested: number, workId?: number): Promise<MarksPage> {
  const where = and(
    eq(readerMarks.userId, reader.id),
    workId === undefined ? undefined : eq(readerMarks.workId, workId),
    or(ne(works.visibility, "private"), eq(works.userId, reader.id)),
  );
  const [{ total }] = await db
    .select({ total: count() })
    .from(readerMarks)
    .innerJoin(works, eq(works.id, readerMarks.workId))
    .where(where);
  const { page, pageCount } = pageWithin(requested, total, LIST_PAGE_SIZE);
  const rows = await db
    .select({
      ...markColumns,
      workId: readerMarks.workId,
      chapterId: readerMarks.chapterId,
      workTitle: works.title,
      chapterTitle: chapters.title,
      chapterOrder: chapterNumberSql(chapters.workId, chapters.position, chapters.id),
      published: sql<boolean>`${chapters.state} = 'published' and ${chapters.kind} = 'chapter'`,
      createdAt: readerMarks.createdAt,
    })
    .from(readerMarks)
    .innerJoin(works, eq(works.id, readerMarks.workId))
    .innerJoin(chapters, eq(chapters.id, readerMarks.chapterId))
    .where(where)
    .orderBy(desc(readerMarks.createdAt), desc(readerMarks.id))
    .limit(LIST_PAGE_SIZE)
    .offset((page - 1) * LIST_PAGE_SIZE);
  const chapterIds = [...new Set(rows.map((r) => r.chapterId))];
  const contents = chapterIds.length
    ? await db.select({ id: chapters.id, content: chapters.content }).from(chapters).where(inArray(chapters.id, chapterIds))
    : [];
  const paragraphsOf = new Map(contents.map((c) => [c.id, splitParagraphs(c.content)]));
  const marks: ListedMark[] = [];
  for (const r of rows) {
    const raw = paragraphsOf.get(r.chapterId)?.[r.paragraph];
    const [shown] = raw === undefined ? [undefined] : await maskTexts([raw]);
    marks.push({
      id: r.id,
      kind: r.kind,
      paragraph: r.paragraph,
      start: r.start,
      end: r.end,
      quote: r.quote,
      note: r.note,
      workId: r.workId,
      workTitle: r.workTitle,
      chapterTitle: r.chapterTitle,
      chapterOrder: r.chapterOrder,
      href: markHref(r.workId, r.chapterOrder, r.paragraph),
      changed: !r.published || !markStillMatches(r, shown),
      createdAt: new Date(r.createdAt).toISOString(),
    });
  }
  return { marks, total, page, pageCount };
}

/**
 * The page behind a paragraph's 书签 link (no JavaScript needed): the paragraph as
 * readers see it and the chapter, after the same checks as adding.
 */
export async function markablePlace(reader: Reader, workId: number, chapterId: number, paragraph: number) {
  const chapter = await readableChapter(reader, workId, chapterId);
  const text = await shownParagraph(chapter.content, paragraph);
  if (text === null) throw new DomainError(MARK_MESSAGES.paragraphMissing, 404);
  const order = await chapterNumber(db, chapter);
  return { chapter: { id: chapter.id, title: chapter.title, order }, paragraph, text };
}
