import { and, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapterComments, chapterReads, chapters, storyEntities, storyEntityNames, works } from "~/db/schema";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { WORK_MESSAGES } from "~/schemas/work";
import { chapterDisplayTitle } from "~/utils/chapter-title";
import { splitParagraphs } from "~/utils/reading";
import { shanghaiDate } from "~/utils/shanghai-time";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { Matcher } from "~/server/screening/matcher.server";
import { commentCounts } from "~/server/community/comments.server";
import { CHAPTER_READS_KEPT_DAYS } from "./author-stats.server";

/**
 * 读者行为 (docs/product.md#author-studio, docs/decisions/253): what the work's readers do,
 * for its author only. Drop-off by chapter from `chapter_reads`, 段评 heat per paragraph of
 * one chapter, and the characters of the story bible most mentioned in comments.
 */

/** Days after the first read of chapter N (and N+1 being out) in which reading N+1 counts as going on. */
const DROP_WINDOW_DAYS = 7;
/** A chapter needs this many settled readers before its drop can be marked as one of the steepest. */
const DROP_MIN_READERS = 5;
const DROP_STEEPEST = 3;
const DROP_PAGE_SIZE = 100;
/** The newest comments scanned for characters' names (docs/decisions/254). */
const MENTION_SCAN_LIMIT = 5_000;
const MENTION_TOP = 10;
const EXCERPT_CHARS = 40;

interface DropRow {
  id: number;
  order: number;
  label: string;
  /** Readers whose window has passed: counted. */
  settled: number;
  /** Of those, who did not read the next chapter within the window. */
  dropped: number;
  /** dropped / settled in whole per cent, or null when nobody is settled. */
  percent: number | null;
  /** Readers still inside their window: not counted yet. */
  pending: number;
  /** The last published chapter: there is no next one to go on to. */
  last: boolean;
  steep: boolean;
}

interface HeatParagraph {
  index: number;
  excerpt: string;
  count: number;
}

export interface ReaderInsightsView {
  work: { id: number; title: string };
  drop: { rows: DropRow[]; steepest: DropRow[]; page: number; pageCount: number; total: number };
  /** Every published chapter, for the 段评 chapter picker. */
  chapterOptions: { id: number; label: string }[];
  /** A chapter was asked for that is not one of this work's published chapters (the page answers 404 with it). */
  heatError: string | null;
  heat: { chapterId: number; label: string; order: "text" | "hot"; paragraphs: HeatParagraph[]; max: number; total: number } | null;
  mentions: { characters: { id: number; name: string; count: number }[]; scanned: number; capped: boolean; hasCharacters: boolean };
  /** The rules behind the numbers, for the page's explanations. */
  rules: { windowDays: number; minReaders: number; keptDays: number; scanLimit: number };
}

async function ownedWork(userId: string, workId: number) {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new DomainError(WORK_MESSAGES.notFound, 404);
  const [work] = await db
    .select({ id: works.id, title: works.title, userId: works.userId })
    .from(works)
    .where(and(eq(works.id, workId), eq(works.userId, userId)));
  if (!work) throw new DomainError(WORK_MESSAGES.notFound, 404);
  return work;
}

/**
 * Drop-off by chapter (decision 253): for each published chapter N, the readers whose first
 * read of N (in the kept `chapter_reads`, CHAPTER_READS_KEPT_DAYS) is on day D; the window
 * runs from D, or from the China day N+1 was published if later, for DROP_WINDOW_DAYS more
 * days. A reader whose window has not ended by yesterday is pending, not counted; a settled
 * reader dropped when their first read of N+1 is not on or before the window's last day.
 */
