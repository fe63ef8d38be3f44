import { and, asc, eq, gt, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { aiTextMarks, chapters, plotVersions, works, writingPlots, writingProjects } from "~/db/schema";
import { isWhitespaceUnit } from "~/utils/text";
import { rowsOf } from "~/server/platform/db-utils.server";

/**
 * AI labels from the generation log (docs/product.md D15, docs/decisions/126):
 *
 * - Every text a user's generation delivered leaves fingerprints in ai_text_marks: the
 *   hashes of its 12-character runs (whitespace removed), one in four kept (those whose
 *   hash is divisible by 4, so text and chapter keep the same ones).
 * - A chapter's text is fingerprinted the same way when it is written; each run whose
 *   hash is among its author's marks covers its 12 characters. `aiChars` is the number of
 *   covered characters, against the chapter's 字数 (characters other than whitespace).
 * - Level: AI生成 when at least half the characters are covered; AI辅助 when at least 5%
 *   or 200 characters are; else 无. A run shorter than 12 characters is never found, and
 *   rewriting AI text in one's own words is not caught: the author's own tick
 *   (is_ai_generated) remains for that and for text generated elsewhere.
 */

const MARK_RUN = 12;
/** One run in MARK_SAMPLE is kept (hash % MARK_SAMPLE === 0). */
const MARK_SAMPLE = 4;
const AI_GENERATED_SHARE = 0.5;
const AI_ASSISTED_SHARE = 0.05;
const AI_ASSISTED_CHARS = 200;

export type AiLevel = "none" | "assisted" | "generated";

/** The text's code points without whitespace: what 字数 counts and what the runs are made of. */
function compact(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code > 0xffff || !isWhitespaceUnit(code)) out.push(code);
  }
  return out;
}

/** B^(MARK_RUN-1) mod 2^32, to take a character out of the rolling hash. */
const BASE = 0x01000193;
let OUT = 1;
for (let i = 1; i < MARK_RUN; i++) OUT = Math.imul(OUT, BASE);

/** murmur3's finaliser: spreads the rolling hash over all 32 bits before sampling. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/**
 * For each kept run: its start (in compacted code points) and its mark (a polynomial
 * rolling hash of the run's code points, mod 2^32, mixed; a signed 32-bit integer for the
 * integer column). One multiplication per character: a 20,000-character text in well
 * under a millisecond.
 */
function keptRuns(codes: number[]): { starts: number[]; marks: number[] } {
  const starts: number[] = [];
  const marks: number[] = [];
  let h = 0;
  for (let i = 0; i < codes.length; i++) {
    if (i >= MARK_RUN) h = (h - Math.imul(codes[i - MARK_RUN], OUT)) | 0;
    h = (Math.imul(h, BASE) + codes[i]) | 0;
    if (i < MARK_RUN - 1) continue;
    const mark = mix(h);
    if ((mark & (MARK_SAMPLE - 1)) === 0) {
      starts.push(i - MARK_RUN + 1);
      marks.push(mark);
    }
  }
  return { starts, marks };
}

/** The distinct marks of a text (for the log and for tests). @internal */
export function textMarks(text: string): number[] {
  return [...new Set(keptRuns(compact(text)).marks)];
}

const intArray = (values: number[]) => `{${values.join(",")}}`;

/** Adds the marks of a delivered generation's text to its user's log, in the caller's transaction. */
export async function recordGeneratedText(tx: Executor, userId: string, text: string, except?: string): Promise<void> {
  // An operation on a selection leaves out what it kept of the author's own text (decision 130).
  const kept = except ? new Set(textMarks(except)) : null;
  const marks = kept ? textMarks(text).filter((m) => !kept.has(m)) : textMarks(text);
  if (marks.length === 0) return;
  await tx.execute(sql`
    insert into ai_text_marks (user_id, mark)
    select ${userId}::uuid, unnest(${intArray(marks)}::int[])
    on conflict do nothing`);
}

/** @internal */
export function aiLevelFor(aiChars: number, words: number): AiLevel {
  if (words <= 0 || aiChars <= 0) return "none";
  if (aiChars >= words * AI_GENERATED_SHARE) return "generated";
  if (aiChars >= words * AI_ASSISTED_SHARE || aiChars >= AI_ASSISTED_CHARS) return "assisted";
  return "none";
}

