import { and, asc, desc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { chapters, continuityFindings, continuityWaivers, storyEntities, storyEntityNames, storyLadderRungs, storyStates } from "~/db/schema";
import {
  CONTINUITY_MESSAGES,
  ENTITY_STATE_KINDS,
  ITEM_ACTIONS,
  LADDER_MAX_RUNGS,
  STATE_KIND_LABELS,
  STATE_KINDS,
  STATE_LIMITS,
  type ItemAction,
  type StateKind,
} from "~/schemas/continuity-rules";
import { BIBLE_MESSAGES } from "~/schemas/bible";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { pageWithin } from "~/utils/pagination";
import { pgErrorCode, UNIQUE_VIOLATION } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { checkContinuity, describeEntry, type CheckEntity, type Finding, type LedgerEntry } from "./continuity";

/**
 * State ledgers, the 境界 ladder, and the continuity checks' findings and waivers
 * (docs/product.md#continuity, docs/decisions/247, 248). Every function the author calls
 * starts from getOwnedWork (404 for anyone else); the checks themselves are the pure
 * `checkContinuity` (continuity.ts), run here on save and on publish over the chapter's
 * text and the ledgers up to its number.
 */

const length = (s: string) => Array.from(s).length;
const clean = (raw: string | undefined | null) => (raw ?? "").normalize("NFKC").replace(/\s+/gu, " ").trim();

/** Kinds of which an entity (or the story) has one entry per chapter: a second contradicts the first. */
const SINGLE_KINDS: StateKind[] = ["realm", "life", "location", "age", "time"];

// --- The ladder ----------------------------------------------------------------------

/** The rungs as typed: one a line, or separated by →, >, 、 or commas; lowest first. @internal */
function parseLadder(raw: string): string[] {
  const rungs = raw
    .split(/[\n→>＞、,，;；]/u)
    .map(clean)
    .filter(Boolean);
  if (rungs.length > LADDER_MAX_RUNGS) throw new DomainError(CONTINUITY_MESSAGES.ladderTooLong, 400, "ladder");
  const seen = new Set<string>();
  for (const rung of rungs) {
    if (length(rung) > STATE_LIMITS.rung) throw new DomainError(CONTINUITY_MESSAGES.rungTooLong, 400, "ladder");
    if (seen.has(rung)) throw new DomainError(CONTINUITY_MESSAGES.ladderCycle(rung), 400, "ladder");
    seen.add(rung);
  }
  return rungs;
}

export async function ladderOf(workId: number, tx: Executor = db): Promise<string[]> {
  const rows = await tx.select({ name: storyLadderRungs.name }).from(storyLadderRungs).where(eq(storyLadderRungs.workId, workId)).orderBy(asc(storyLadderRungs.rank));
  return rows.map((r) => r.name);
}

/** Replaces the work's ladder; a rung a ledger entry uses cannot be dropped. One transaction. */
export async function saveLadder(userId: string, workId: number, raw: string): Promise<void> {
  await getOwnedWork(userId, workId);
  const rungs = parseLadder(raw ?? "");
  await db.transaction(async (tx) => {
    const used = await tx
      .selectDistinct({ value: storyStates.value })
      .from(storyStates)
      .where(and(eq(storyStates.workId, workId), eq(storyStates.kind, "realm")));
    const dropped = used.find((u) => !rungs.includes(u.value));
    if (dropped) throw new DomainError(CONTINUITY_MESSAGES.ladderInUse(dropped.value), 409, "ladder");
    await tx.delete(storyLadderRungs).where(eq(storyLadderRungs.workId, workId));
    if (rungs.length) await tx.insert(storyLadderRungs).values(rungs.map((name, i) => ({ workId, rank: i + 1, name })));
  });
}

// --- Ledger entries ------------------------------------------------------------------

export interface StateInput {
  id?: number;
  /** None for the story's time. */
  entityId?: number | null;
  kind: StateKind;
  chapter?: number | string | null;
  value?: string;
  num?: number | string | null;
  action?: ItemAction | string | null;
  note?: string;
}

function numberOf(raw: number | string | null | undefined): number | null {
  if (raw === null || raw === undefined || raw === "") return null;
  const n = typeof raw === "number" ? raw : Number(String(raw).trim());
  if (!Number.isSafeInteger(n) || n < 0 || n > STATE_LIMITS.num) throw new DomainError(CONTINUITY_MESSAGES.numInvalid, 400, "num");
  return n;
}

/** Checks an entry and returns the row to write; the entity, the ladder and contradictions are checked by saveState. @internal */
function checkState(input: StateInput) {
  if (!STATE_KINDS.includes(input.kind)) throw new DomainError(CONTINUITY_MESSAGES.kindInvalid, 400, "kind");
  const chapter = input.chapter === null || input.chapter === undefined || String(input.chapter).trim() === "" ? NaN : Number(String(input.chapter).trim());
  if (!Number.isSafeInteger(chapter) || chapter < 1 || chapter > STATE_LIMITS.num) throw new DomainError(CONTINUITY_MESSAGES.chapterRequired, 400, "chapter");
  let value = clean(input.value);
  const note = clean(input.note);
  if (length(value) > STATE_LIMITS.value) throw new DomainError(CONTINUITY_MESSAGES.valueTooLong, 400, "value");
  if (length(note) > STATE_LIMITS.note) throw new DomainError(CONTINUITY_MESSAGES.noteTooLong, 400, "note");
  let num: number | null = null;
  let action: ItemAction | null = null;
  switch (input.kind) {
    case "life":
      value = value === "死亡" ? "dead" : value === "存活" ? "alive" : value;
      if (value !== "dead" && value !== "alive") throw new DomainError(CONTINUITY_MESSAGES.lifeInvalid, 400, "value");
      break;
    case "age":
    case "time":
      num = numberOf(input.num ?? (input.kind === "age" ? value.replace(/岁$/u, "") : null));
      if (num === null) throw new DomainError(CONTINUITY_MESSAGES.numRequired(input.kind === "age" ? "年龄" : "故事年份"), 400, "num");
      if (input.kind === "age") value = "";
      break;
    case "item":
      if (!ITEM_ACTIONS.includes(input.action as ItemAction)) throw new DomainError(CONTINUITY_MESSAGES.actionInvalid, 400, "action");
      action = input.action as ItemAction;
      if (action === "given" && !note) throw new DomainError(CONTINUITY_MESSAGES.recipientRequired, 400, "note");
      if (!value) throw new DomainError(CONTINUITY_MESSAGES.valueRequired, 400, "value");
      break;
    default:
      if (!value) throw new DomainError(CONTINUITY_MESSAGES.valueRequired, 400, "value");
  }
  return { kind: input.kind, chapter, value, num, action, note };
}

/**
 * Adds (no `id`) or edits a ledger entry. An entity's entries are a character's; a realm
 * must be on the work's ladder; a single-valued kind has one entry per chapter (a second,
 * different one is refused as a contradiction, an identical one is the same entry, so a
 * form sent twice adds one).
 */
export async function saveState(userId: string, workId: number, input: StateInput, source: "author" | "ai" = "author", tx: Executor = db): Promise<number> {
  if (tx === db) return db.transaction((t) => saveState(userId, workId, input, source, t));
  await getOwnedWork(userId, workId, tx);
  const row = checkState(input);
  let entityId: number | null = null;
  if (row.kind !== "time") {
    if (!(ENTITY_STATE_KINDS as readonly string[]).includes(row.kind)) throw new DomainError(CONTINUITY_MESSAGES.kindInvalid, 400, "kind");
    const [entity] = await tx
      .select({ id: storyEntities.id, kind: storyEntities.kind })
      .from(storyEntities)
      .where(and(eq(storyEntities.id, Number(input.entityId)), eq(storyEntities.workId, workId)));
    if (!entity) throw new DomainError(BIBLE_MESSAGES.entityNotFound, 404, "entityId");
    if (entity.kind !== "character") throw new DomainError(CONTINUITY_MESSAGES.entityKindMismatch, 400, "kind");
    entityId = entity.id;
  }
  if (row.kind === "realm" && !(await ladderOf(workId, tx)).includes(row.value)) throw new DomainError(CONTINUITY_MESSAGES.notOnLadder(row.value), 400, "value");
  const sameSlot = and(
    eq(storyStates.workId, workId),
    entityId === null ? isNull(storyStates.entityId) : eq(storyStates.entityId, entityId),
    eq(storyStates.kind, row.kind),
    eq(storyStates.chapter, row.chapter),
  );
  const existing = await tx.select().from(storyStates).where(sameSlot);
  const identical = existing.find((e) => e.value === row.value && e.num === row.num && e.action === row.action && e.note === row.note);
  if (!input.id && identical) return identical.id;
  const other = existing.find((e) => e.id !== input.id);
  if (SINGLE_KINDS.includes(row.kind) && other) {
    const shown = describeEntry({ ...other, entityId: other.entityId, action: other.action ?? null }).split("：").slice(1).join("：");
    throw new DomainError(CONTINUITY_MESSAGES.contradicts(STATE_KIND_LABELS[row.kind], row.chapter, shown), 409, "value");
  }
  try {
    if (input.id) {
      const [updated] = await tx
        .update(storyStates)
        .set({ ...row, entityId })
        .where(and(eq(storyStates.id, input.id), eq(storyStates.workId, workId)))
        .returning({ id: storyStates.id });
      if (!updated) throw new DomainError(CONTINUITY_MESSAGES.stateNotFound, 404);
      return updated.id;
    }
    const [created] = await tx.insert(storyStates).values({ ...row, workId, entityId, source }).returning({ id: storyStates.id });
    return created.id;
  } catch (error) {
    // Another tab wrote the chapter's entry meanwhile: the unique index is the last line.
    if (pgErrorCode(error) === UNIQUE_VIOLATION) throw new DomainError(CONTINUITY_MESSAGES.contradicts(STATE_KIND_LABELS[row.kind], row.chapter, "…"), 409, "value");
    throw error;
  }
}

export async function deleteState(userId: string, workId: number, stateId: number): Promise<number | null> {
  await getOwnedWork(userId, workId);
  const rows = await db.delete(storyStates).where(and(eq(storyStates.id, stateId), eq(storyStates.workId, workId))).returning({ entityId: storyStates.entityId });
  if (rows.length === 0) throw new DomainError(CONTINUITY_MESSAGES.stateNotFound, 404);
  return rows[0].entityId;
}

function asEntry(r: typeof storyStates.$inferSelect): LedgerEntry {
  return { id: r.id, entityId: r.entityId, chapter: r.chapter, kind: r.kind, value: r.value, num: r.num, action: r.action ?? null, note: r.note };
}

/** The ledgers of some entities (the bible's page of them), each in chapter order, described. */
export async function statesOf(workId: number, entityIds: number[]) {
  if (entityIds.length === 0) return [];
  const rows = await db
    .select()
    .from(storyStates)
    .where(and(eq(storyStates.workId, workId), inArray(storyStates.entityId, entityIds)))
    .orderBy(asc(storyStates.chapter), asc(storyStates.id));
  return rows.map((r) => ({ id: r.id, entityId: r.entityId!, chapter: r.chapter, kind: r.kind, source: r.source, text: describeEntry(asEntry(r)) }));
}

// --- Checking ------------------------------------------------------------------------

/**
 * What the checks of some chapters of a work need besides their text: the work's entities
 * with their names, its ladder, and the ledger up to `upTo`, of the entities the texts name
 * (any of their names appears: a superset of what the rules find), those with an entry at one
 * of the chapters, and the story's time. The rules read no other entries (a character neither
 * named nor recorded in a chapter is not checked there); leaving the rest out keeps a check of
 * chapter 2,000 from reading all 3,000 entries of a long serial (decision 260: 160 ms on a busy
 * PGlite for those rows alone). Without texts (the AI 审读, decision 258): the whole ledger up to `upTo`.
 */
async function ledgerFor(tx: Executor, workId: number, upTo: number, texts: string[] | null, chapterNumbers: number[]) {
  const [entities, names, ladder] = await Promise.all([
    tx.select({ id: storyEntities.id, kind: storyEntities.kind, name: storyEntities.name }).from(storyEntities).where(eq(storyEntities.workId, workId)),
    tx.select({ entityId: storyEntityNames.entityId, name: storyEntityNames.name }).from(storyEntityNames).where(eq(storyEntityNames.workId, workId)),
    ladderOf(workId, tx),
  ]);
  const namesBy = new Map<number, string[]>();
  for (const n of names) namesBy.set(n.entityId, [...(namesBy.get(n.entityId) ?? []), n.name]);
  const checkEntities: CheckEntity[] = entities.map((e) => ({ ...e, names: [e.name, ...(namesBy.get(e.id) ?? []).filter((n) => n !== e.name)] }));
  const named = texts && checkEntities.filter((e) => e.kind === "character" && e.names.some((name) => texts.some((text) => text.includes(name)))).map((e) => e.id);
  const states = await tx
    .select()
    .from(storyStates)
    .where(
      and(
        eq(storyStates.workId, workId),
        lte(storyStates.chapter, upTo),
        named ? or(isNull(storyStates.entityId), inArray(storyStates.chapter, chapterNumbers), named.length ? inArray(storyStates.entityId, named) : undefined) : undefined,
      ),
    );
  return { entities: checkEntities, ladder, states: states.map(asEntry) };
}

/** The work's entities with their names, its ladder and its whole ledger up to `upTo` (what the AI 审读 is given). */
export function ledgerUpTo(tx: Executor, workId: number, upTo: number) {
  return ledgerFor(tx, workId, upTo, null, []);
}

/**
 * Checks chapters of a work (numbered ones; a notice chapter has no number) and replaces
 * their findings; returns each chapter's open (not waived) findings. A work without
 * entities and without the story's time has nothing to check: its findings are cleared.
 */
export async function checkChapters(tx: Executor, workId: number, chapterIds: number[]): Promise<Map<number, number>> {
  const open = new Map<number, number>();
  if (chapterIds.length === 0) return open;
  const rows = await numberedChapters(tx, workId, chapterIds);
  // The AI 审读's findings stay (decision 258): it is asked for, not run on every save.
  await tx.delete(continuityFindings).where(and(eq(continuityFindings.workId, workId), inArray(continuityFindings.chapterId, chapterIds), eq(continuityFindings.source, "rule")));
  const numbered = rows.filter((r) => r.kind === "chapter");
  if (numbered.length === 0) return open;
  const [{ any }] = await tx
    .select({ any: sql<boolean>`exists (select 1 from ${storyEntities} where work_id = ${workId}) or exists (select 1 from story_states where work_id = ${workId})` })
    .from(sql`(select 1) one`);
  if (!any) return open;
  const numbers = numbered.map((r) => r.number);
  const ledger = await ledgerFor(tx, workId, Math.max(...numbers), numbered.map((r) => r.text), numbers);
  const toInsert: (typeof continuityFindings.$inferInsert)[] = [];
  numbered.forEach((row, i) => {
    const found: Finding[] = checkContinuity({ chapter: numbers[i], text: row.text, ...ledger });
    for (const f of found) {
      toInsert.push({ workId, chapterId: row.id, chapterNumber: numbers[i], rule: f.rule, key: f.key, entityId: f.entityId, message: f.message, quote: f.quote, facts: f.facts });
    }
  });
  for (let i = 0; i < toInsert.length; i += 500) await tx.insert(continuityFindings).values(toInsert.slice(i, i + 500));
  const waived = toInsert.length
    ? await tx
        .select({ chapterId: continuityWaivers.chapterId, key: continuityWaivers.key })
        .from(continuityWaivers)
        .where(and(eq(continuityWaivers.workId, workId), inArray(continuityWaivers.chapterId, chapterIds)))
    : [];
  const waivedKeys = new Set(waived.map((w) => `${w.chapterId}:${w.key}`));
  for (const f of toInsert) if (!waivedKeys.has(`${f.chapterId}:${f.key}`)) open.set(f.chapterId!, (open.get(f.chapterId!) ?? 0) + 1);
  return open;
}

/**
 * Chapters of a work with the text a check reads (the pending text of a published chapter
 * under review, else its text) and their reader number: a published one counts its place;
 * a draft counts as the next after the published before it.
 */
export async function numberedChapters(tx: Executor, workId: number, chapterIds: number[]) {
  const rows = await tx
    .select({
      id: chapters.id,
      title: chapters.title,
      state: chapters.state,
      kind: chapters.kind,
      content: chapters.content,
      pendingContent: chapters.pendingContent,
      // Written out: in a one-table select drizzle leaves the outer columns unqualified, which the subquery would take as its own.
      publishedUpTo: sql<number>`(select count(*)::int from chapters p where p.work_id = ${workId} and p.state = 'published' and p.kind = 'chapter' and (p.position, p.id) <= ("chapters"."position", "chapters"."id"))`,
    })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), inArray(chapters.id, chapterIds)));
  return rows.map((r) => ({ id: r.id, kind: r.kind, title: r.title, text: r.pendingContent ?? r.content, number: r.publishedUpTo + (r.state === "published" ? 0 : 1) }));
}