async function dropOff(workId: number, ownerId: string, now: Date): Promise<Omit<DropRow, "label" | "steep">[]> {
  const today = shanghaiDate(now);
  const result = await db.execute(sql`
    with pub as (
      select id, publish_at, row_number() over (order by position, id)::int as ord
      from ${chapters} where work_id = ${workId} and state = 'published' and kind = 'chapter'
    ),
    firsts as (
      select user_id, chapter_id, min(day) as day from ${chapterReads}
      where work_id = ${workId} and user_id <> ${ownerId}
      group by user_id, chapter_id
    ),
    windows as (
      select p.id, n.id as next_id, f.user_id,
        greatest(f.day, coalesce(((n.publish_at at time zone 'UTC') + interval '8 hours')::date, f.day)) + ${DROP_WINDOW_DAYS}::int as deadline
      from pub p join pub n on n.ord = p.ord + 1 join firsts f on f.chapter_id = p.id
    ),
    counted as (
      select w.id,
        count(*) filter (where w.deadline < ${today}::date)::int as settled,
        count(*) filter (where w.deadline < ${today}::date and (g.day is null or g.day > w.deadline))::int as dropped,
        count(*) filter (where w.deadline >= ${today}::date)::int as pending
      from windows w left join firsts g on g.user_id = w.user_id and g.chapter_id = w.next_id
      group by w.id
    )
    select p.id, p.ord, coalesce(c.settled, 0) as settled, coalesce(c.dropped, 0) as dropped, coalesce(c.pending, 0) as pending,
      not exists (select 1 from pub n where n.ord = p.ord + 1) as last
    from pub p left join counted c on c.id = p.id
    order by p.ord`);
  return rowsOf<{ id: number | string; ord: number; settled: number; dropped: number; pending: number; last: boolean }>(result).map((r) => {
    const settled = Number(r.settled);
    const dropped = Number(r.dropped);
    return {
      id: Number(r.id),
      order: Number(r.ord),
      settled,
      dropped,
      percent: settled > 0 ? Math.round((dropped * 100) / settled) : null,
      pending: Number(r.pending),
      last: Boolean(r.last),
    };
  });
}

/** The chapters with the steepest drops: DROP_STEEPEST highest rates with at least DROP_MIN_READERS settled readers. */
function steepestIds(rows: Omit<DropRow, "label" | "steep">[]): Set<number> {
  const ranked = rows
    .filter((r) => r.settled >= DROP_MIN_READERS && r.dropped > 0)
    .sort((a, b) => b.dropped / b.settled - a.dropped / a.settled || b.dropped - a.dropped || a.order - b.order);
  return new Set(ranked.slice(0, DROP_STEEPEST).map((r) => r.id));
}

/**
 * 段评 heat of one published chapter: its paragraphs as readers see them with the count of
 * visible 段评 on each, the reader's own numbers (commentCounts). Null chapter: none asked.
 */
async function paragraphHeat(workId: number, chapterId: number) {
  const [row] = rowsOf<{ id: number | string; title: string; content: string; ord: number }>(
    await db.execute(sql`
      select c.id, c.title, c.content,
        (select count(*)::int from ${chapters} p where p.work_id = c.work_id and p.state = 'published' and p.kind = 'chapter' and (p.position, p.id) <= (c.position, c.id)) as ord
      from ${chapters} c where c.id = ${chapterId} and c.work_id = ${workId} and c.state = 'published' and c.kind = 'chapter'`),
  );
  if (!row) return null;
  const counts = await commentCounts(chapterId);
  const paragraphs = splitParagraphs(row.content).map((text, index) => {
    const chars = Array.from(text);
    return {
      index,
      excerpt: chars.length > EXCERPT_CHARS ? `${chars.slice(0, EXCERPT_CHARS).join("")}…` : text,
      count: counts.paragraphs[index] ?? 0,
    };
  });
  return { chapterId: Number(row.id), label: chapterDisplayTitle(Number(row.ord), row.title), paragraphs };
}

/**
 * The characters most mentioned in the work's visible comments (本章说, 段评, replies and
 * tip messages; not the author's own), through the bible's names and aliases: one pass of
 * the screening's Aho-Corasick matcher over each comment (decision 254), each comment
 * counting once per character, over the newest MENTION_SCAN_LIMIT comments.
 */
