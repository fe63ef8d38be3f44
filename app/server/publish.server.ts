import { and, eq, lt } from "drizzle-orm";
import { db } from "~/db/client.server";
import { txtImports } from "~/db/schema";
import { DEFAULT_SEPARATOR, WORK_MESSAGES, type PublishInput } from "~/schemas/work";
import { countWords } from "~/utils/text";
import { DomainError } from "./errors.server";
import { uploadBytes, type Upload } from "./form-data.server";
import { deleteStoredImage, ImageError, storeCover } from "./images.server";
import { readTxtChapters, streamTxtChapters, TxtImportError, type TxtBytes } from "./txt.server";
import { createWork, type ChapterInput, type Work } from "./works.server";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TxtPreview {
  token: string;
  fileName: string;
  separator: string;
  chapters: { title: string; wordCount: number }[];
  totalWords: number;
}

/** A TxtImportError's message as the TXT field's error. */
function asFieldError(error: unknown): unknown {
  return error instanceof TxtImportError ? new DomainError(error.message, 400, "txt") : error;
}

/** Decodes and splits a TXT; TxtImportError messages become field errors. */
export function parseTxtFile(bytes: TxtBytes, separator: string): { title: string; content: string; wordCount: number }[] {
  try {
    return readTxtChapters(bytes, separator || DEFAULT_SEPARATOR);
  } catch (error) {
    throw asFieldError(error);
  }
}

/**
 * A TXT's chapters as they are parsed, for storing them batch by batch (the whole text
 * and the whole chapter list never exist at once). The file's bytes are checked now;
 * what only the end of the file can tell (no chapters, not text after all) is thrown
 * while iterating, inside the publishing transaction, which it rolls back.
 */
function streamTxtFile(bytes: TxtBytes, separator: string): Iterable<ChapterInput> {
  let chapters: Iterable<ChapterInput>;
  try {
    chapters = streamTxtChapters(bytes, separator || DEFAULT_SEPARATOR);
  } catch (error) {
    throw asFieldError(error);
  }
  return (function* () {
    try {
      yield* chapters;
    } catch (error) {
      throw asFieldError(error);
    }
  })();
}

/**
 * Parses an uploaded TXT and keeps the result for the publish step, so the author sees
 * the chapter list (titles, count, words) before publishing, with or without JavaScript.
 */
export async function previewTxt(userId: string, file: Upload, separator: string): Promise<TxtPreview> {
  const sep = separator || DEFAULT_SEPARATOR;
  const parsed = parseTxtFile(file.chunks, sep);
  // Forget this user's drafts older than a day.
  await db.delete(txtImports).where(and(eq(txtImports.userId, userId), lt(txtImports.createdAt, new Date(Date.now() - 86_400_000))));
  const [row] = await db
    .insert(txtImports)
    .values({
      userId,
      fileName: file.name.slice(0, 200),
      separator: sep,
      chapters: parsed.map(({ title, content }) => ({ title, content })),
    })
    .returning({ id: txtImports.id });
  return {
    token: row.id,
    fileName: file.name,
    separator: sep,
    chapters: parsed.map(({ title, wordCount }) => ({ title, wordCount })),
    totalWords: parsed.reduce((n, c) => n + c.wordCount, 0),
  };
}

/** The preview of a staged import (for re-rendering the form after a failed publish). */
export async function getTxtPreview(userId: string, token: string): Promise<TxtPreview | null> {
  const row = await loadImport(userId, token);
  if (!row) return null;
  const chapters = row.chapters.map((c) => ({ title: c.title, wordCount: countWords(c.content) }));
  return {
    token: row.id,
    fileName: row.fileName,
    separator: row.separator,
    chapters,
    totalWords: chapters.reduce((n, c) => n + c.wordCount, 0),
  };
}

async function loadImport(userId: string, token: string) {
  if (!UUID.test(token)) return null;
  const [row] = await db
    .select()
    .from(txtImports)
    .where(and(eq(txtImports.id, token), eq(txtImports.userId, userId)));
  return row ?? null;
}

export interface PublishFiles {
  cover: Upload | null;
  txt: Upload | null;
}

/** The chapters a publish creates, by type (user-side.md section 5, "Publish"). */
async function chaptersFor(userId: string, input: PublishInput, files: PublishFiles): Promise<Iterable<ChapterInput>> {
  if (input.type === "single_chapter") return [{ title: "正文", content: input.content ?? "" }];
  if (input.type === "series") {
    return [{ title: input.chapterTitle?.trim() ?? "", content: input.chapterContent ?? "" }];
  }
  if (files.txt) return streamTxtFile(files.txt.chunks, input.separator ?? DEFAULT_SEPARATOR);
  const staged = input.importToken ? await loadImport(userId, input.importToken) : null;
  if (!staged) throw new DomainError(WORK_MESSAGES.txt, 400, "txt");
  return staged.chapters;
}

/** Publishes a work from the wizard: chapters, cover, then one transaction for the rows. */
export async function publishWork(userId: string, input: PublishInput, files: PublishFiles): Promise<Work> {
  const chapterList = await chaptersFor(userId, input, files);
  let coverUrl: string | null = null;
  if (files.cover) {
    try {
      coverUrl = await storeCover(userId, uploadBytes(files.cover));
    } catch (error) {
      if (error instanceof ImageError) throw new DomainError(error.message, 400, "cover");
      throw error;
    }
  }
  let work: Work;
  try {
    work = await createWork(userId, input, chapterList, coverUrl);
  } catch (error) {
    // A TXT refused at its end (or any failure) leaves no cover behind either.
    await deleteStoredImage(coverUrl).catch(() => {});
    throw error;
  }
  if (input.type === "multi_chapter" && input.importToken && UUID.test(input.importToken)) {
    await db.delete(txtImports).where(and(eq(txtImports.id, input.importToken), eq(txtImports.userId, userId)));
  }
  return work;
}