/** Whether a user ever generated text (most authors did not: their chapters skip the lookup). */
async function hasMarks(tx: Executor, userId: string): Promise<boolean> {
  const [row] = await tx.select({ one: sql`1` }).from(aiTextMarks).where(eq(aiTextMarks.userId, userId)).limit(1);
  return Boolean(row);
}

/** A chapter text's AI columns, from its author's generation log. */
export async function chapterAiColumns(tx: Executor, userId: string, content: string): Promise<{ aiChars: number; aiLevel: AiLevel }> {
  const codes = compact(content);
  if (codes.length < MARK_RUN || !(await hasMarks(tx, userId))) return { aiChars: 0, aiLevel: "none" };
  const { starts, marks } = keptRuns(codes);
  if (marks.length === 0) return { aiChars: 0, aiLevel: "none" };
  const found = new Set(
    rowsOf<{ mark: number }>(
      await tx.execute(sql`
        select mark from ai_text_marks
        where user_id = ${userId}::uuid and mark = any(${intArray([...new Set(marks)])}::int[])`),
    ).map((r) => Number(r.mark)),
  );
  // The union of the covered runs, in one pass (starts ascend).
  let covered = 0;
  let end = 0;
  for (let k = 0; k < starts.length; k++) {
    if (!found.has(marks[k])) continue;
    const from = Math.max(starts[k], end);
    const to = starts[k] + MARK_RUN;
    if (to > from) covered += to - from;
    end = Math.max(end, to);
  }
  return { aiChars: covered, aiLevel: aiLevelFor(covered, codes.length) };
}

/**
 * Labels every chapter of a new work (a publish or a TXT import) from its author's log:
 * nothing to do for an author who never generated text.
 */
export async function labelWorkChapters(tx: Executor, userId: string, workId: number): Promise<void> {
  if (!(await hasMarks(tx, userId))) return;
  const rows = await tx.select({ id: chapters.id, content: chapters.content }).from(chapters).where(eq(chapters.workId, workId));
  for (const row of rows) {
    const columns = await chapterAiColumns(tx, userId, row.content);
    if (columns.aiChars > 0) await tx.update(chapters).set(columns).where(eq(chapters.id, row.id));
  }
}

/**
 * A work's level from its published chapters: AI生成 when AI text is at least half of
 * their characters, AI辅助 when any of them is labelled, else 无. An SQL expression for
 * the statement that keeps the work's counts (refreshWorkCounts).
 */
export function workAiLevelSql(workId: number) {
  return sql`(select case
      when coalesce(sum(word_count), 0) > 0 and 2 * sum(ai_chars) >= sum(word_count) then 'generated'
      when bool_or(ai_level <> 'none') then 'assisted'
      else 'none' end::ai_level
    from chapters where work_id = ${workId} and state = 'published')`;
}

/**
 * `npm run ai:relabel`: puts the generations kept as plot versions (those made before the
 * log existed, too) into their users' logs, then labels again every chapter of those
 * users' works and the works with them. Idempotent; one transaction per work.
 */
export async function rebuildAiLabels(refreshWork: (tx: Executor, workId: number) => Promise<void>): Promise<{ users: number; works: number }> {
  const users = await db
    .selectDistinct({ userId: writingProjects.userId })
    .from(plotVersions)
    .innerJoin(writingPlots, eq(writingPlots.id, plotVersions.plotId))
    .innerJoin(writingProjects, eq(writingProjects.id, writingPlots.projectId))
    .where(eq(plotVersions.kind, "generation"));
  let workCount = 0;
  for (const { userId } of users) {
    let after = "";
    for (;;) {
      const batch = await db
        .select({ id: plotVersions.id, content: plotVersions.content })
        .from(plotVersions)
        .innerJoin(writingPlots, eq(writingPlots.id, plotVersions.plotId))
        .innerJoin(writingProjects, eq(writingProjects.id, writingPlots.projectId))
        .where(and(eq(writingProjects.userId, userId), eq(plotVersions.kind, "generation"), after ? gt(plotVersions.id, after) : undefined))
        .orderBy(asc(plotVersions.id))
        .limit(100);
      if (batch.length === 0) break;
      await db.transaction(async (tx) => {
        for (const version of batch) await recordGeneratedText(tx, userId, version.content);
      });
      after = batch[batch.length - 1].id;
    }
    const owned = await db.select({ id: works.id }).from(works).where(eq(works.userId, userId));
    for (const work of owned) {
      await db.transaction(async (tx) => {
        await labelWorkChapters(tx, userId, work.id);
        await refreshWork(tx, work.id);
      });
      workCount++;
    }
  }
  return { users: users.length, works: workCount };
}