async function characterMentions(workId: number, ownerId: string) {
  const names = await db
    .select({ name: storyEntityNames.name, entityId: storyEntityNames.entityId, entityName: storyEntities.name })
    .from(storyEntityNames)
    .innerJoin(storyEntities, eq(storyEntities.id, storyEntityNames.entityId))
    .where(and(eq(storyEntityNames.workId, workId), eq(storyEntities.kind, "character")));
  const entities = await db
    .select({ id: storyEntities.id, name: storyEntities.name })
    .from(storyEntities)
    .where(and(eq(storyEntities.workId, workId), eq(storyEntities.kind, "character")));
  if (entities.length === 0) return { characters: [], scanned: 0, capped: false, hasCharacters: false };
  const nameOf = new Map(entities.map((e) => [e.id, e.name]));
  const words = [
    ...entities.map((e) => ({ word: e.name, category: String(e.id), level: "replace" as const })),
    ...names.map((n) => ({ word: n.name, category: String(n.entityId), level: "replace" as const })),
  ];
  const matcher = new Matcher(words);
  // The work's chapters' comments over (chapter_id, created_at): chapter_comments has no
  // index on work_id, and the newest first is what the cap keeps.
  const bodies = rowsOf<{ body: string }>(
    await db.execute(sql`
      select body from ${chapterComments}
      where chapter_id = any(array(select id from ${chapters} where work_id = ${workId}))
        and hidden_at is null and user_id <> ${ownerId} and body <> ''
      order by created_at desc, id desc
      limit ${MENTION_SCAN_LIMIT + 1}`),
  );
  const capped = bodies.length > MENTION_SCAN_LIMIT;
  const scanned = bodies.slice(0, MENTION_SCAN_LIMIT);
  const counts = new Map<number, number>();
  for (const { body } of scanned) {
    const seen = new Set<string>();
    for (const hit of matcher.find(body)) seen.add(hit.category);
    for (const id of seen) counts.set(Number(id), (counts.get(Number(id)) ?? 0) + 1);
  }
  const characters = [...counts]
    .map(([id, count]) => ({ id, name: nameOf.get(id) ?? "", count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name, "zh-CN") || a.id - b.id)
    .slice(0, MENTION_TOP);
  return { characters, scanned: scanned.length, capped, hasCharacters: true };
}

/**
 * The 读者行为 page of the owner's work. Another user's work is a 404; a `chapterId` that is
 * not one of this work's published chapters (NaN for a garbage parameter) gives `heatError`.
 */
export async function readerInsights(
  userId: string,
  workId: number,
  options: { chapterId?: number | null; order?: "text" | "hot"; page?: number; now?: Date } = {},
): Promise<ReaderInsightsView> {
  const work = await ownedWork(userId, workId);
  const now = options.now ?? new Date();
  const chapterId = options.chapterId ?? null;
  const validChapter = chapterId !== null && Number.isSafeInteger(chapterId) && chapterId > 0;
  const [drops, titles, heat, mentions] = await Promise.all([
    dropOff(work.id, work.userId, now),
    db.execute(sql`
      select id, title from ${chapters} where work_id = ${work.id} and state = 'published' and kind = 'chapter' order by position, id`),
    validChapter ? paragraphHeat(work.id, chapterId) : Promise.resolve(null),
    characterMentions(work.id, work.userId),
  ]);
  const titleRows = rowsOf<{ id: number | string; title: string }>(titles);
  const labels = new Map(titleRows.map((t, i) => [Number(t.id), chapterDisplayTitle(i + 1, t.title)]));
  const steep = steepestIds(drops);
  const rows: DropRow[] = drops.map((d) => ({ ...d, label: labels.get(d.id) ?? chapterDisplayTitle(d.order, ""), steep: steep.has(d.id) }));
  const pageCount = Math.max(1, Math.ceil(rows.length / DROP_PAGE_SIZE));
  const page = Math.min(Math.max(1, Math.floor(options.page ?? 1) || 1), pageCount);
  const order = options.order === "hot" ? "hot" : "text";
  let heatView: ReaderInsightsView["heat"] = null;
  if (heat) {
    const paragraphs = order === "hot" ? [...heat.paragraphs].sort((a, b) => b.count - a.count || a.index - b.index) : heat.paragraphs;
    heatView = {
      ...heat,
      order,
      paragraphs,
      max: Math.max(0, ...heat.paragraphs.map((p) => p.count)),
      total: heat.paragraphs.reduce((sum, p) => sum + p.count, 0),
    };
  }
  return {
    work: { id: Number(work.id), title: work.title },
    drop: {
      rows: rows.slice((page - 1) * DROP_PAGE_SIZE, page * DROP_PAGE_SIZE),
      steepest: rows.filter((r) => r.steep).sort((a, b) => b.dropped / b.settled - a.dropped / a.settled || a.order - b.order),
      page,
      pageCount,
      total: rows.length,
    },
    chapterOptions: titleRows.map((t) => ({ id: Number(t.id), label: labels.get(Number(t.id))! })),
    heat: heatView,
    heatError: chapterId !== null && !heat ? STUDIO_MESSAGES.heatChapterNotFound : null,
    mentions,
    rules: { windowDays: DROP_WINDOW_DAYS, minReaders: DROP_MIN_READERS, keptDays: CHAPTER_READS_KEPT_DAYS, scanLimit: MENTION_SCAN_LIMIT },
  };
}
