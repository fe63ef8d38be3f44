import { and, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapterReads, chapters, favorites, works } from "~/db/schema";
import { STATS_DAYS, STUDIO_MESSAGES } from "~/schemas/studio";
import { WORK_MESSAGES } from "~/schemas/work";
import { chapterDisplayTitle } from "~/utils/chapter-title";
import { shanghaiDate, shanghaiDayStart, shanghaiDaysEnding } from "~/utils/shanghai-time";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { salesByDay } from "~/server/economy/income.server";

/**
 * The author's statistics (docs/product.md#author-studio, docs/decisions/099): distinct
 * readers, new follows, purchases and credits by China-time day over the last 30 days, for a
 * work and for one of its chapters.
 */

const STATS_CHAPTERS_PAGE_SIZE = 100;

/**
 * What this process has recorded today: "user:chapter" keys. A reader reopening a chapter
 * (a reload, the chapter list and back) then costs nothing more; the database's
 * ON CONFLICT DO NOTHING is the guarantee across processes and restarts.
 */
const recorded = { day: "", keys: new Set<string>() };
const RECORDED_MAX = 200_000;

/**
 * The row saying a signed-in reader opened a chapter on `at`'s China-time day, or null when
 * this process already wrote it: the reader's position save (saveProgress) writes it in the
 * same statement, so the page makes no extra round trip (docs/decisions/099). Call
 * `rememberChapterRead` once the statement has run.
 */
export function chapterReadToRecord(userId: string, workId: number, chapterId: number, at: Date) {
  const day = shanghaiDate(at);
  if (recorded.day !== day) {
    recorded.day = day;
    recorded.keys.clear();
  }
  if (recorded.keys.has(`${userId}:${chapterId}`)) return null;
  return { chapterId, day, userId, workId };
}

export function rememberChapterRead(read: { userId: string; chapterId: number; day: string }): void {
  if (recorded.day !== read.day) return;
  if (recorded.keys.size >= RECORDED_MAX) recorded.keys.clear();
  recorded.keys.add(`${read.userId}:${read.chapterId}`);
}

/**
 * How many China-time days of `chapter_reads` are kept. Every figure drawn from them looks
 * back at most STATS_DAYS (30: the studio's statistics, the back office's charts; 热门 7),
 * so twice that leaves room for a longer window without keeping a row per reader per
 * chapter per day for ever (docs/decisions/146).
 */
export const CHAPTER_READS_KEPT_DAYS = 2 * STATS_DAYS;

/**
 * Deletes the `chapter_reads` rows older than CHAPTER_READS_KEPT_DAYS, `batch` rows a
 * statement (one short transaction each, so a first run on years of rows neither holds
 * locks long nor builds one huge WAL record), and returns how many. Run by the hourly
 * clean-up (app/server/jobs/cleanup.server.ts); any number of processes may run it at once.
 */
export async function deleteOldChapterReads(options: { now?: Date; batch?: number } = {}): Promise<number> {
  const days = shanghaiDaysEnding(options.now ?? new Date(), CHAPTER_READS_KEPT_DAYS);
  const oldestKept = days[0];
  const batch = options.batch ?? 10_000;
  let deleted = 0;
  for (;;) {
    // `ctid = any(array(...))` reads the batch's rows by address (a TID scan); `ctid in
    // (select ...)` would join against a scan of the whole table for every batch.
    const result = await db.execute(sql`
      delete from ${chapterReads}
      where ctid = any(array(select ctid from ${chapterReads} where day < ${oldestKept}::date limit ${batch}))
        and day < ${oldestKept}::date
      returning 1`);
    const n = rowsOf(result).length;
    deleted += n;
    if (n < batch) return deleted;
  }
}

interface DailySeries {
  /** One value per day of `StatsView.days`. */
  values: number[];
  total: number;
}

export interface StatsView {
  work: { id: number; title: string; type: string; visibility: string };
  /** The 30 China-time days, oldest first ("2026-11-02"). */
  days: string[];
  readers: DailySeries & { distinct: number };
  favorites: DailySeries & { now: number };
  /**
   * Sales (销售笔数: a chapter, a 购买全部, a whole work: one each), what readers paid and
   * the author's share, from the same query as 我的收入 (salesByDay).
   */
  sales: DailySeries;
  gross: DailySeries;
  income: DailySeries;
  /** The chapter asked for with `?chapter=`, with its readers by day. */
  chapter: { id: number; title: string; order: number; label: string; readers: DailySeries & { distinct: number } } | null;
  /**
   * One page of the published chapters with their distinct readers over the 30 days.
   * `label`: the numbered title as shown (chapterDisplayTitle).
   */
  chapters: { id: number; title: string; order: number; label: string; readers: number }[];
  page: number;
  pageCount: number;
}

function series(days: string[], rows: { day: string; n: number | string }[]): DailySeries {
  const byDay = new Map(rows.map((r) => [r.day, Number(r.n)]));
  const values = days.map((d) => byDay.get(d) ?? 0);
  return { values, total: values.reduce((a, b) => a + b, 0) };
}

/** created_at's day in China time (UTC+8 all year), whatever the session's time zone. */
const shanghaiDayOf = (column: unknown) => sql`to_char((${column} at time zone 'UTC') + interval '8 hours', 'YYYY-MM-DD')`;

