import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import {
  chapters,
  chapterSummaries,
  plotThreads,
  storyEntities,
  storyEntityNames,
  storyFacts,
  storyProposals,
  summaryJobs,
  volumes,
  volumeSummaries,
  works,
} from "~/db/schema";
import { BIBLE_LIMITS, BIBLE_MESSAGES, ENTITY_KINDS, ENTITY_PROMPT_MODES, isThreadOverdue, type EntityKind, type EntityPromptMode } from "~/schemas/bible";
import { pageWithin } from "~/utils/pagination";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { statesOf } from "./continuity.server";

/**
 * The story bible, plot threads and summaries of a work (docs/product.md#story-bible,
 * docs/decisions/127). Only the work's author reaches any of it: every function starts
 * from getOwnedWork (404 for anyone else) and every row is looked up with its work's id.
 * Checks come before writes, and a write of several rows is one transaction, so bad input
 * changes nothing.
 */

const length = (s: string) => Array.from(s).length;

/** A name or alias as stored: NFKC (full-width letters fold), whitespace runs to one space, trimmed. */
export function normalizeName(raw: string): string {
  return raw.normalize("NFKC").replace(/\s+/gu, " ").trim();
}

/** Aliases typed in one field, separated by commas, 、, semicolons or lines; duplicates and the name itself dropped. */
function parseAliases(raw: string | string[], name: string): string[] {
  const parts = Array.isArray(raw) ? raw : raw.split(/[,，、;；\n]/u);
  const out: string[] = [];
  for (const part of parts) {
    const alias = normalizeName(part);
    if (alias && alias !== name && !out.includes(alias)) out.push(alias);
  }
  return out;
}

function cleanText(raw: string | undefined): string {
  return (raw ?? "").replace(/\r\n?/g, "\n").trim();
}

function chapterNumber(value: number | null | undefined, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value) || value < 1 || value > BIBLE_LIMITS.chapter) throw new DomainError(BIBLE_MESSAGES.chapterNumber, 400, field);
  return value;
}

// --- Entities ------------------------------------------------------------------------

export interface EntityInput {
  id?: number;
  kind: EntityKind;
  name: string;
  aliases: string | string[];
  description?: string;
  /** 总是带上 / 从不带上 in the continuation prompt (decision 154); unchanged when left out. */
  promptMode?: EntityPromptMode;
}

/**
 * Adds or edits an entity with its names. Every name of a work (names and aliases) is one
 * row of story_entity_names, unique per work: a name another entity already has is
 * refused with who has it, and the transaction leaves everything as it was.
 */