// ---- Labels in exports (decision 126) ----------------------------------------------------

/** The exported chapters (by `where`, in the reader's order) that carry a label, numbered 1.. among them all. */
export async function labelledChapterNumbers(tx: Executor, where: SQL): Promise<{ n: number; level: Exclude<AiLevel, "none"> }[]> {
  const rows = rowsOf<{ n: number | string; ai_level: AiLevel }>(
    await tx.execute(sql`
      select n, ai_level from (
        select ai_level, row_number() over (order by position, id) as n from chapters where ${where}
      ) numbered where ai_level <> 'none' order by n`),
  );
  return rows.map((r) => ({ n: Number(r.n), level: r.ai_level as Exclude<AiLevel, "none"> }));
}

export interface LabelledWork {
  id: number;
  aiLevel: AiLevel;
  isAiGenerated: boolean;
}

/**
 * The implicit label (metadata) of an export, in the shape of the national standard
 * GB 45438-2025's AIGC field (its annex E's seven elements, decision 126): Label "1"
 * (AI-generated content); the site both as the generation service (ContentProducer,
 * ProduceID) and as the platform that publishes the work (ContentPropagator,
 * PropagateID); ReservedCode1 says which of this site's levels applies (generated,
 * assisted, or declared by the author). Null for a work with nothing to label.
 */
export function aigcMetadata(work: LabelledWork, labelled: { level: string }[]): string | null {
  const level = work.aiLevel !== "none" ? work.aiLevel : labelled.length > 0 ? "assisted" : work.isAiGenerated ? "declared" : null;
  if (!level) return null;
  const id = `inkstone-work-${work.id}`;
  return JSON.stringify({
    Label: "1",
    ContentProducer: "砚台",
    ProduceID: id,
    ReservedCode1: level,
    ContentPropagator: "砚台",
    PropagateID: id,
    ReservedCode2: "",
  });
}

function numbers(list: { n: number }[]): string {
  return `第${list.map((c) => c.n).join("、")}章`;
}

/** The visible label of an export (its first lines), or [] for a work with nothing to label. */
export function aiLabelLines(work: LabelledWork, labelled: { n: number; level: string }[]): string[] {
  const lines: string[] = [];
  if (work.aiLevel === "generated") lines.push("【AI生成内容标识】本作品大部分文字由作者使用人工智能（砚台 AI 写作）生成。");
  else if (work.aiLevel === "assisted" || labelled.length > 0) {
    lines.push("【AI生成内容标识】本作品含人工智能生成的内容（AI辅助）：部分文字由作者使用砚台 AI 写作生成。");
  }
  if (work.isAiGenerated) lines.push("【AI生成内容标识】作者声明：本作品为 AI 创作。");
  const generated = labelled.filter((c) => c.level === "generated");
  const assisted = labelled.filter((c) => c.level === "assisted");
  if (generated.length > 0) lines.push(`AI生成的章节：${numbers(generated)}`);
  if (assisted.length > 0) lines.push(`AI辅助的章节：${numbers(assisted)}`);
  const metadata = aigcMetadata(work, labelled);
  if (metadata) lines.push(`AIGC: ${metadata}`);
  return lines;
}

/** A chapter's visible line in an EPUB (null for 无). */
export function chapterLabelLine(level: AiLevel): string | null {
  if (level === "generated") return "【AI生成】本章大部分文字由人工智能生成。";
  if (level === "assisted") return "【AI辅助】本章含人工智能生成的文字。";
  return null;
}
