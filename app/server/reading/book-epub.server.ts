import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapterPurchases, chapters } from "~/db/schema";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { DomainError, domainErrorOf } from "~/server/platform/errors.server";
import { READER_MESSAGES } from "./reader.server";
import { labelledChapterNumbers } from "~/server/catalog/ai-labels.server";
import { isByChapter } from "~/server/catalog/chapter-access.server";
import { epubDownload } from "~/server/studio/work-epub.server";
import type { WorkDownload } from "~/server/studio/author-export.server";
import { getWorkForViewer, type Viewer } from "~/server/catalog/works.server";
import { readyScreening } from "~/server/screening/screening.server";

/**
 * A reader's EPUB (docs/decisions/123): the published chapters the reader may read (all of
 * a free work or one they bought; of a work sold by chapter, the free 试读 chapters and the
 * ones they bought), as EPUB 3 from the author export's writer, streamed, with the
 * reader's id in its metadata. The owner has the studio's export. The same checks as the
 * reader page: missing or private is 404, an R-18 work behind the reader's setting or an
 * unbought paid work is 403, and no byte of the book is sent.
 */
export async function exportReaderEpub(viewer: NonNullable<Viewer>, workId: number, signal?: AbortSignal): Promise<WorkDownload> {
  const { view, chapterIds } = await readerCopy(viewer, workId);
  const exported = and(
    eq(chapters.workId, workId),
    eq(chapters.state, "published"),
    eq(chapters.kind, "chapter"),
    sql`btrim(${chapters.content}, E' \\t\\r\\n\\u3000') <> ''`,
    chapterIds ? inArray(chapters.id, chapterIds) : undefined,
  )!;
  const [[{ n }], labelled] = await Promise.all([
    db.select({ n: sql<number>`count(*)::int` }).from(chapters).where(exported),
    // The AI labels travel into the reader's copy too (decision 126).
    labelledChapterNumbers(db, exported),
  ]);
  if (n === 0) throw new DomainError(STUDIO_MESSAGES.exportEmpty, 404);
  const prepared = { work: view.work, author: view.author.nickname, labelled, chapterCount: n, options: { drafts: false, chapterIds } };
  // The copy masks 替换 words as it is written: the matcher first, outside the book's reads (PGlite has one connection).
  await readyScreening();
  return epubDownload(prepared, { id: viewer.id }, signal);
}

/** Whose copy and of which chapters (all when undefined); refused as exportReaderEpub says. */
async function readerCopy(viewer: NonNullable<Viewer>, workId: number) {
  const view = await getWorkForViewer(workId, viewer);
  if (view.gate !== "ok") throw new DomainError(READER_MESSAGES.hidden, 403);
  const chapterIds = view.canReadContent ? undefined : await readableChapterIds(view.work, viewer.id);
  if (chapterIds?.length === 0) throw new DomainError(READER_MESSAGES.locked, 403);
  return { view, chapterIds };
}

/**
 * Whether exportReaderEpub would give the viewer a copy of the work: the same checks, asked
 * by the reading apps' library (opds.server.ts) for each work it lists, so that the list
 * and the download follow one rule (decision 201).
 */
export async function mayDownloadReaderEpub(viewer: NonNullable<Viewer>, workId: number): Promise<boolean> {
  try {
    await readerCopy(viewer, workId);
    return true;
  } catch (error) {
    if (domainErrorOf(error)) return false;
    throw error;
  }
}

/**
 * Of a work the reader may not read whole: the published chapters they may read, the free
 * ones before `vipFrom` and those they bought (kept if the work later changes how it is
 * sold, as on the reader page). None for a work sold only whole.
 */
async function readableChapterIds(work: Parameters<typeof isByChapter>[0] & { id: number }, userId: string): Promise<number[]> {
  const bought = await db.select({ id: chapterPurchases.chapterId }).from(chapterPurchases).where(and(eq(chapterPurchases.userId, userId), eq(chapterPurchases.workId, work.id)));
  const free = isByChapter(work)
    ? await db
        .select({ id: chapters.id })
        .from(chapters)
        .where(and(eq(chapters.workId, work.id), eq(chapters.state, "published"), eq(chapters.kind, "chapter")))
        .orderBy(asc(chapters.position), asc(chapters.id))
        .limit(work.vipFrom - 1)
    : [];
  return [...new Set([...free, ...bought].map((row) => Number(row.id)))];
}
