import { and, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { readDb, type Transaction } from "~/db/client.server";
import { profiles, works } from "~/db/schema";
import {
  listedFor,
  authorMatch,
  gramsContain,
  ilikeMatch,
  normalizeQuery,
  queryGrams,
  SEARCH_COUNT_CAP,
  workCardColumns,
  type SearchResult,
  type WorkCard,
} from "./search-sql.server";
import { pageWithin } from "~/utils/pagination";
import { rowsOf } from "~/server/platform/db-utils.server";
import { blockFilter, cachedUnlessBlocked, NO_BLOCKS, readerBlocks, type ReaderBlocks } from "./blocks.server";
import type { SessionUser } from "~/server/identity/session.server";
import { hasFilters, type WorkFilters } from "~/schemas/discovery";
import { filteredSearch } from "./filters.server";

/** @internal */
export const SEARCH_PAGE_SIZE = 12;
/** The viewer's preferences, and their id for their 屏蔽 (decision 233). */
type Viewer = (Pick<SessionUser, "showR18" | "showAi"> & { id?: string }) | null;

/**
 * Planner settings for one transaction, so that each search statement runs the plan
 * chosen here from the count, never one chosen from estimates (docs/benchmarks.md).
 */
const PLAN = {
  // No parallel workers: starting them costs more than these short statements take.
  // Bitmap scan of the gram index, then sort the matches (few, by the count).
  bitmap: { enable_seqscan: "off", enable_indexscan: "off", max_parallel_workers_per_gather: "0" },
  // Walk works_listing_idx newest first, testing each row with ILIKE (dense matches).
  walk: {
    enable_seqscan: "off",
    enable_bitmapscan: "off",
    enable_sort: "off",
    enable_incremental_sort: "off",
    max_parallel_workers_per_gather: "0",
  },
} as const;

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
  /** Read from the viewer by searchWorks. */
  blocks?: ReaderBlocks;
};

/** The planner's estimate of the number of works (pg_class.reltuples; 0 before any ANALYZE). */
async function worksEstimate(tx: Transaction): Promise<number> {
  const [row] = rowsOf<{ n: number }>(await tx.execute(sql`select greatest(reltuples, 0)::float8 as n from pg_class where oid = 'works'::regclass`));
  return Number(row?.n ?? 0);
}

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
  if (input.countCap !== undefined) return searchWorksNow({ ...input, blocks });
  const key = JSON.stringify(["works", normalizeQuery(input.query), input.page, input.pageSize ?? SEARCH_PAGE_SIZE, showR18, showAi]);
  return cachedUnlessBlocked(key, blocks, () => searchWorksNow({ ...input, viewer: { showR18, showAi }, blocks }));
}