/**
 * The statistics page of the owner's work. Another user's work, or a chapter id that is not
 * one of this work's published chapters, is a 404.
 */
export async function workStats(
  userId: string,
  workId: number,
  options: { chapterId?: number | null; page?: number; now?: Date } = {},
): Promise<StatsView> {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new DomainError(WORK_MESSAGES.notFound, 404);
  const [work] = await db
    .select({ id: works.id, title: works.title, type: works.type, visibility: works.visibility })
    .from(works)
    .where(and(eq(works.id, workId), eq(works.userId, userId)));
  if (!work) throw new DomainError(WORK_MESSAGES.notFound, 404);

  const days = shanghaiDaysEnding(options.now ?? new Date(), STATS_DAYS);
  const first = days[0];
  const since = shanghaiDayStart(first);
  const chapterId = options.chapterId ?? null;
  if (chapterId !== null && (!Number.isSafeInteger(chapterId) || chapterId <= 0)) {
    throw new DomainError(STUDIO_MESSAGES.chapterNotFound, 404);
  }

  const [readerRows, readerTotal, favoriteRows, favoriteNow, sales, chapterRow, publishedCount] = await Promise.all([
    db.execute(sql`
      select day::text as day, count(distinct user_id)::int as n from ${chapterReads}
      where work_id = ${workId} and day >= ${first}::date group by day`),
    db.execute(sql`select count(distinct user_id)::int as n from ${chapterReads} where work_id = ${workId} and day >= ${first}::date`),
    db.execute(sql`
      select ${shanghaiDayOf(favorites.createdAt)} as day, count(*)::int as n from ${favorites}
      where work_id = ${workId} and created_at >= ${since.toISOString()}::timestamptz group by 1`),
    db.select({ n: sql<number>`count(*)::int` }).from(favorites).where(eq(favorites.workId, workId)),
    salesByDay(userId, { workId, now: options.now }),
    chapterId === null
      ? Promise.resolve(null)
      : db.execute(sql`
          select c.id, c.title,
            (select count(*)::int from ${chapters} p where p.work_id = c.work_id and p.state = 'published' and p.kind = 'chapter' and (p.position, p.id) <= (c.position, c.id)) as "order"
          from ${chapters} c where c.id = ${chapterId} and c.work_id = ${workId} and c.state = 'published' and c.kind = 'chapter'`),
    db.select({ n: sql<number>`count(*)::int` }).from(chapters).where(and(eq(chapters.workId, workId), eq(chapters.state, "published"), eq(chapters.kind, "chapter"))),
  ]);

  let chapter: StatsView["chapter"] = null;
  if (chapterRow) {
    const [row] = rowsOf<{ id: string | number; title: string; order: number }>(chapterRow);
    if (!row) throw new DomainError(STUDIO_MESSAGES.chapterNotFound, 404);
    const [byDay, distinct] = await Promise.all([
      db.execute(sql`
        select day::text as day, count(*)::int as n from ${chapterReads}
        where chapter_id = ${chapterId} and day >= ${first}::date group by day`),
      db.execute(sql`select count(distinct user_id)::int as n from ${chapterReads} where chapter_id = ${chapterId} and day >= ${first}::date`),
    ]);
    chapter = {
      id: Number(row.id),
      title: row.title,
      order: Number(row.order),
      label: chapterDisplayTitle(Number(row.order), row.title),
      readers: { ...series(days, rowsOf(byDay)), distinct: Number(rowsOf<{ n: number }>(distinct)[0]?.n ?? 0) },
    };
  }

  const total = publishedCount[0]?.n ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / STATS_CHAPTERS_PAGE_SIZE));
  const page = Math.min(Math.max(1, Math.floor(options.page ?? 1) || 1), pageCount);
  const offset = (page - 1) * STATS_CHAPTERS_PAGE_SIZE;
  const chapterPage = rowsOf<{ id: string | number; title: string; readers: number }>(
    await db.execute(sql`
      select c.id, c.title,
        (select count(distinct r.user_id)::int from ${chapterReads} r where r.chapter_id = c.id and r.day >= ${first}::date) as readers
      from ${chapters} c
      where c.work_id = ${workId} and c.state = 'published' and c.kind = 'chapter'
      order by c.position, c.id
      limit ${STATS_CHAPTERS_PAGE_SIZE} offset ${offset}`),
  );

  const salesSeries = (pick: (d: (typeof sales.days)[number]) => number) => series(days, sales.days.map((d) => ({ day: d.day, n: pick(d) })));
  return {
    work: { id: Number(work.id), title: work.title, type: work.type, visibility: work.visibility },
    days,
    readers: { ...series(days, rowsOf(readerRows)), distinct: Number(rowsOf<{ n: number }>(readerTotal)[0]?.n ?? 0) },
    favorites: { ...series(days, rowsOf(favoriteRows)), now: favoriteNow[0]?.n ?? 0 },
    sales: salesSeries((d) => d.sales),
    gross: salesSeries((d) => d.gross),
    income: salesSeries((d) => d.income),
    chapter,
    chapters: chapterPage.map((c, i) => ({
      id: Number(c.id),
      title: c.title,
      order: offset + i + 1,
      label: chapterDisplayTitle(offset + i + 1, c.title),
      readers: Number(c.readers),
    })),
    page,
    pageCount,
  };
}
