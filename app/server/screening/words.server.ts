import { and, asc, count, desc, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { screeningWords } from "~/db/schema";
import {
  SCREENING_CATEGORIES,
  SCREENING_LEVELS,
  SCREENING_LINE_MAX,
  SCREENING_MESSAGES,
  SCREENING_WORD_MAX,
  type ScreeningCategory,
  type ScreeningFilters,
  type ScreeningLevelKey,
} from "~/schemas/screening";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { pgErrorCode, rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { hasControlCharacter } from "~/server/platform/form-data.server";
import { foldWord } from "./matcher.server";
import { announceScreeningChange, reloadScreening } from "./screening.server";

/**
 * The sensitive-word list as the back office edits it (/admin/screening, docs/product.md#screening):
 * list and filter, add, delete, import and export a UTF-8 TXT. Every change is one
 * transaction with its audit row and the `screening` announcement, and this process's
 * matcher is rebuilt before the call returns (the others rebuild when they hear it).
 */

interface ScreeningWordRow {
  id: number;
  word: string;
  category: string;
  level: ScreeningLevelKey;
  createdAt: Date;
}

const PAGE_SIZE = 50;

/** A page of the list, newest first, filtered by a substring, a category and a level. */
export async function listScreeningWords(filters: ScreeningFilters, page: number) {
  const where: SQL[] = [];
  if (filters.q) {
    const like = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const folded = foldWord(filters.q);
    where.push(or(ilike(screeningWords.word, like), folded ? ilike(screeningWords.folded, `%${folded.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined)!);
  }
  if (filters.category) where.push(eq(screeningWords.category, filters.category));
  if (filters.level) where.push(eq(screeningWords.level, filters.level));
  const condition = where.length ? and(...where) : undefined;
  const [{ total }] = await db.select({ total: count() }).from(screeningWords).where(condition);
  const pageCount = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const current = Math.min(Math.max(1, page), pageCount);
  const words: ScreeningWordRow[] = await db
    .select({ id: screeningWords.id, word: screeningWords.word, category: screeningWords.category, level: screeningWords.level, createdAt: screeningWords.createdAt })
    .from(screeningWords)
    .where(condition)
    .orderBy(desc(screeningWords.id))
    .limit(PAGE_SIZE)
    .offset((current - 1) * PAGE_SIZE);
  return { words, total, page: current, pageCount };
}

/** A word as typed, checked: its stored spelling and its folded key (the reason, if refused). */
function checkWord(raw: string): { word: string; folded: string } | { problem: string } {
  const word = raw.normalize("NFC").trim();
  if (!word) return { problem: SCREENING_MESSAGES.word };
  if (Array.from(word).length > SCREENING_WORD_MAX) return { problem: SCREENING_MESSAGES.wordTooLong };
  if (hasControlCharacter(word)) return { problem: SCREENING_MESSAGES.wordBlank };
  const folded = foldWord(word);
  if (!folded) return { problem: SCREENING_MESSAGES.wordBlank };
  return { word, folded };
}

/** Adds one word. A word already listed (in any spelling that folds alike) is refused, naming it. */
export async function addScreeningWord(
  actor: AdminActor,
  input: { word: string; category: ScreeningCategory; level: ScreeningLevelKey },
): Promise<number> {
  const checked = checkWord(input.word);
  if ("problem" in checked) throw new DomainError(checked.problem, 400, "word");
  const id = await db.transaction(async (tx) => {
    const [existing] = await tx.select({ word: screeningWords.word }).from(screeningWords).where(eq(screeningWords.folded, checked.folded));
    if (existing) throw new DomainError(SCREENING_MESSAGES.wordTaken(checked.word, existing.word), 409, "word");
    const [row] = await tx
      .insert(screeningWords)
      .values({ word: checked.word, folded: checked.folded, category: input.category, level: input.level })
      .returning({ id: screeningWords.id });
    await recordAdminAction(tx, actor, {
      action: "screening.add",
      targetType: "screening-word",
      targetId: row.id,
      after: { word: checked.word, category: input.category, level: SCREENING_LEVELS[input.level] },
    });
    await announceScreeningChange(tx);
    return row.id;
  }).catch((error) => {
    // Two administrators adding the same word at once: the second reads the same message.
    if (pgErrorCode(error) === "23505") throw new DomainError(SCREENING_MESSAGES.wordTaken(checked.word, checked.word), 409, "word");
    throw error;
  });
  await reloadScreening();
  return id;
}

/** Deletes one word. */
export async function deleteScreeningWord(actor: AdminActor, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.delete(screeningWords).where(eq(screeningWords.id, id)).returning();
    if (!row) throw new DomainError(SCREENING_MESSAGES.missing, 404);
    await recordAdminAction(tx, actor, {
      action: "screening.delete",
      targetType: "screening-word",
      targetId: id,
      before: { word: row.word, category: row.category, level: SCREENING_LEVELS[row.level] },
    });
    await announceScreeningChange(tx);
  });
  await reloadScreening();
}

interface ImportLine {
  line: number;
  word: string;
  folded: string;
  category: ScreeningCategory;
  level: ScreeningLevelKey;
}

const LEVEL_NAMES = new Map<string, ScreeningLevelKey>(
  Object.entries(SCREENING_LEVELS).flatMap(([key, name]) => [
    [key, key as ScreeningLevelKey],
    [name, key as ScreeningLevelKey],
  ]),
);

/** At most this many problems are named in one message. */
const PROBLEMS_SHOWN = 5;

/**
 * Reads a word list: UTF-8 (a BOM allowed), one word per line as `词语<Tab>分类<Tab>级别`,
 * category and level optional (the defaults given), blank lines and lines starting with
 * `#` skipped. Refuses the whole file, naming the lines, for anything else.
 */
function parseWordList(bytes: Uint8Array, defaults: { category: ScreeningCategory; level: ScreeningLevelKey }): ImportLine[] {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new DomainError(SCREENING_MESSAGES.importNotUtf8, 400, "file");
  }
  const problems: string[] = [];
  const lines: ImportLine[] = [];
  const seen = new Map<string, number>();
  let number = 0;
  let at = 0;
  while (at <= text.length && problems.length < PROBLEMS_SHOWN) {
    let end = text.indexOf("\n", at);
    if (end === -1) end = text.length;
    number++;
    // A whole file on one line (a 1 MB line): refused before it is split or trimmed.
    if (end - at > SCREENING_LINE_MAX + 1) {
      problems.push(SCREENING_MESSAGES.importLineTooLong(number));
      at = end + 1;
      continue;
    }
    const line = text.slice(at, end).replace(/\r$/, "").trim();
    at = end + 1;
    if (!line || line.startsWith("#")) continue;
    const columns = line.split("\t").map((c) => c.trim());
    if (columns.length > 3) {
      problems.push(SCREENING_MESSAGES.importColumns(number));
      continue;
    }
    const checked = checkWord(columns[0]);
    if ("problem" in checked) {
      problems.push(SCREENING_MESSAGES.importWord(number, checked.problem));
      continue;
    }
    const category = columns[1] || defaults.category;
    if (!(SCREENING_CATEGORIES as readonly string[]).includes(category)) {
      problems.push(SCREENING_MESSAGES.importCategory(number, category));
      continue;
    }
    const level = columns[2] ? LEVEL_NAMES.get(columns[2].toLowerCase()) : defaults.level;
    if (!level) {
      problems.push(SCREENING_MESSAGES.importLevel(number, columns[2]));
      continue;
    }
    const first = seen.get(checked.folded);
    if (first !== undefined) {
      problems.push(SCREENING_MESSAGES.importDuplicate(number, first, checked.word));
      continue;
    }
    seen.set(checked.folded, number);
    lines.push({ line: number, word: checked.word, folded: checked.folded, category: category as ScreeningCategory, level });
  }
  if (problems.length > 0) throw new DomainError(problems.join("；"), 400, "file");
  if (lines.length === 0) throw new DomainError(SCREENING_MESSAGES.importEmpty, 400, "file");
  return lines;
}

const IMPORT_BATCH = 1_000;

/**
 * Imports a word list (parseWordList): new words added, words already listed given the
 * file's spelling, category and level. All or nothing, one transaction and one audit row.
 */
export async function importScreeningWords(
  actor: AdminActor,
  file: { name: string; bytes: Uint8Array },
  defaults: { category: ScreeningCategory; level: ScreeningLevelKey },
): Promise<{ added: number; updated: number }> {
  const lines = parseWordList(file.bytes, defaults);
  const result = await db.transaction(async (tx) => {
    let added = 0;
    for (let i = 0; i < lines.length; i += IMPORT_BATCH) {
      const batch = lines.slice(i, i + IMPORT_BATCH);
      const rows = rowsOf<{ inserted: boolean }>(
        await tx.execute(sql`
          insert into ${screeningWords} (word, folded, category, level)
          select * from unnest(${toArray(batch.map((l) => l.word))}::text[], ${toArray(batch.map((l) => l.folded))}::text[],
                               ${toArray(batch.map((l) => l.category))}::text[], ${toArray(batch.map((l) => l.level))}::screening_level[])
          on conflict (folded) do update set word = excluded.word, category = excluded.category, level = excluded.level
          returning (xmax = 0) as inserted`),
      );
      added += rows.filter((r) => r.inserted).length;
    }
    const counts = { added, updated: lines.length - added };
    await recordAdminAction(tx, actor, {
      action: "screening.import",
      targetType: "screening-word",
      after: { file: file.name, ...counts, words: lines.slice(0, 20).map((l) => l.word).join("、") + (lines.length > 20 ? "…" : "") },
    });
    await announceScreeningChange(tx);
    return counts;
  });
  await reloadScreening();
  return result;
}

/** A PostgreSQL array literal of texts, for unnest. */
function toArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(",")}}`;
}

/** The whole list as the TXT import reads it, oldest first, with a header comment. */
export async function exportScreeningWords(): Promise<string> {
  const rows = await db
    .select({ word: screeningWords.word, category: screeningWords.category, level: screeningWords.level })
    .from(screeningWords)
    .orderBy(asc(screeningWords.id));
  const lines = ["# 砚台敏感词库：词语<Tab>分类<Tab>级别（禁止、审核、替换）；以 # 开头的行不导入"];
  for (const row of rows) lines.push(`${row.word}\t${row.category}\t${SCREENING_LEVELS[row.level]}`);
  return `${lines.join("\n")}\n`;
}