/** Adds (no `id`) or edits an entity; `record` writes a new one's form token in its transaction (decision 077). */
export async function saveEntity(userId: string, workId: number, input: EntityInput, record?: RecordResult): Promise<number> {
  await getOwnedWork(userId, workId);
  if (!ENTITY_KINDS.includes(input.kind)) throw new DomainError(BIBLE_MESSAGES.kindInvalid, 400, "kind");
  const name = normalizeName(input.name ?? "");
  if (!name) throw new DomainError(BIBLE_MESSAGES.nameRequired, 400, "name");
  if (length(name) > BIBLE_LIMITS.name) throw new DomainError(BIBLE_MESSAGES.nameTooLong, 400, "name");
  const aliases = parseAliases(input.aliases ?? "", name);
  if (aliases.length > BIBLE_LIMITS.aliases) throw new DomainError(BIBLE_MESSAGES.aliasesTooMany, 400, "aliases");
  if (aliases.some((a) => length(a) > BIBLE_LIMITS.name)) throw new DomainError(BIBLE_MESSAGES.aliasTooLong, 400, "aliases");
  const description = cleanText(input.description);
  if (length(description) > BIBLE_LIMITS.description) throw new DomainError(BIBLE_MESSAGES.descriptionTooLong, 400, "description");
  const promptMode = input.promptMode;
  if (promptMode !== undefined && !ENTITY_PROMPT_MODES.includes(promptMode)) throw new DomainError(BIBLE_MESSAGES.promptModeInvalid, 400, "promptMode");

  return db.transaction(async (tx) => {
    let entityId: number;
    if (input.id) {
      const [row] = await tx
        .update(storyEntities)
        .set({ kind: input.kind, name, description, ...(promptMode ? { promptMode } : {}), updatedAt: new Date() })
        .where(and(eq(storyEntities.id, input.id), eq(storyEntities.workId, workId)))
        .returning({ id: storyEntities.id });
      if (!row) throw new DomainError(BIBLE_MESSAGES.entityNotFound, 404);
      entityId = row.id;
      await tx.delete(storyEntityNames).where(eq(storyEntityNames.entityId, entityId));
    } else {
      const [row] = await tx.insert(storyEntities).values({ workId, kind: input.kind, name, description, promptMode: promptMode ?? "auto" }).returning({ id: storyEntities.id });
      entityId = row.id;
      await record?.(tx, entityId);
    }
    const wanted = [name, ...aliases];
    const inserted = await tx
      .insert(storyEntityNames)
      .values(wanted.map((n, i) => ({ workId, name: n, entityId, isAlias: i > 0 })))
      .onConflictDoNothing()
      .returning({ name: storyEntityNames.name });
    if (inserted.length < wanted.length) {
      const got = new Set(inserted.map((r) => r.name));
      const taken = wanted.find((n) => !got.has(n))!;
      const [owner] = await tx
        .select({ name: storyEntities.name })
        .from(storyEntityNames)
        .innerJoin(storyEntities, eq(storyEntities.id, storyEntityNames.entityId))
        .where(and(eq(storyEntityNames.workId, workId), eq(storyEntityNames.name, taken)));
      throw new DomainError(BIBLE_MESSAGES.nameTaken(taken, owner?.name ?? taken), 409, taken === name ? "name" : "aliases");
    }
    return entityId;
  });
}

/**
 * 读者百科 (decision 259): opts the entity into the work's reader wiki from chapter `from`
 * (where it first appears; undefined: the form left it empty), or out of it (null). Readers see it once they reach that chapter.
 */
export async function setEntityWiki(userId: string, workId: number, entityId: number, from: number | null | undefined): Promise<void> {
  await getOwnedWork(userId, workId);
  if (from === undefined) throw new DomainError(BIBLE_MESSAGES.wikiFromRequired, 400, "wikiFrom");
  if (from !== null && (!Number.isSafeInteger(from) || from < 1 || from > BIBLE_LIMITS.chapter)) throw new DomainError(BIBLE_MESSAGES.chapterNumber, 400, "wikiFrom");
  const rows = await db
    .update(storyEntities)
    .set({ wikiFrom: from })
    .where(and(eq(storyEntities.id, entityId), eq(storyEntities.workId, workId)))
    .returning({ id: storyEntities.id });
  if (rows.length === 0) throw new DomainError(BIBLE_MESSAGES.entityNotFound, 404);
}

export async function deleteEntity(userId: string, workId: number, entityId: number): Promise<void> {
  await getOwnedWork(userId, workId);
  const rows = await db
    .delete(storyEntities)
    .where(and(eq(storyEntities.id, entityId), eq(storyEntities.workId, workId)))
    .returning({ id: storyEntities.id });
  if (rows.length === 0) throw new DomainError(BIBLE_MESSAGES.entityNotFound, 404);
}

// --- Facts ---------------------------------------------------------------------------

export interface FactInput {
  id?: number;
  entityId: number;
  content: string;
  fromChapter?: number | null;
  untilChapter?: number | null;
}

/** Checks a fact; returns it cleaned. Shared by the author's form and accepted proposals. */
export function checkFact(input: Omit<FactInput, "id" | "entityId">) {
  const content = cleanText(input.content);
  if (!content) throw new DomainError(BIBLE_MESSAGES.factRequired, 400, "content");
  if (length(content) > BIBLE_LIMITS.fact) throw new DomainError(BIBLE_MESSAGES.factTooLong, 400, "content");
  const fromChapter = chapterNumber(input.fromChapter, "fromChapter");
  const untilChapter = chapterNumber(input.untilChapter, "untilChapter");
  if (fromChapter !== null && untilChapter !== null && untilChapter < fromChapter) throw new DomainError(BIBLE_MESSAGES.rangeBackwards, 400, "untilChapter");
  return { content, fromChapter, untilChapter };
}