/** 保存 (after its transaction): checks the chapter; a failure is logged, never fails the save. Returns its open findings. */
export async function checkAfterSave(workId: number, chapterId: number): Promise<number | null> {
  try {
    return await db.transaction(async (tx) => (await checkChapters(tx, workId, [chapterId])).get(chapterId) ?? 0);
  } catch (error) {
    console.error("continuity check failed", { workId, chapterId }, error);
    return null;
  }
}

/** 重新检查 from the editor or the studio's list. */
export async function recheckChapter(userId: string, workId: number, chapterId: number): Promise<number> {
  await getOwnedWork(userId, workId);
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ id: chapters.id }).from(chapters).where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId)));
    if (!row) throw new DomainError(STUDIO_MESSAGES.chapterNotFound, 404);
    return (await checkChapters(tx, workId, [chapterId])).get(chapterId) ?? 0;
  });
}

// --- Findings and waivers ------------------------------------------------------------

const findingColumns = {
  id: continuityFindings.id,
  chapterId: continuityFindings.chapterId,
  chapterNumber: continuityFindings.chapterNumber,
  chapterTitle: chapters.title,
  rule: continuityFindings.rule,
  source: continuityFindings.source,
  entityId: continuityFindings.entityId,
  message: continuityFindings.message,
  quote: continuityFindings.quote,
  facts: continuityFindings.facts,
  waiverNote: continuityWaivers.note,
  waivedAt: continuityWaivers.createdAt,
};

