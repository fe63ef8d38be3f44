import { and, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters } from "~/db/schema";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { DomainError } from "../errors.server";
import { READER_MESSAGES } from "../reading.server";
import { labelledChapterNumbers } from "../ai/labels.server";
import { epubDownload } from "../studio/epub.server";
import type { WorkDownload } from "../studio/export.server";
import { getWorkForViewer, type Viewer } from "../works.server";

/**
 * A reader's EPUB (docs/decisions/123): the published chapters of a work the reader may
 * read in full (a free work, or one they bought; the owner has the studio's export), as
 * EPUB 3 from the author export's writer, streamed, with the reader's id in its metadata.
 * The same checks as the reader page: missing or private is 404, an R-18 work behind the
 * reader's setting or an unbought paid work is 403, and no byte of the book is sent.
 */
export async function exportReaderEpub(viewer: NonNullable<Viewer>, workId: number, signal?: AbortSignal): Promise<WorkDownload> {
  const view = await getWorkForViewer(workId, viewer);
  if (view.gate !== "ok") throw new DomainError(READER_MESSAGES.hidden, 403);
  if (!view.canReadContent) throw new DomainError(READER_MESSAGES.locked, 403);
  const exported = and(eq(chapters.workId, workId), eq(chapters.state, "published"), sql`btrim(${chapters.content}, E' \\t\\r\\n\\u3000') <> ''`)!;
  const [[{ n }], labelled] = await Promise.all([
    db.select({ n: sql<number>`count(*)::int` }).from(chapters).where(exported),
    // The AI labels travel into the reader's copy too (decision 126).
    labelledChapterNumbers(db, exported),
  ]);
  if (n === 0) throw new DomainError(STUDIO_MESSAGES.exportEmpty, 404);
  const prepared = { work: view.work, author: view.author.nickname, labelled, chapterCount: n, options: { drafts: false } };
  return epubDownload(prepared, { id: viewer.id }, signal);
}
