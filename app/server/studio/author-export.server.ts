import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters, profiles, volumes } from "~/db/schema";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { WORK_MESSAGES } from "~/schemas/work";
import { safeFileName, webStreamFrom } from "~/server/platform/download.server";
import { aiLabelLines, labelledChapterNumbers } from "~/server/catalog/ai-labels.server";
import { DomainError } from "~/server/platform/errors.server";
import { DEFAULT_CHAPTER_SEPARATOR } from "./txt-import.server";
import { getOwnedWork, type Work } from "~/server/catalog/works.server";

/**
 * The author's own downloads of a work (docs/product.md#author-studio, decision 098): TXT
 * in the import format here, EPUB in epub.server.ts. Owner only: anyone else (a visitor
 * too) gets the 404 of a missing work. Both read the work in batches, in the reader's
 * order, with the volume headings in their places, so a long novel never sits in memory.
 */

/** Chapters read per query: 100 chapters of a 10 MB novel are about 350 KB. */
const BATCH = 100;

export interface ExportOptions {
  /** With 存稿 and 定时 chapters too (with text); published chapters only by default. */
  drafts: boolean;
  /** Only these chapters (a reader's copy of a work sold by chapter: the free and bought ones). */
  chapterIds?: number[];
}

export interface OwnWorkExport {
  work: Work;
  author: string;
  /** The exported chapters that carry an AI label, numbered among them (decision 126). */
  labelled: { n: number; level: "assisted" | "generated" }[];
  /** Chapters the file will hold. */
  chapterCount: number;
  options: ExportOptions;
}

/** A volume heading (only before a chapter that is exported) or a chapter, in order. */
export type WorkSection =
  | { kind: "volume"; title: string }
  | { kind: "chapter"; title: string; content: string; authorNote: string; aiLevel: "none" | "assisted" | "generated" };

export interface WorkDownload {
  filename: string;
  asciiFilename: string;
  contentType: string;
  body: ReadableStream<Uint8Array>;
}

const hasText = sql`btrim(${chapters.content}, E' \\t\\r\\n\\u3000') <> ''`;
const statesFor = (options: ExportOptions) =>
  inArray(chapters.state, options.drafts ? (["published", "draft", "scheduled", "review"] as const) : (["published"] as const));

/**
 * The checks, before any byte is sent (so a refusal is a response, not a broken file):
 * the user's own work (else 404 作品不存在, whoever asks) with at least one chapter to export.
 */
export async function prepareOwnWorkExport(userId: string | null, workId: number, options: ExportOptions): Promise<OwnWorkExport> {
  if (!userId) throw new DomainError(WORK_MESSAGES.notFound, 404);
  const work = await getOwnedWork(userId, workId);
  const exported = and(eq(chapters.workId, work.id), statesFor(options), hasText)!;
  const [[profile], [{ n }], labelled] = await Promise.all([
    db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, userId)),
    db.select({ n: sql<number>`count(*)::int` }).from(chapters).where(exported),
    labelledChapterNumbers(db, exported),
  ]);
  if (n === 0) throw new DomainError(STUDIO_MESSAGES.exportEmpty, 404);
  return { work, author: profile?.nickname ?? "", labelled, chapterCount: n, options };
}

/**
 * The work's volumes and chapters in order (decision 080: a chapter belongs to the last
 * volume heading before it), read BATCH chapters at a time by keyset over (position, id).
 * A volume is yielded just before its first exported chapter; empty volumes are left out.
 */