function findingsQuery() {
  return db
    .select(findingColumns)
    .from(continuityFindings)
    .innerJoin(chapters, eq(chapters.id, continuityFindings.chapterId))
    .leftJoin(continuityWaivers, and(eq(continuityWaivers.chapterId, continuityFindings.chapterId), eq(continuityWaivers.key, continuityFindings.key)));
}

function shaped(rows: Awaited<ReturnType<ReturnType<typeof findingsQuery>["execute"]>>) {
  return rows.map(({ waivedAt, waiverNote, ...f }) => ({ ...f, waived: waivedAt !== null, waiverNote: waiverNote ?? "" }));
}

/** The editor's panel: the chapter's findings, open ones first. */
export async function chapterFindings(workId: number, chapterId: number) {
  const rows = await findingsQuery()
    .where(and(eq(continuityFindings.workId, workId), eq(continuityFindings.chapterId, chapterId)))
    .orderBy(sql`${continuityWaivers.id} is not null`, asc(continuityFindings.id));
  return shaped(rows);
}

const FINDINGS_PAGE_SIZE = 30;

/** The studio's list for a work: open (or waived) findings by chapter, a page at a time, and both counts. */
export async function workFindings(userId: string, workId: number, show: "open" | "waived", page: number) {
  const work = await getOwnedWork(userId, workId);
  const waivedCond = sql`${continuityWaivers.id} is ${show === "waived" ? sql`not null` : sql`null`}`;
  const [[counts], ladder, times] = await Promise.all([
    db
      .select({ open: sql<number>`count(*) filter (where ${continuityWaivers.id} is null)::int`, waived: sql<number>`count(${continuityWaivers.id})::int` })
      .from(continuityFindings)
      .leftJoin(continuityWaivers, and(eq(continuityWaivers.chapterId, continuityFindings.chapterId), eq(continuityWaivers.key, continuityFindings.key)))
      .where(eq(continuityFindings.workId, workId)),
    ladderOf(workId),
    db
      .select()
      .from(storyStates)
      .where(and(eq(storyStates.workId, workId), eq(storyStates.kind, "time")))
      .orderBy(asc(storyStates.chapter)),
  ]);
  const total = show === "waived" ? counts.waived : counts.open;
  const paging = pageWithin(page, total, FINDINGS_PAGE_SIZE);
  const rows = await findingsQuery()
    .where(and(eq(continuityFindings.workId, workId), waivedCond))
    .orderBy(desc(continuityFindings.chapterNumber), asc(continuityFindings.id))
    .offset((paging.page - 1) * FINDINGS_PAGE_SIZE)
    .limit(FINDINGS_PAGE_SIZE);
  return {
    work: { id: work.id, title: work.title },
    counts,
    ...paging,
    findings: shaped(rows),
    ladder,
    times: times.map((t) => ({ id: t.id, chapter: t.chapter, num: t.num!, value: t.value })),
  };
}