/** Adds (no `id`) or edits a fact; `record` writes a new one's form token in its transaction (decision 077). */
export async function saveFact(userId: string, workId: number, input: FactInput, source: "author" | "ai" = "author", tx: Executor = db, record?: RecordResult): Promise<number> {
  if (record && tx === db) return db.transaction((t) => saveFact(userId, workId, input, source, t, record));
  await getOwnedWork(userId, workId, tx);
  const fact = checkFact(input);
  const [entity] = await tx
    .select({ id: storyEntities.id })
    .from(storyEntities)
    .where(and(eq(storyEntities.id, input.entityId), eq(storyEntities.workId, workId)));
  if (!entity) throw new DomainError(BIBLE_MESSAGES.entityNotFound, 404, "entityId");
  if (input.id) {
    const [row] = await tx
      .update(storyFacts)
      .set({ ...fact, entityId: entity.id })
      .where(and(eq(storyFacts.id, input.id), eq(storyFacts.workId, workId)))
      .returning({ id: storyFacts.id });
    if (!row) throw new DomainError(BIBLE_MESSAGES.factNotFound, 404);
    return row.id;
  }
  const [row] = await tx.insert(storyFacts).values({ ...fact, workId, entityId: entity.id, source }).returning({ id: storyFacts.id });
  await record?.(tx, row.id);
  return row.id;
}

export async function deleteFact(userId: string, workId: number, factId: number): Promise<void> {
  await getOwnedWork(userId, workId);
  const rows = await db.delete(storyFacts).where(and(eq(storyFacts.id, factId), eq(storyFacts.workId, workId))).returning({ id: storyFacts.id });
  if (rows.length === 0) throw new DomainError(BIBLE_MESSAGES.factNotFound, 404);
}

// --- Plot threads --------------------------------------------------------------------

export interface ThreadInput {
  id?: number;
  title: string;
  note?: string;
  plantedChapter?: number | null;
  dueChapter?: number | null;
}

/** Adds (no `id`) or edits a plot thread; `record` writes a new one's form token in its transaction (decision 077). */
export async function saveThread(userId: string, workId: number, input: ThreadInput, record?: RecordResult): Promise<number> {
  await getOwnedWork(userId, workId);
  const title = normalizeName(input.title ?? "");
  if (!title) throw new DomainError(BIBLE_MESSAGES.threadTitleRequired, 400, "title");
  if (length(title) > BIBLE_LIMITS.threadTitle) throw new DomainError(BIBLE_MESSAGES.threadTitleTooLong, 400, "title");
  const note = cleanText(input.note);
  if (length(note) > BIBLE_LIMITS.threadNote) throw new DomainError(BIBLE_MESSAGES.threadNoteTooLong, 400, "note");
  const plantedChapter = chapterNumber(input.plantedChapter, "plantedChapter");
  if (plantedChapter === null) throw new DomainError(BIBLE_MESSAGES.plantedRequired, 400, "plantedChapter");
  const dueChapter = chapterNumber(input.dueChapter, "dueChapter");
  if (dueChapter !== null && dueChapter < plantedChapter) throw new DomainError(BIBLE_MESSAGES.dueBeforePlanted, 400, "dueChapter");
  const values = { title, note, plantedChapter, dueChapter };
  if (input.id) {
    const [row] = await db
      .update(plotThreads)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(plotThreads.id, input.id), eq(plotThreads.workId, workId)))
      .returning({ id: plotThreads.id });
    if (!row) throw new DomainError(BIBLE_MESSAGES.threadNotFound, 404);
    return row.id;
  }
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(plotThreads).values({ ...values, workId }).returning({ id: plotThreads.id });
    await record?.(tx, row.id);
    return row.id;
  });
}

export async function setThreadStatus(userId: string, workId: number, threadId: number, status: "open" | "resolved"): Promise<void> {
  await getOwnedWork(userId, workId);
  const rows = await db
    .update(plotThreads)
    .set({ status, updatedAt: new Date() })
    .where(and(eq(plotThreads.id, threadId), eq(plotThreads.workId, workId)))
    .returning({ id: plotThreads.id });
  if (rows.length === 0) throw new DomainError(BIBLE_MESSAGES.threadNotFound, 404);
}

