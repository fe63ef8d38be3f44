import { and, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { readDb, type Transaction } from "~/db/client.server";
import { listedVisibility, profiles, works } from "~/db/schema";
import {
  listedFor,
  authorMatch,
  gramsContain,
  textMatch,
  normalizeQuery,
  queryGrams,
  SEARCH_COUNT_CAP,
  workCardColumns,
  type SearchResult,
  type WorkCard,
} from "./search-sql.server";
import { pageWithin } from "~/utils/pagination";
import { blockFilter, cachedUnlessBlocked, NO_BLOCKS, readerBlocks, type ReaderBlocks } from "./blocks.server";
import type { SessionUser } from "~/server/identity/session.server";
import { hasFilters, type WorkFilters } from "~/schemas/discovery";
import { filteredSearch } from "./filters.server";
import { searchStats } from "./search-stats.server";

/** @internal */
export const SEARCH_PAGE_SIZE = 12;
/** The viewer's preferences, and their id for their 屏蔽 (decision 233). */
type Viewer = (Pick<SessionUser, "showR18" | "showAi"> & { id?: string }) | null;

/**
 * Planner settings for one transaction, so that each search statement runs the plan
 * chosen here, never one chosen from estimates (docs/benchmarks.md).
 */
const PLAN = {
  // Bitmap scan of the gram index, then sort the matches (few, by the count).
  bitmap: planSettings({ indexscan: "off" }),
  // The same, ANDed with the newest works' range of works_listing_idx; with memory enough
  // that a common gram's bitmap stays exact at a million works: a lossy page is rechecked by
  // calling work_search_grams on each of its rows (minutes for a bitmap of 200,000 works).
  window: planSettings({ indexscan: "off", work_mem: "32MB" }),
  // The window's bound: an index-only scan of works_listing_idx, newest first.
  bound: planSettings({ bitmapscan: "off", sort: "off" }),
  // Walk works_listing_idx newest first, testing each row with textMatch (dense matches).
  walk: planSettings({ bitmapscan: "off", sort: "off", incremental_sort: "off" }),
} as const;

/**
 * Every setting a plan touches, each time: they last until the transaction ends, and one
 * statement's must not leak into the next. No sequential scans, no parallel workers
 * (starting them costs more than these short statements take).
 */
function planSettings(changes: { indexscan?: "off"; bitmapscan?: "off"; sort?: "off"; incremental_sort?: "off"; work_mem?: string }) {
  return {
    enable_seqscan: "off",
    enable_indexscan: changes.indexscan ?? "on",
    enable_bitmapscan: changes.bitmapscan ?? "on",
    enable_sort: changes.sort ?? "on",
    enable_incremental_sort: changes.incremental_sort ?? "on",
    max_parallel_workers_per_gather: "0",
    // Only the window raises it; left so for the rest of the transaction.
    ...(changes.work_mem ? { work_mem: changes.work_mem } : {}),
  };
}

/**
 * docs/decisions/271: a query whose gram at least this share of the works hold (the gram
 * statistics, search-stats.server.ts) walks the newest works, never reading the gram index
 * (its bitmap alone costs tens of milliseconds there); one in the statistics but rarer
 * reads a window of the newest works.
 */
const WALK_SHARE = 0.15;
/**
 * The window assumes at least this share of the gram's works reach the viewer (listed, in
 * their audience) and the estimate at most this much too high: it holds
 * keep / (share × WINDOW_MARGIN) works; a window that holds too few matches is read again
 * through the gram index.
 */
const WINDOW_MARGIN = 0.5;
/**
 * The largest window walked rather than read through the gram index (decision 279): a walk
 * costs about 2 µs a row and stops at the page's last match; the gram index's window pays
 * for the bitmap of every candidate first, and there are more of them than the count's
 * bound (or than the cap) whenever a window is looked at.
 */
const WALK_WINDOW = 10_000;

async function usePlan(tx: Transaction, settings: Record<string, string>) {
  const calls = Object.entries(settings).map(([name, value]) => sql`set_config(${name}, ${value}, true)`);
  await tx.execute(sql`select ${sql.join(calls, sql`, `)}`);
}

type SearchInput = {
  query: string;
  /** Tags, category, status, length and sort (docs/decisions/121); none: the plain listing. */
  filters?: WorkFilters;
  page: number;
  viewer: Viewer;
  pageSize?: number;
  /** Tests only: a smaller SEARCH_COUNT_CAP, to reach the capped paths with few works. */
  countCap?: number;
  /** Tests only: the gram statistics' share for the query (null: none), to reach each plan with few works. */
  share?: number | null;
  /** Tests only: the largest window walked (WALK_WINDOW), to reach the gram index's window with few works. */
  walkWindow?: number;
  /** Read from the viewer by searchWorks. */
  blocks?: ReaderBlocks;
};

/**
 * The community search: public and paid works whose title, description or author's
 * nickname holds the query, newest first, 12 a page. The answer
 * depends only on the query, the page and the viewer's two audience preferences, so it
 * comes from the shared few-second copy (public-cache.server.ts, docs/decisions/060),
 * unless the viewer blocked authors or tags (decision 233): their answer is read fresh.
 */
export async function searchWorks(input: SearchInput): Promise<SearchResult> {
  const showR18 = input.viewer?.showR18 ?? false;
  const showAi = input.viewer?.showAi ?? true;
  const blocks = await readerBlocks(input.viewer);
  if (input.filters && hasFilters(input.filters)) {
    const { filters } = input;
    const key = JSON.stringify(["filtered", normalizeQuery(input.query), filters, input.page, input.pageSize ?? SEARCH_PAGE_SIZE, showR18, showAi]);
    const run = () => filteredSearch({ ...input, filters, viewer: { showR18, showAi }, blocks, pageSize: input.pageSize ?? SEARCH_PAGE_SIZE });
    return input.countCap !== undefined ? run() : cachedUnlessBlocked(key, blocks, run);
  }
  if (input.countCap !== undefined || input.share !== undefined || input.walkWindow !== undefined) return searchWorksNow({ ...input, blocks });
  const key = JSON.stringify(["works", normalizeQuery(input.query), input.page, input.pageSize ?? SEARCH_PAGE_SIZE, showR18, showAi]);
  return cachedUnlessBlocked(key, blocks, () => searchWorksNow({ ...input, viewer: { showR18, showAi }, blocks }));
}

/** A finished result, or the page's ids, whose cards are read after commit. */
type Found = Omit<SearchResult, "works"> & ({ works: WorkCard[] } | { ids: number[] });

/**
 * docs/decisions/012 and 271. Past the cap the pages cover the newest `cap` matches, so
 * whatever the page, a search needs at most its newest `keep` matches (cap + 1, or the
 * last page's end); how it finds them depends on how common the query is:
 * - common (a share of WALK_SHARE or more in the gram statistics): walk the newest works,
 *   testing each, until `keep` match: about keep / share rows, no gram index;
 * - fairly common (in the statistics, rarer): the gram index ANDed with the newest works'
 *   range, sized to hold `keep` matches; too few there, the next plan;
 * - otherwise (rare, a longer query, no statistics): the gram index's candidates, tested,
 *   counted up to √(needed × works) (at least `keep`) and sorted in one statement; past
 *   that bound the page is looked for in a window of the newest works, and walked if the
 *   window holds too few (decision 012's amendment of 2026-11-29). A longer query with a
 *   share is first counted as far as `keep` (it may be rare), then read from a window.
 */
async function searchWorksNow(input: SearchInput): Promise<SearchResult> {
  const pageSize = input.pageSize ?? SEARCH_PAGE_SIZE;
  const query = normalizeQuery(input.query);
  const visible = [...listedFor(input.viewer), ...blockFilter(input.blocks ?? NO_BLOCKS)];
  if (!query) return listAll({ where: and(...visible), page: input.page, pageSize, query });

  const cap = input.countCap ?? SEARCH_COUNT_CAP;
  const requested = Math.max(1, Math.floor(input.page) || 1);
  const needed = Math.min(requested, Math.ceil(cap / pageSize)) * pageSize;
  const keep = Math.max(cap + 1, needed);
  const grams = gramsContain(query);
  const { grams: gramList, exact } = queryGrams(query);
  const stats = await searchStats();
  // For a longer query, the least of its pairs' shares: an upper bound only (it may be rare
  // although each of its pairs is common).
  const share = input.share === undefined ? stats.share(gramList) : (input.share ?? undefined);
  // Works by an author whose nickname holds the query match too (docs/decisions/162).
  const byAuthor = authorMatch(query)!;
  // What a row must pass besides being a candidate of the gram index: for 1-2 characters
  // the grams decide exactly, and the text test (LIKE or ILIKE, 1-5 µs a row here) would only
  // repeat them. The walk reads rows that are no candidates, so it always tests the text.
  const tested = and(...visible, or(textMatch(query), byAuthor));
  const candidateTested = exact ? and(...visible) : tested;
  // The candidates of the gram index and the author's works, in a subquery that OFFSET 0
  // keeps whole: the planner can then neither call work_search_grams per row nor AND the
  // bitmap with another index (the visibility column of works_user_created_idx: a 20-30 ms
  // full index scan for nothing). It is aliased "works" so that the same conditions apply
  // outside it. Only listed works are candidates: the gram index's listed part answers
  // (works_listed_search_grams_idx, decision 281), and no private work's row is read.
  const columns = sql.join(
    [works.id, works.userId, works.createdAt, works.visibility, works.rating, works.isAiGenerated, works.aiLevel, works.title, works.description, works.tags],
    sql`, `,
  );
  const listed = listedVisibility(works.visibility);
  const candidates = sql`(select ${columns} from ${works} where ${grams ? sql`(${grams} or ${byAuthor})` : sql`true`} and ${listed} offset 0) as ${works}`;
  // The same among the works at least as new as `since`, as two branches: with the OR, the
  // planner tests the window's rows with work_search_grams one by one (seconds) instead of
  // ANDing the gram index's bitmap with the window's range of works_listing_idx.
  const candidatesSince = (since: string) =>
    sql`(select ${columns} from ${works} where ${grams ?? sql`true`} and ${listed} and ${works.createdAt} >= ${since}::timestamptz
         union select ${columns} from ${works} where ${byAuthor} and ${listed} and ${works.createdAt} >= ${since}::timestamptz) as ${works}`;
  /** The result from the matches' count (all of them, or more than the cap) and the page. */
  const result = (counted: number, page: { works: WorkCard[] } | { ids: number[] }): Found => {
    const total = Math.min(counted, cap);
    return { ...page, total, totalCapped: counted > cap, ...pageWithin(requested, total, pageSize), query };
  };

  const found = await readDb().transaction(async (tx): Promise<Found> => {
    /**
     * One statement: the matches among `from` (at most `limit`, any of them), counted,
     * numbered newest first, and the cards of the requested page, clamped in SQL to the
     * last page (of the newest `cap` past the cap). Right when it read all the matches, or
     * the newest `keep`.
     */
    const rankedPage = async (from: SQL, where: SQL | undefined, limit?: number) => {
      const matches = tx.$with("matches").as(
        tx
          .select({ matchId: sql<number>`${works.id}`.as("match_id"), matchCreated: sql`${works.createdAt}`.as("match_created") })
          .from(from)
          .where(where)
          .limit(limit ?? Number.MAX_SAFE_INTEGER),
      );
      const matchCount = tx.$with("counted").as(tx.select({ n: sql<number>`count(*)::int`.as("n") }).from(matches));
      const ranked = tx.$with("ranked").as(
        tx
          .select({
            rankedId: sql<number>`match_id`.as("ranked_id"),
            rank: sql<number>`row_number() over (order by match_created desc, match_id desc)`.as("rank"),
          })
          .from(matches),
      );
      // The rank before the page's first, computed once (an init plan) and in integers: as an
      // expression in the filter it was computed for every match, in numeric (5 ms for 7,000).
      const pageStart = tx.$with("page_start").as(
        tx
          .select({
            first: sql<number>`(least(${requested}::int, greatest(1, (least(n, ${cap}::int) + ${pageSize - 1}::int) / ${pageSize}::int)) - 1) * ${pageSize}::int`.as("first"),
          })
          .from(matchCount),
      );
      const first = sql`(select first from page_start)`;
      const rows = await tx
        .with(matches, matchCount, ranked, pageStart)
        .select({ ...workCardColumns, counted: sql<number>`(select n from counted)`.mapWith(Number) })
        .from(ranked)
        .innerJoin(works, eq(works.id, ranked.rankedId))
        .innerJoin(profiles, eq(profiles.id, works.userId))
        .where(and(sql`${ranked.rank} > ${first}`, sql`${ranked.rank} <= ${first} + ${pageSize}::int`));
      const counted = rows[0]?.counted ?? 0; // no rows: no matches (the page is clamped)
      return { counted, cards: newestFirst(rows.map(({ counted: _counted, ...card }) => card as WorkCard)) };
    };
    /** The ids of the newest works passing `tested`, `limit` after `offset`, walking works_listing_idx. */
    const walk = async (limit: number, offset = 0) => {
      // The walk's settings (sorts and bitmaps off) make a join to the cards plan badly:
      // the ids first, then their cards by primary key. The text test never calls work_search_grams.
      await usePlan(tx, PLAN.walk);
      const rows = await tx.select({ id: works.id }).from(works).where(tested).orderBy(desc(works.createdAt), desc(works.id)).limit(limit).offset(offset);
      return rows.map((r) => r.id);
    };

    if (share !== undefined && share >= WALK_SHARE && exact) {
      const ids = await walk(keep);
      const done = result(ids.length, { ids: [] });
      return { ...done, ids: ids.slice((done.page - 1) * pageSize, done.page * pageSize) };
    }
    /**
     * The ids of the newest works passing `tested`, `limit` after `offset`, among the newest
     * `size` works only: the walk above, bounded. It reads as many rows as it takes to find
     * the page's last match, never more than `size`.
     */
    const walkWindow = async (size: number, limit: number, offset: number) => {
      await usePlan(tx, PLAN.walk);
      const newest = tx
        .select({ id: works.id, createdAt: works.createdAt, hit: sql<boolean>`${tested}`.as("hit") })
        .from(works)
        .orderBy(desc(works.createdAt), desc(works.id))
        .limit(size)
        .as("newest");
      // The outer order is the subquery's own: the planner adds no sort, and the scan stops early.
      const rows = await tx
        .select({ id: newest.id })
        .from(newest)
        .where(sql`${newest.hit}`)
        .orderBy(desc(newest.createdAt), desc(newest.id))
        .limit(limit)
        .offset(offset);
      return rows.map((r) => r.id);
    };
    /**
     * The page from the newest `size` works (every work at least as new as the size-th, read
     * first by an index-only scan of works_listing_idx so that the planner sees how few works
     * that is), if they hold at least `enough` matches.
     */
    const windowPage = async (size: number, enough: number) => {
      await usePlan(tx, PLAN.bound);
      // As text: a Date would lose the microseconds.
      const [last] = await tx.select({ at: sql<string>`${works.createdAt}::text` }).from(works).orderBy(desc(works.createdAt), desc(works.id)).limit(1).offset(size - 1);
      if (!last) return undefined; // fewer works than that: the gram index reads them all anyway
      await usePlan(tx, PLAN.window);
      const found = await rankedPage(candidatesSince(last.at), candidateTested);
      return found.counted >= enough ? found : undefined;
    };
    /**
     * With more than `keep` matches counted (the total shown is the cap): the page, if the
     * newest `size` works hold it. A small window (the first pages) is walked and stops at
     * the page's last match; a larger one is read through the gram index.
     */
    const pageInWindow = async (counted: number, size: number): Promise<Found | undefined> => {
      const { page } = pageWithin(requested, cap, pageSize);
      if (size <= (input.walkWindow ?? WALK_WINDOW)) {
        const ids = await walkWindow(size, pageSize, (page - 1) * pageSize);
        return ids.length === pageSize ? result(counted, { ids }) : undefined;
      }
      const found = await windowPage(size, needed);
      return found && result(counted, { works: found.cards });
    };

    // One at a time: drizzle's queries start on `then`, so two queries started together
    // may reach the connection in either order, and the settings must come first.
    if (share !== undefined && !exact) {
      // A longer query may be rare: its matches are counted first, as far as `keep`, through
      // the gram index (all of its pairs at once); fewer, that is the answer. More, the page
      // is looked for among the newest works as if the query were as common as its pairs.
      await usePlan(tx, PLAN.bitmap);
      const { counted, cards } = await rankedPage(candidates, candidateTested, keep + 1);
      if (counted <= keep) return result(counted, { works: cards });
      const found = await pageInWindow(counted, Math.ceil(needed / (Math.min(share, WALK_SHARE) * WINDOW_MARGIN)));
      if (found) return found;
    } else if (share !== undefined) {
      // A window that should hold `keep` matches, so that it counts them as far as the cap.
      const found = await windowPage(Math.ceil(keep / (Math.min(share, WALK_SHARE) * WINDOW_MARGIN)), keep);
      if (found) return result(found.counted, { works: found.cards });
    }
    await usePlan(tx, PLAN.bitmap);
    // Sorting the m matches, or finding the newest `needed`, whichever reads fewer: past
    // √(needed × works) matches, finding them reads fewer rows. So the matches are counted up
    // to that bound (at least `keep`) and, when there are no more, sorted in the same
    // statement.
    const bound = Math.max(keep, Math.ceil(Math.sqrt(needed * stats.works)));
    const { counted, cards } = await rankedPage(candidates, candidateTested, bound + 1);
    if (counted <= bound) return result(counted, { works: cards });
    // More: at least (bound + 1) / works of the works match, so the newest 2 × needed × works
    // / (bound + 1) (about 2√(needed × works)) should hold the page; else walk the newest
    // works until it is found (about needed × works / m rows).
    const found = await pageInWindow(counted, Math.ceil(needed / (((bound + 1) / Math.max(stats.works, bound + 1)) * WINDOW_MARGIN)));
    if (found) return found;
    const { page } = pageWithin(requested, cap, pageSize);
    return result(counted, { ids: await walk(pageSize, (page - 1) * pageSize) });
  });
  if (!("ids" in found)) return found;
  // After the transaction, with the planner's own settings, and without holding two
  // pooled connections at once.
  const { ids, ...rest } = found;
  return { works: ids.length === 0 ? [] : await cardsOf(ids), ...rest };
}

/** The work cards of the given ids, in that order. */
async function cardsOf(ids: number[]): Promise<WorkCard[]> {
  const rows = (await readDb()
    .select(workCardColumns)
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(inArray(works.id, ids))) as WorkCard[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is WorkCard => r !== undefined);
}

/** Newest first, then the higher id: the listing's order. */
function newestFirst(cards: WorkCard[]): WorkCard[] {
  return cards.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id);
}

/** /works without a query: every visible work, exactly counted, newest first. */
async function listAll(input: { where: SQL | undefined; page: number; pageSize: number; query: string }) {
  const { where, pageSize, query } = input;
  const fetchPage = (page: number) =>
    readDb()
      .select(workCardColumns)
      .from(works)
      .innerJoin(profiles, eq(profiles.id, works.userId))
      .where(where)
      .orderBy(desc(works.createdAt), desc(works.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize);
  const countQuery = readDb().select({ n: sql<number>`count(*)::int` }).from(works).where(where);

  const [[{ n: total }], firstTry] = await Promise.all([countQuery, fetchPage(input.page)]);
  // A page past the end shows the last page instead.
  const { page, pageCount } = pageWithin(input.page, total, pageSize);
  const rows = page === input.page ? firstTry : await fetchPage(page);
  return { works: rows as WorkCard[], total, totalCapped: false, page, pageCount, query };
}