export async function* workSections(prepared: OwnWorkExport): AsyncGenerator<WorkSection> {
  const workId = prepared.work.id;
  const heads = await db
    .select({ title: volumes.title, position: volumes.position })
    .from(volumes)
    .where(eq(volumes.workId, workId))
    .orderBy(asc(volumes.position), asc(volumes.id));
  let h = 0;
  let after: { position: number; id: number } | null = null;
  for (;;) {
    const rows: { id: number; position: number; title: string; content: string; authorNote: string; aiLevel: "none" | "assisted" | "generated" }[] = await db
      .select({ id: chapters.id, position: chapters.position, title: chapters.title, content: chapters.content, authorNote: chapters.authorNote, aiLevel: chapters.aiLevel })
      .from(chapters)
      .where(
        and(
          eq(chapters.workId, workId),
          statesFor(prepared.options),
          hasText,
          prepared.options.chapterIds ? inArray(chapters.id, prepared.options.chapterIds) : undefined,
          after ? sql`(${chapters.position}, ${chapters.id}) > (${after.position}, ${after.id})` : undefined,
        ),
      )
      .orderBy(asc(chapters.position), asc(chapters.id))
      .limit(BATCH);
    if (rows.length === 0) return;
    for (const row of rows) {
      let volume: (typeof heads)[number] | null = null;
      while (h < heads.length && heads[h].position < row.position) volume = heads[h++];
      if (volume) yield { kind: "volume", title: volume.title };
      yield { kind: "chapter", title: row.title, content: row.content, authorNote: row.authorNote, aiLevel: row.aiLevel };
    }
    const last = rows[rows.length - 1];
    after = { position: last.position, id: last.id };
  }
}

/** An async iterable as a download body: pulled on demand, stopped when the download is cancelled. */
function downloadStream(chunks: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return webStreamFrom({
    [Symbol.asyncIterator]: () => chunks,
    destroy: () => void chunks.return(undefined).catch(() => {}),
  });
}

/** The download's names: the title (Chinese, RFC 5987 filename*) and work-<id> for old clients. */
export function downloadNames(work: Work, ext: string): { filename: string; asciiFilename: string } {
  return { filename: `${safeFileName(work.title, `work-${work.id}`)}.${ext}`, asciiFilename: `work-${work.id}.${ext}` };
}

// ---- TXT ------------------------------------------------------------------------------

const SEP = DEFAULT_CHAPTER_SEPARATOR;
const SEP_AT_LINE_START = new RegExp(`(^|\\r\\n?|\\n)(?=${SEP.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")})`, "g");

/**
 * A line that begins with the separator would start a chapter on import: it is written
 * indented by one full-width space (the importer takes only column-one separators). The
 * one change the round trip makes to a text (decision 098).
 */
function unseparated(text: string): string {
  return text.replace(SEP_AT_LINE_START, "$1\u3000");
}

/**
 * The header before the first separator (the importer skips it): title, author and
 * description, and how to import the file again.
 */
function txtHeader(prepared: OwnWorkExport): string {
  const { work, author } = prepared;
  const lines = [`《${work.title}》`];
  if (author) lines.push(`作者：${author}`);
  // The AI label, visible and as metadata (decision 126), before the first separator.
  lines.push(...aiLabelLines(work, prepared.labelled));
  if (work.description.trim()) lines.push("", unseparated(work.description.trim()));
  lines.push("", `（本文件可在砚台“发布作品”中以TXT导入，章节分隔符为 ${SEP}）`, "");
  return `${lines.join("\n")}\n`;
}

/**
 * One section as the importer reads it: a chapter is the separator line, its title line
 * and its text; a volume is a separator line carrying the volume's title and nothing
 * under it, which the importer drops as a chapter without content (so the chapters come
 * back the same, and a person reading the file still sees the volumes).
 */
function txtSection(section: WorkSection): string {
  if (section.kind === "volume") return `\n${SEP} ${section.title.trim()}\n`;
  const title = section.title.trim().startsWith(SEP) ? `\u3000${section.title.trim()}` : section.title.trim();
  return `\n${SEP}\n${title}\n${unseparated(section.content)}\n`;
}

async function* txtChunks(prepared: OwnWorkExport): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  yield encoder.encode(txtHeader(prepared));
  let text = "";
  for await (const section of workSections(prepared)) {
    text += txtSection(section);
    if (text.length >= 64 * 1024) {
      yield encoder.encode(text);
      text = "";
    }
  }
  if (text) yield encoder.encode(text);
}

/** The owner's TXT download: every chapter in order, in the import format (decision 098). */
export async function exportOwnWorkTxt(userId: string | null, workId: number, options: ExportOptions): Promise<WorkDownload> {
  const prepared = await prepareOwnWorkExport(userId, workId, options);
  return {
    ...downloadNames(prepared.work, "txt"),
    contentType: "text/plain; charset=utf-8",
    body: downloadStream(txtChunks(prepared)),
  };
}