export async function deleteThread(userId: string, workId: number, threadId: number): Promise<void> {
  await getOwnedWork(userId, workId);
  const rows = await db.delete(plotThreads).where(and(eq(plotThreads.id, threadId), eq(plotThreads.workId, workId))).returning({ id: plotThreads.id });
  if (rows.length === 0) throw new DomainError(BIBLE_MESSAGES.threadNotFound, 404);
}

/** How many chapters of the work readers can read: the reader's chapter numbers run 1..this. */
export async function publishedChapterCount(workId: number, tx: Executor = db): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), eq(chapters.state, "published"), eq(chapters.kind, "chapter")));
  return row?.n ?? 0;
}

/** Open threads whose due chapter is already published (the chapter manager flags them). */
export async function overdueThreads(workId: number) {
  const published = await publishedChapterCount(workId);
  return db
    .select({ id: plotThreads.id, title: plotThreads.title, plantedChapter: plotThreads.plantedChapter, dueChapter: plotThreads.dueChapter })
    .from(plotThreads)
    .where(and(eq(plotThreads.workId, workId), eq(plotThreads.status, "open"), sql`${plotThreads.dueChapter} <= ${published}`))
    .orderBy(asc(plotThreads.dueChapter), asc(plotThreads.id));
}

// --- Summaries -----------------------------------------------------------------------

/** Saves (or, when empty, removes) a chapter's summary. A chapter of another work, or deleted, is refused. */
export async function saveChapterSummary(userId: string, workId: number, chapterId: number, raw: string, tx: Executor = db): Promise<void> {
  await getOwnedWork(userId, workId, tx);
  const summary = cleanText(raw);
  if (length(summary) > BIBLE_LIMITS.summary) throw new DomainError(BIBLE_MESSAGES.summaryTooLong, 400, "summary");
  if (!summary) {
    await tx.delete(chapterSummaries).where(and(eq(chapterSummaries.chapterId, chapterId), eq(chapterSummaries.workId, workId)));
    return;
  }
  // One statement: the chapter must exist in this work at the moment of writing (a chapter
  // deleted meanwhile leaves nothing behind, and the foreign key refuses it anyway).
  const rows = rowsOf(
    await tx.execute(sql`
      insert into ${chapterSummaries} (chapter_id, work_id, summary)
      select c.id, c.work_id, ${summary} from ${chapters} c where c.id = ${chapterId} and c.work_id = ${workId}
      on conflict (chapter_id) do update set summary = excluded.summary, updated_at = now()
      returning chapter_id`),
  );
  if (rows.length === 0) throw new DomainError(BIBLE_MESSAGES.chapterGone, 404, "summary");
}

export async function saveVolumeSummary(userId: string, workId: number, volumeId: number, raw: string): Promise<void> {
  await getOwnedWork(userId, workId);
  const summary = cleanText(raw);
  if (length(summary) > BIBLE_LIMITS.volumeSummary) throw new DomainError(BIBLE_MESSAGES.volumeSummaryTooLong, 400, "summary");
  if (!summary) {
    await db.delete(volumeSummaries).where(and(eq(volumeSummaries.volumeId, volumeId), eq(volumeSummaries.workId, workId)));
    return;
  }
  const rows = rowsOf(
    await db.execute(sql`
      insert into ${volumeSummaries} (volume_id, work_id, summary)
      select v.id, v.work_id, ${summary} from ${volumes} v where v.id = ${volumeId} and v.work_id = ${workId}
      on conflict (volume_id) do update set summary = excluded.summary, updated_at = now()
      returning volume_id`),
  );
  if (rows.length === 0) throw new DomainError(BIBLE_MESSAGES.volumeGone, 404, "summary");
}

/** The author's switch for AI summaries after each publication (off by default). */
export async function setAiSummaries(userId: string, workId: number, enabled: boolean): Promise<void> {
  await getOwnedWork(userId, workId);
  await db.update(works).set({ aiSummaries: enabled }).where(and(eq(works.id, workId), eq(works.userId, userId)));
}

// --- Pages ---------------------------------------------------------------------------

const SUMMARIES_PAGE_SIZE = 20;