/** 有意安排: waives a finding with the author's note; returns its chapter. Waiving again updates the note. */
export async function waiveFinding(userId: string, workId: number, findingId: number, rawNote: string): Promise<number> {
  await getOwnedWork(userId, workId);
  const note = clean(rawNote);
  if (length(note) > STATE_LIMITS.waiverNote) throw new DomainError(CONTINUITY_MESSAGES.waiverNoteTooLong, 400, "note");
  const [finding] = await db
    .select({ chapterId: continuityFindings.chapterId, key: continuityFindings.key })
    .from(continuityFindings)
    .where(and(eq(continuityFindings.id, findingId), eq(continuityFindings.workId, workId)));
  if (!finding) throw new DomainError(CONTINUITY_MESSAGES.findingNotFound, 404);
  await db
    .insert(continuityWaivers)
    .values({ workId, chapterId: finding.chapterId, key: finding.key, note })
    .onConflictDoUpdate({ target: [continuityWaivers.chapterId, continuityWaivers.key], set: { note } });
  return finding.chapterId;
}

/** Takes a waiver back: the finding is open again. Returns its chapter. */
export async function unwaiveFinding(userId: string, workId: number, findingId: number): Promise<number> {
  await getOwnedWork(userId, workId);
  const [finding] = await db
    .select({ chapterId: continuityFindings.chapterId, key: continuityFindings.key })
    .from(continuityFindings)
    .where(and(eq(continuityFindings.id, findingId), eq(continuityFindings.workId, workId)));
  if (!finding) throw new DomainError(CONTINUITY_MESSAGES.findingNotFound, 404);
  await db.delete(continuityWaivers).where(and(eq(continuityWaivers.chapterId, finding.chapterId), eq(continuityWaivers.key, finding.key)));
  return finding.chapterId;
}