async function searchWorksNow(input: SearchInput): Promise<SearchResult> {
  const pageSize = input.pageSize ?? SEARCH_PAGE_SIZE;
  const query = normalizeQuery(input.query);
  const visible = [...listedFor(input.viewer), ...blockFilter(input.blocks ?? NO_BLOCKS)];
  if (!query) return listAll({ where: and(...visible), page: input.page, pageSize, query });

  const cap = input.countCap ?? SEARCH_COUNT_CAP;
  const grams = gramsContain(query);
  // Works by an author whose nickname holds the query match too (docs/decisions/162).
  const byAuthor = authorMatch(query)!;
  // What a row must pass besides being a candidate of the gram index: for 1-2 characters
  // the grams decide exactly, and ILIKE (4-5 µs a row here) would only repeat them. The
  // walk reads rows that are no candidates, so it always tests with ILIKE.
  const tested = and(...visible, or(ilikeMatch(query), byAuthor));
  const candidateTested = queryGrams(query).exact ? and(...visible) : tested;
  // The candidates of the gram index and the author's works, in a subquery that OFFSET 0
  // keeps whole: the planner can then neither call work_search_grams per row nor AND the
  // bitmap with another index (the visibility column of works_user_created_idx: a 20-30 ms
  // full index scan for nothing). It is aliased "works" so that the same conditions apply
  // outside it.
  const candidates = sql`(select ${sql.join(
    [works.id, works.userId, works.createdAt, works.visibility, works.rating, works.isAiGenerated, works.aiLevel, works.title, works.description, works.tags],
    sql`, `,
  )} from ${works} where ${grams ? sql`(${grams} or ${byAuthor})` : sql`true`} offset 0) as ${works}`;

  // A finished result, or for a walk the page's ids, whose cards are read after commit.
  type Found = SearchResult | (Omit<SearchResult, "works"> & { ids: number[] });
  const found = await readDb().transaction(async (tx): Promise<Found> => {
    /** Rows of the candidates, passing `where` if given, counted up to limit + 1. */
    const countUpTo = async (limit: number, where?: SQL) => {
      const matches = tx
        .select({ one: sql`1`.as("one") })
        .from(candidates)
        .where(where)
        .limit(limit + 1)
        .as("matches");
      const [{ n }] = await tx.select({ n: sql<number>`count(*)::int` }).from(matches);
      return n;
    };

    // One at a time: drizzle's queries start on `then`, so two queries started together
    // may reach the connection in either order, and the settings must come first.
    await usePlan(tx, PLAN.bitmap);

    // One statement counts the matches up to the cap + 1 and, when there are no more than
    // the cap (a precise query), also returns the page's cards: the matches are read once
    // and numbered newest first, and a page past the end is clamped to the last one here.
    const matches = tx.$with("matches").as(
      tx
        .select({ matchId: sql<number>`${works.id}`.as("match_id"), matchCreated: sql`${works.createdAt}`.as("match_created") })
        .from(candidates)
        .where(candidateTested)
        .limit(cap + 1),
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
    const firstOfPage = sql`(least(${Math.max(1, input.page)}, greatest(1, ceil((select n from counted) / ${pageSize}::numeric))) - 1) * ${pageSize}`;
    const firstRows = await tx
      .with(matches, matchCount, ranked)
      .select({ ...workCardColumns, counted: sql<number>`(select n from counted)`.mapWith(Number) })
      .from(ranked)
      .innerJoin(works, eq(works.id, ranked.rankedId))
      .innerJoin(profiles, eq(profiles.id, works.userId))
      .where(and(sql`${ranked.rank} > ${firstOfPage}`, sql`${ranked.rank} <= ${firstOfPage} + ${pageSize}`));
    const counted = firstRows[0]?.counted ?? 0; // no rows: no matches (the page is clamped)
    const totalCapped = counted > cap;
    const total = Math.min(counted, cap);
    // A page past the end shows the last page instead.
    const { page, pageCount } = pageWithin(input.page, total, pageSize);
    if (!totalCapped) {
      const cards = firstRows.map(({ counted: _counted, ...card }) => card as WorkCard);
      return { works: newestFirst(cards), total, totalCapped, page, pageCount, query };
    }

    // Past the cap, which plan reads fewer rows: sorting the m matches, or walking the
    // newest works until `needed` matches, about needed × works / m rows. The two are equal
    // where m = √(needed × works): the gram index's candidates (no ILIKE, no visibility:
    // cheaper, and an upper bound of m) are counted up to that bound, the walk when there are
    // more, else a sort of at most that many; either reads at most about √(needed × works)
    // rows, whatever the size of the site (bench:scale, decision 012's amendment of
    // 2026-11-29: with a fixed bound the walk grew with the works, 1.8 s at a million).
    const needed = page * pageSize;
    const bound = Math.max(cap + 1, Math.ceil(Math.sqrt(needed * (await worksEstimate(tx)))));
    const walk = (await countUpTo(bound)) > bound;
    // The walk tests each row with ILIKE alone, which never calls work_search_grams.
    const pageIds = tx
      // Spelt as SQL: drizzle refuses a table's column when selecting from a subquery.
      .select({ id: sql<number>`${works.id}`.mapWith(Number).as("page_id") })
      .from(walk ? works : candidates)
      .where(walk ? tested : candidateTested)
      .orderBy(desc(works.createdAt), desc(works.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize);
    if (walk) {
      // The walk's settings (sorts and bitmaps off) make a join to the cards plan badly:
      // the ids first, then their cards by primary key.
      await usePlan(tx, PLAN.walk);
      return { ids: (await pageIds).map((r) => r.id), total, totalCapped, page, pageCount, query };
    }
    // The page's cards in the same statement: its 12 ids drive primary-key lookups. No
    // ORDER BY outside (it would sort again what is already sorted): sorted here instead.
    const page12 = pageIds.as("page");
    const pageRows = await tx
      .select(workCardColumns)
      .from(page12)
      .innerJoin(works, eq(works.id, page12.id))
      .innerJoin(profiles, eq(profiles.id, works.userId));
    return { works: newestFirst(pageRows as WorkCard[]), total, totalCapped, page, pageCount, query };
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