const entityOrder = [asc(storyEntities.kind), asc(storyEntities.id)];
const threadOrder = [asc(plotThreads.status), asc(plotThreads.dueChapter), asc(plotThreads.id)];

/** The AI's pending proposals for a work (up to 200), oldest first. */
function proposalsOf(workId: number) {
  return db
    .select({ id: storyProposals.id, kind: storyProposals.kind, entityName: storyProposals.entityName, content: storyProposals.content, fromChapter: storyProposals.fromChapter, chapterTitle: chapters.title })
    .from(storyProposals)
    .innerJoin(chapters, eq(chapters.id, storyProposals.chapterId))
    .where(eq(storyProposals.workId, workId))
    .orderBy(asc(storyProposals.id))
    .limit(200);
}

/** The work's last 10 summary jobs, newest first. */
function recentJobsOf(workId: number) {
  return db
    .select({ id: summaryJobs.id, state: summaryJobs.state, reason: summaryJobs.reason, attempts: summaryJobs.attempts, chapterTitle: chapters.title, updatedAt: summaryJobs.updatedAt })
    .from(summaryJobs)
    .innerJoin(chapters, eq(chapters.id, summaryJobs.chapterId))
    .where(eq(summaryJobs.workId, workId))
    .orderBy(desc(summaryJobs.id))
    .limit(10);
}

/** Entities as the screen shows them: each with its aliases and facts (from lists of the work's). */
function withNamesAndFacts(
  entities: (typeof storyEntities.$inferSelect)[],
  names: (typeof storyEntityNames.$inferSelect)[],
  facts: (typeof storyFacts.$inferSelect)[],
) {
  return entities.map((e) => ({
    id: e.id,
    kind: e.kind,
    name: e.name,
    description: e.description,
    promptMode: e.promptMode,
    wikiFrom: e.wikiFrom,
    aliases: names.filter((n) => n.entityId === e.id).map((n) => n.name),
    facts: facts.filter((f) => f.entityId === e.id).map((f) => ({ id: f.id, content: f.content, fromChapter: f.fromChapter, untilChapter: f.untilChapter, source: f.source })),
  }));
}

/** An open thread due by a chapter already published. */
function isOverdue(thread: { status: string; dueChapter: number | null }, published: number): boolean {
  return thread.status === "open" && isThreadOverdue(thread.dueChapter, published);
}

/** Entities (with their facts) or threads per page of the bible screen, as the summaries tab pages chapters. @internal */
export const BIBLE_PAGE_SIZE = 20;

/**
 * What the bible screen shows on every tab (the work, the published count, the overdue
 * threads' count for the tab's badge, the proposals and recent summary jobs) and, for the
 * 设定 or 伏笔 tab, one page of its entities (with their aliases and facts) or threads
 * (decision 144): a serial of 300 entities and 800 chapters renders BIBLE_PAGE_SIZE of them.
 * A page past the last shows the last.
 */
