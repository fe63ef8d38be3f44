import { and, asc, desc, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { voicePassages, workCliches } from "~/db/schema";
import { DEFAULT_CLICHES, VOICE_LIMITS, VOICE_MESSAGES, VOICE_SOURCES, type VoiceSource } from "~/schemas/voice";
import { getOwnedWork } from "~/server/catalog/works.server";
import { DomainError } from "~/server/platform/errors.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { foldWord, Matcher } from "~/server/screening/matcher.server";
import { countChars } from "~/utils/ai-tokens";

/**
 * The author's voice (docs/product.md#author-voice, docs/decisions/257): a work's 文风
 * sample (passages the author marks: from their chapters, pasted, or accepted AI text) and
 * its 套话 list (the site's defaults and the author's own). 连载续写 sends both (the sample
 * within the context budget, context.server.ts) and counts the 套话 in what comes back.
 */

/** The bible's 文风 tab: the passages (newest first, the order the prompt takes them) and the 套话. */
export async function voiceView(userId: string, workId: number) {
  await getOwnedWork(userId, workId);
  const [passages, own] = await Promise.all([
    db
      .select({ id: voicePassages.id, content: voicePassages.content, source: voicePassages.source, createdAt: voicePassages.createdAt })
      .from(voicePassages)
      .where(eq(voicePassages.workId, workId))
      .orderBy(desc(voicePassages.id)),
    ownCliches(workId),
  ]);
  return { passages: passages.map((p) => ({ ...p, chars: countChars(p.content) })), defaults: [...DEFAULT_CLICHES], own };
}

async function ownCliches(workId: number): Promise<string[]> {
  const rows = await db
    .select({ phrase: workCliches.phrase })
    .from(workCliches)
    .where(eq(workCliches.workId, workId))
    .orderBy(asc(workCliches.createdAt), asc(workCliches.phrase));
  return rows.map((r) => r.phrase);
}

/** A passage as kept: line breaks unified, blank lines at either end and trailing spaces dropped. */
function cleanPassage(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/\s+$/u, ""))
    .join("\n")
    .replace(/^\s*\n|\n\s*$/gu, "")
    .trim();
}

/**
 * Adds a passage to the work's 文风 sample. Refused, with nothing written: an empty one, one
 * over VOICE_LIMITS.passage, one the sample already holds, a VOICE_LIMITS.passages-th + 1
 * (counted in the inserting statement, so two at once cannot pass the limit together).
 */
export async function addVoicePassage(userId: string, workId: number, input: { content: string; source?: string }, record?: RecordResult): Promise<number> {
  await getOwnedWork(userId, workId);
  const content = cleanPassage(input.content ?? "");
  if (!content) throw new DomainError(VOICE_MESSAGES.passageEmpty, 400, "content");
  if (countChars(content) > VOICE_LIMITS.passage) throw new DomainError(VOICE_MESSAGES.passageTooLong, 400, "content");
  const source = (input.source || "pasted") as VoiceSource;
  if (!VOICE_SOURCES.includes(source)) throw new DomainError(VOICE_MESSAGES.sourceInvalid, 400, "source");
  return db.transaction(async (tx) => {
    // Serialises additions to one work (the count below then holds).
    await tx.execute(sql`select pg_advisory_xact_lock(${VOICE_LOCK}::int, (${workId}::bigint % 2147483647)::int)`);
    const [{ n }] = await tx.select({ n: sql<number>`count(*)::int` }).from(voicePassages).where(eq(voicePassages.workId, workId));
    if (Number(n) >= VOICE_LIMITS.passages) throw new DomainError(VOICE_MESSAGES.passagesTooMany, 400, "content");
    const [row] = await tx.insert(voicePassages).values({ workId, content, source }).onConflictDoNothing().returning({ id: voicePassages.id });
    if (!row) throw new DomainError(VOICE_MESSAGES.passageDuplicate, 409, "content");
    await record?.(tx, row.id);
    return row.id;
  });
}

/** The advisory lock class of a work's 文风 sample. */
const VOICE_LOCK = 25_701;

export async function deleteVoicePassage(userId: string, workId: number, id: number): Promise<void> {
  await getOwnedWork(userId, workId);
  const gone = await db
    .delete(voicePassages)
    .where(and(eq(voicePassages.id, id), eq(voicePassages.workId, workId)))
    .returning({ id: voicePassages.id });
  if (gone.length === 0) throw new DomainError(VOICE_MESSAGES.passageNotFound, 404);
}

/**
 * The author's own 套话, one a line (or separated by 、，, ;): the whole list is checked,
 * then replaces the old one in one transaction. Refused as a whole: a phrase shorter than
 * 2 or longer than 20 characters, more than 50, one listed twice (folded as the screening
 * matcher folds, so 緩緩 and 缓缓 are one), one the defaults hold already.
 */
export async function saveCliches(userId: string, workId: number, text: string): Promise<string[]> {
  await getOwnedWork(userId, workId);
  const phrases = (text ?? "")
    .split(/[\n\r、，,;；]+/u)
    .map((p) => p.trim())
    .filter(Boolean);
  const defaults = new Set(DEFAULT_CLICHES.map(foldWord));
  const seen = new Set<string>();
  for (const phrase of phrases) {
    const chars = countChars(phrase);
    if (chars < VOICE_LIMITS.clicheMin || foldWord(phrase).length < VOICE_LIMITS.clicheMin) throw new DomainError(VOICE_MESSAGES.clicheTooShort(phrase), 400, "cliches");
    if (chars > VOICE_LIMITS.clicheMax) throw new DomainError(VOICE_MESSAGES.clicheTooLong(phrase), 400, "cliches");
    const key = foldWord(phrase);
    if (defaults.has(key)) throw new DomainError(VOICE_MESSAGES.clicheIsDefault(phrase), 400, "cliches");
    if (seen.has(key)) throw new DomainError(VOICE_MESSAGES.clicheDuplicate(phrase), 400, "cliches");
    seen.add(key);
  }
  if (phrases.length > VOICE_LIMITS.cliches) throw new DomainError(VOICE_MESSAGES.clichesTooMany, 400, "cliches");
  await db.transaction(async (tx) => {
    await tx.delete(workCliches).where(eq(workCliches.workId, workId));
    const now = Date.now();
    // created_at keeps the author's order.
    if (phrases.length) await tx.insert(workCliches).values(phrases.map((phrase, i) => ({ workId, phrase, createdAt: new Date(now + i) })));
  });
  return phrases;
}

/** Every 套话 of a work: the defaults, then the author's own. */
export function allCliches(own: readonly string[]): string[] {
  return [...DEFAULT_CLICHES, ...own];
}

export async function clichesOfWork(workId: number): Promise<string[]> {
  return allCliches(await ownCliches(workId));
}

/**
 * How often each 套话 occurs in a text, most first (ties in the list's order), those that
 * do not occur left out. Deterministic: the screening's Aho-Corasick matcher (decision
 * 195), so 缓 缓 or 緩緩 count as 缓缓 too; overlapping phrases each count.
 */
export function countCliches(text: string, cliches: readonly string[]): { phrase: string; count: number }[] {
  const matcher = new Matcher(cliches.map((word) => ({ word, category: "cliche", level: "review" as const })));
  const counts = new Map<string, number>();
  for (const hit of matcher.find(text)) counts.set(hit.word, (counts.get(hit.word) ?? 0) + 1);
  const order = new Map(cliches.map((c, i) => [c, i]));
  return [...counts]
    .map(([phrase, count]) => ({ phrase, count }))
    .sort((a, b) => b.count - a.count || order.get(a.phrase)! - order.get(b.phrase)!);
}
