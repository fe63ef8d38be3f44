import { and, eq, sql } from "drizzle-orm";
import { notifyAuthorFollowers } from "~/server/community/author-follows.server";
import { assertCategory } from "~/server/catalog/categories.server";
import { db, type Executor } from "~/db/client.server";
import { chapters as chapterRows, txtImports } from "~/db/schema";
import { DEFAULT_SEPARATOR, WORK_MESSAGES, type PublishInput } from "~/schemas/work";
import { countWords } from "~/utils/text";
import { insertJsonBatches, rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { uploadBytes, type Upload } from "~/server/platform/form-data.server";
import { deleteStoredImage, ImageError, storeCover } from "~/server/platform/images.server";
import { streamTxtChapters, TxtImportError, type ParsedChapter, type TxtBytes } from "./txt-import.server";
import { GAP } from "~/server/catalog/chapter-positions.server";
import { createWork, getOwnedWork, type ChapterInput, type ChapterInserter, type Work } from "~/server/catalog/works.server";
import { oncePerFormToken, type RecordResult } from "~/server/platform/form-tokens.server";
import { fieldScreener, refuseForbidden, type FieldScreener } from "~/server/screening/screening.server";
import { maskWorkFields, workFields } from "./settings.server";
import { isOnlyInvisible } from "~/server/screening/matcher.server";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { settleNewWork } from "./review.server";
import { settleNewWorkListing } from "./work-review.server";
import { readyScreening } from "~/server/screening/screening.server";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TxtPreview {
  token: string;
  fileName: string;
  separator: string;
  chapters: { title: string; wordCount: number }[];
  totalWords: number;
}

/**
 * A staged import is kept for a day (TXT_IMPORT_LIFETIME): long enough to publish it,
 * then deleted whoever staged it. SQL text, shared with the database export, which
 * leaves out expired ones that are not deleted yet.
 */
const TXT_IMPORT_LIFETIME = "24 hours";
export const LIVE_TXT_IMPORT = `created_at > now() - interval '${TXT_IMPORT_LIFETIME}'`;

/**
 * Deletes every user's staged imports older than TXT_IMPORT_LIFETIME; how many. Run on
 * each preview and by the server every hour (startHourlyCleanup, cleanup.server.ts). Any number of
 * processes may run it at once: a row two of them both delete is deleted once, the
 * other skips it.
 */
export async function deleteExpiredTxtImports(executor: Executor = db): Promise<number> {
  const deleted = await executor.execute(sql`delete from ${txtImports} where not (${sql.raw(LIVE_TXT_IMPORT)}) returning 1`);
  return rowsOf(deleted).length;
}

/** A TxtImportError's message as the TXT field's error. */
function asFieldError(error: unknown): unknown {
  return error instanceof TxtImportError ? new DomainError(error.message, 400, "txt") : error;
}

/**
 * A TXT's chapters as they are parsed, for storing them batch by batch (the whole text
 * and the whole chapter list never exist at once). The file's bytes are checked now;
 * what only the end of the file can tell (no chapters, not text after all) is thrown
 * while iterating, inside the publishing transaction, which it rolls back.
 */
function streamTxtFile(bytes: TxtBytes, separator: string, screen: FieldScreener): Iterable<ParsedChapter> {
  let chapters: Iterable<ParsedChapter>;
  try {
    chapters = streamTxtChapters(bytes, separator || DEFAULT_SEPARATOR);
  } catch (error) {
    throw asFieldError(error);
  }
  return (function* () {
    try {
      // Each chapter screened as it is parsed: a 禁止 word refuses the whole file (docs/product.md#screening).
      let n = 0;
      for (const chapter of chapters) {
        n++;
        const title = screen({ label: `第${n}章的标题`, field: "txt", text: chapter.title }).masked;
        screen({ label: `第${n}章「${chapter.title}」的正文`, field: "txt", text: chapter.content });
        // A title is stored as readers will see it: its 替换 words masked (decision 237).
        yield { ...chapter, title };
      }
    } catch (error) {
      throw asFieldError(error);
    }
  })();
}

/**
 * Parses an uploaded TXT and keeps the result for the publish step, so the author sees
 * the chapter list (titles, count, words) before publishing, with or without JavaScript.
 * The chapters go to a temporary table in small batches as they are parsed, and the
 * database builds the staged row's JSON from it, all in one transaction: the whole
 * chapter list and its JSON never exist in this process.
 */
export async function previewTxt(userId: string, file: Upload, separator: string): Promise<TxtPreview> {
  const sep = separator || DEFAULT_SEPARATOR;
  const parsed = streamTxtFile(file.chunks, sep, await fieldScreener());
  const chapters: { title: string; wordCount: number }[] = [];
  const token = await db.transaction(async (tx) => {
    await deleteExpiredTxtImports(tx);
    await tx.execute(sql`create temporary table staged_chapter (n int, title text, content text, word_count int) on commit drop`);
    const staged = (function* () {
      for (const { title, content, wordCount } of parsed) {
        chapters.push({ title, wordCount });
        yield { n: chapters.length - 1, title, content, word_count: wordCount };
      }
    })();
    await insertJsonBatches(
      staged,
      (r) => r.content.length,
      (json) =>
        tx.execute(sql`
          insert into staged_chapter select r.n, r.title, r.content, r.word_count
          from jsonb_to_recordset(${json}::jsonb) as r(n int, title text, content text, word_count int)`),
    );
    const inserted = await tx.execute(sql`
      insert into ${txtImports} (user_id, file_name, separator, chapters)
      select ${userId}, ${file.name.slice(0, 200)}, ${sep},
        (select jsonb_agg(jsonb_build_object('title', title, 'content', content, 'wordCount', word_count) order by n) from staged_chapter)
      returning id`);
    return rowsOf<{ id: string }>(inserted)[0].id;
  });
  return {
    token,
    fileName: file.name,
    separator: sep,
    chapters,
    totalWords: chapters.reduce((n, c) => n + c.wordCount, 0),
  };
}

/**
 * The preview of a staged import (for re-rendering the form after a failed publish):
 * titles and word counts only, read from the staged JSON without its contents (imports
 * staged before word counts were kept there have theirs counted from the content).
 */
export async function getTxtPreview(userId: string, token: string): Promise<TxtPreview | null> {
  const row = await stagedImport(userId, token);
  if (!row) return null;
  const rows = rowsOf<{ title: string; word_count: number | null; content: string | null }>(
    await db.execute(sql`
      select e.value->>'title' as title, (e.value->>'wordCount')::int as word_count,
        case when e.value ? 'wordCount' then null else e.value->>'content' end as content
      from ${txtImports} t cross join lateral jsonb_array_elements(t.chapters) with ordinality as e(value, n)
      where t.id = ${row.id}
      order by e.n`),
  );
  const chapters = rows.map((c) => ({ title: c.title, wordCount: c.word_count ?? countWords(c.content ?? "") }));
  return {
    token: row.id,
    fileName: row.fileName,
    separator: row.separator,
    chapters,
    totalWords: chapters.reduce((n, c) => n + c.wordCount, 0),
  };
}

/** The staged import's file name and separator if `userId` staged it (not its chapters). */
async function stagedImport(userId: string, token: string) {
  if (!UUID.test(token)) return null;
  const [row] = await db
    .select({ id: txtImports.id, fileName: txtImports.fileName, separator: txtImports.separator })
    .from(txtImports)
    .where(and(eq(txtImports.id, token), eq(txtImports.userId, userId), sql.raw(LIVE_TXT_IMPORT)));
  return row ?? null;
}

/**
 * Inserts a staged import's chapters straight from its JSON, in one statement that also
 * deletes the staged row: the text never comes to this process (about 12 MB for a 10 MB
 * GB18030 TXT, and as much again in the JSON batches it would be sent back in). Imports
 * staged before word counts were kept in the JSON (none is more than a day old) are read
 * as rows and inserted as parsed chapters instead, so their counts come from countWords
 * as always.
 */
async function stagedChapters(userId: string, token: string): Promise<ChapterInserter | ChapterInput[] | null> {
  if (!UUID.test(token)) return null;
  // The staged row if `userId` staged it (gone: published meanwhile by a second
  // submission of the form), and whether every chapter has its word count.
  const [row] = await db
    .select({ id: txtImports.id, counted: sql<boolean | null>`not jsonb_path_exists(${txtImports.chapters}, '$[*] ? (!exists(@.wordCount))')` })
    .from(txtImports)
    .where(and(eq(txtImports.id, token), eq(txtImports.userId, userId), sql.raw(LIVE_TXT_IMPORT)));
  if (!row) return null;
  if (row.counted) {
    // The staged row is used up in the work's transaction: a second submission of the
    // same form waits for the first and then finds nothing (a failed publish keeps it).
    return async (tx, workId) => {
      const [{ n }] = rowsOf<{ n: number }>(
        await tx.execute(sql`
          with staged as (
            delete from ${txtImports} where id = ${row.id} and user_id = ${userId} returning chapters
          ), inserted as (
            insert into ${chapterRows} (work_id, title, content, position, word_count)
            select ${workId}, e.value->>'title', e.value->>'content', e.n * ${GAP}, (e.value->>'wordCount')::int
            from staged cross join lateral jsonb_array_elements(staged.chapters) with ordinality as e(value, n)
            returning 1)
          select count(*)::int as n from inserted`),
      );
      if (n === 0) throw new DomainError(WORK_MESSAGES.txt, 400, "txt");
      return n;
    };
  }
  return rowsOf<ChapterInput>(
    await db.execute(sql`
      select e.value->>'title' as title, e.value->>'content' as content
      from ${txtImports} t cross join lateral jsonb_array_elements(t.chapters) with ordinality as e(value, n)
      where t.id = ${row.id}
      order by e.n`),
  );
}

export interface PublishFiles {
  cover: Upload | null;
  txt: Upload | null;
}

/** The chapters a publish creates, by type (docs/product.md: Rules, "Publish"). */
async function chaptersFor(userId: string, input: PublishInput, files: PublishFiles): Promise<Iterable<ChapterInput> | ChapterInserter> {
  const screen = await fieldScreener();
  if (input.type === "single_chapter") {
    if (input.content && isOnlyInvisible(input.content)) throw new DomainError(STUDIO_MESSAGES.contentInvisible, 400, "content");
    screen({ label: "正文", field: "content", text: input.content });
    return [{ title: "正文", content: input.content ?? "" }];
  }
  if (input.type === "series") {
    const title = screen({ label: "章节标题", field: "chapterTitle", text: input.chapterTitle?.trim() }).masked;
    if (input.chapterContent && isOnlyInvisible(input.chapterContent)) throw new DomainError(STUDIO_MESSAGES.contentInvisible, 400, "chapterContent");
    screen({ label: "章节正文", field: "chapterContent", text: input.chapterContent });
    return [{ title, content: input.chapterContent ?? "" }];
  }
  // A staged import was screened when it was previewed (previewTxt).
  if (files.txt) return streamTxtFile(files.txt.chunks, input.separator ?? DEFAULT_SEPARATOR, screen);
  const staged = input.importToken ? await stagedChapters(userId, input.importToken) : null;
  if (!staged) throw new DomainError(WORK_MESSAGES.txt, 400, "txt");
  return staged;
}

/** Publishes a work from the wizard: chapters, cover, then one transaction for the rows. */
export async function publishWork(userId: string, input: PublishInput, files: PublishFiles, formToken: string | null = null): Promise<Work> {
  // The new work's chapters are screened inside its transaction (settleNewWork): the matcher first.
  await readyScreening();
  // The same form sent twice (a double click, a retry after a cut connection) gives the
  // work the first one created (docs/decisions/077).
  return oncePerFormToken(
    userId,
    "publish",
    formToken,
    (record) => publishOnce(userId, input, files, record),
    (workId) => getOwnedWork(userId, Number(workId)),
  );
}

async function publishOnce(userId: string, input: PublishInput, files: PublishFiles, record: RecordResult): Promise<Work> {
  // A 审核 word in the title, description or tags holds the new work's listing (decision 214).
  const metaScreen = await refuseForbidden(workFields(input));
  input = await maskWorkFields(input);
  if (input.categoryId !== undefined && input.categoryId !== null) await assertCategory(input.categoryId);
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
    // The new work's chapters go out at once or wait for review, in its transaction (docs/product.md#review).
    work = await createWork(userId, input, chapterList, coverUrl, async (tx, workId) => {
      await settleNewWork(tx, Number(workId));
      await settleNewWorkListing(tx, Number(workId), metaScreen.held);
      // The author's followers hear of it now unless it is private (held for review too:
      // then they hear on approval, applyWorkMeta; decision 230).
      await notifyAuthorFollowers(tx, Number(workId));
      await record(tx, workId);
    });
  } catch (error) {
    // A TXT refused at its end (or any failure) leaves no cover behind either.
    await deleteStoredImage(coverUrl).catch(() => {});
    throw error;
  }
  // A staged import published from its JSON is gone already; this clears one that was
  // published the old way or replaced by a file sent with the form.
  if (input.type === "multi_chapter" && input.importToken && UUID.test(input.importToken)) {
    await db.delete(txtImports).where(and(eq(txtImports.id, input.importToken), eq(txtImports.userId, userId)));
  }
  return work;
}
