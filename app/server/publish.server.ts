import { and, eq, lt } from "drizzle-orm";
import { db } from "~/db/client.server";
import { txtImports } from "~/db/schema";
import { DEFAULT_SEPARATOR, WORK_MESSAGES, type PublishInput } from "~/schemas/work";
import { countWords } from "~/utils/text";
import { DomainError } from "./errors.server";
import { ImageError, storeCover } from "./images.server";
import { readTxtChapters, TxtImportError } from "./txt.server";
import { createWork, type ChapterInput, type Work } from "./works.server";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TxtPreview {
  token: string;
  fileName: string;
  separator: string;
  chapters: { title: string; wordCount: number }[];
  totalWords: number;
}

/** Decodes and splits a TXT; TxtImportError messages become field errors. */
export function parseTxtFile(bytes: Uint8Array, separator: string): { title: string; content: string; wordCount: number }[] {
  try {
    return readTxtChapters(bytes, separator || DEFAULT_SEPARATOR);
  } catch (error) {
    if (error instanceof TxtImportError) throw new DomainError(error.message, 400, "txt");
    throw error;
  }
}

/**
 * Parses an uploaded TXT and keeps the result for the publish step, so the author sees
 * the chapter list (titles, count, words) before publishing, with or without JavaScript.
 */
export async function previewTxt(userId: string, file: File, separator: string): Promise<TxtPreview> {
  const sep = separator || DEFAULT_SEPARATOR;
  const parsed = parseTxtFile(new Uint8Array(await file.arrayBuffer()), sep);
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
  cover: File | null;
  txt: File | null;
}

/** The chapters a publish creates, by type (user-side.md section 5, "Publish"). */
async function chaptersFor(userId: string, input: PublishInput, files: PublishFiles): Promise<ChapterInput[]> {
  if (input.type === "single_chapter") return [{ title: "正文", content: input.content ?? "" }];
  if (input.type === "series") {
    return [{ title: input.chapterTitle?.trim() ?? "", content: input.chapterContent ?? "" }];
  }
  if (files.txt) return parseTxtFile(new Uint8Array(await files.txt.arrayBuffer()), input.separator ?? DEFAULT_SEPARATOR);
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
      coverUrl = await storeCover(userId, new Uint8Array(await files.cover.arrayBuffer()));
    } catch (error) {
      if (error instanceof ImageError) throw new DomainError(error.message, 400, "cover");
      throw error;
    }
  }
  const work = await createWork(userId, input, chapterList, coverUrl);
  if (input.type === "multi_chapter" && input.importToken && UUID.test(input.importToken)) {
    await db.delete(txtImports).where(and(eq(txtImports.id, input.importToken), eq(txtImports.userId, userId)));
  }
  return work;
}