export async function bibleScreen(userId: string, workId: number, tab: "bible" | "threads" | "summaries" | "voice", page: number) {
  const work = await getOwnedWork(userId, workId);
  const pageOf = (total: number) => ({ ...pageWithin(page, total, BIBLE_PAGE_SIZE), total });
  const [published, [{ overdue }], proposals, jobs, listed] = await Promise.all([
    publishedChapterCount(workId),
    db
      .select({ overdue: sql<number>`count(*)::int` })
      .from(plotThreads)
      .where(
        and(
          eq(plotThreads.workId, workId),
          eq(plotThreads.status, "open"),
          sql`${plotThreads.dueChapter} <= (select count(*) from ${chapters} where ${chapters.workId} = ${workId} and ${chapters.state} = 'published' and ${chapters.kind} = 'chapter')`,
        ),
      ),
    proposalsOf(workId),
    recentJobsOf(workId),
    tab === "bible" ? entityPage(workId) : tab === "threads" ? threadPage(workId) : Promise.resolve(null),
  ]);

  async function entityPage(id: number) {
    const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(storyEntities).where(eq(storyEntities.workId, id));
    const paging = pageOf(total);
    const rows = await db
      .select()
      .from(storyEntities)
      .where(eq(storyEntities.workId, id))
      .orderBy(...entityOrder)
      .offset((paging.page - 1) * BIBLE_PAGE_SIZE)
      .limit(BIBLE_PAGE_SIZE);
    const ids = rows.map((e) => e.id);
    const [names, facts] = ids.length
      ? await Promise.all([
          db.select().from(storyEntityNames).where(and(eq(storyEntityNames.workId, id), eq(storyEntityNames.isAlias, true), inArray(storyEntityNames.entityId, ids))),
          db.select().from(storyFacts).where(and(eq(storyFacts.workId, id), inArray(storyFacts.entityId, ids))).orderBy(asc(storyFacts.fromChapter), asc(storyFacts.id)),
        ])
      : [[], []];
    const states = await statesOf(id, ids);
    return {
      ...paging,
      entities: withNamesAndFacts(rows, names, facts).map((e) => ({ ...e, states: states.filter((s) => s.entityId === e.id) })),
    };
  }

  async function threadPage(id: number) {
    const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(plotThreads).where(eq(plotThreads.workId, id));
    const paging = pageOf(total);
    const rows = await db
      .select()
      .from(plotThreads)
      .where(eq(plotThreads.workId, id))
      .orderBy(...threadOrder)
      .offset((paging.page - 1) * BIBLE_PAGE_SIZE)
      .limit(BIBLE_PAGE_SIZE);
    return { ...paging, threads: rows };
  }

  const threads = listed && "threads" in listed ? listed : null;
  return {
    work: { id: work.id, title: work.title, type: work.type, aiSummaries: work.aiSummaries },
    published,
    overdue,
    proposals,
    jobs,
    entities: listed && "entities" in listed ? listed : null,
    threads: threads ? { ...threads, threads: threads.threads.map((t) => ({ ...t, overdue: isOverdue(t, published) })) } : null,
  };
}

/** The bible screen's page (1-based) that lists an entity, or a thread, of the work: where a save goes back to. */
export async function bibleListPage(workId: number, list: "entity" | "thread", id: number): Promise<number> {
  const table = list === "entity" ? storyEntities : plotThreads;
  const order = sql.join(list === "entity" ? entityOrder : threadOrder, sql`, `);
  const rows = rowsOf<{ n: number | string }>(
    await db.execute(sql`select n from (select id, row_number() over (order by ${order}) as n from ${table} where work_id = ${workId}) r where id = ${id}`),
  );
  return rows[0] ? Math.ceil(Number(rows[0].n) / BIBLE_PAGE_SIZE) : 1;
}

/** The summaries tab: a page of chapters in the reader's order (drafts after), with their summaries, and every volume with its summary. */
export async function summariesView(userId: string, workId: number, page: number) {
  const work = await getOwnedWork(userId, workId);
  const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(chapters).where(eq(chapters.workId, workId));
  const { page: current, pageCount } = pageWithin(page, total, SUMMARIES_PAGE_SIZE);
  const [rows, vols] = await Promise.all([
    db
      .select({ id: chapters.id, title: chapters.title, state: chapters.state, summary: chapterSummaries.summary })
      .from(chapters)
      .leftJoin(chapterSummaries, eq(chapterSummaries.chapterId, chapters.id))
      .where(eq(chapters.workId, workId))
      .orderBy(asc(chapters.position), asc(chapters.id))
      .offset((current - 1) * SUMMARIES_PAGE_SIZE)
      .limit(SUMMARIES_PAGE_SIZE),
    db
      .select({ id: volumes.id, title: volumes.title, summary: volumeSummaries.summary })
      .from(volumes)
      .leftJoin(volumeSummaries, eq(volumeSummaries.volumeId, volumes.id))
      .where(eq(volumes.workId, workId))
      .orderBy(asc(volumes.position), asc(volumes.id)),
  ]);
  return {
    work: { id: work.id, title: work.title, aiSummaries: work.aiSummaries },
    page: current,
    pageCount,
    chapters: rows.map((r, i) => ({ ...r, index: (current - 1) * SUMMARIES_PAGE_SIZE + i + 1, summary: r.summary ?? "" })),
    volumes: vols.map((v) => ({ ...v, summary: v.summary ?? "" })),
  };
}

