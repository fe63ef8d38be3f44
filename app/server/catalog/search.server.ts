import { and, desc, eq, inArray, ne, or, sql, type SQL } from "drizzle-orm";
import { escapeLike } from "~/server/platform/db-utils.server";
import type { AiFilter } from "~/utils/ai-labels";
import { db, type Transaction } from "~/db/client.server";
import { profiles, works } from "~/db/schema";
import { pageWithin } from "~/utils/pagination";
import { cachedPublic } from "~/server/platform/public-cache.server";
import type { SessionUser } from "~/server/identity/session.server";
import { hasFilters, type WorkFilters } from "~/schemas/discovery";
import { filteredSearch } from "./filters.server";

/** @internal */
export const SEARCH_PAGE_SIZE = 12;
const SEARCH_QUERY_MAX = 100;

export interface WorkCard {
  id: number;
  title: string;
  description: string;
  coverUrl: string | null;
  authorNickname: string;
  userId: string;
  wordCount: number;
  chapterCount: number;
  type: "single_chapter" | "multi_chapter" | "series";
  status: "completed" | "ongoing";
  visibility: "public" | "public-vip" | "private";
  rating: "all_ages" | "r18";
  isAiGenerated: boolean;
  aiLevel: "none" | "assisted" | "generated";
  price: number;
  tags: string[];
  createdAt: Date;
}

export const workCardColumns = {
  id: works.id,
  title: works.title,
  description: works.description,
  coverUrl: works.coverUrl,
  authorNickname: profiles.nickname,
  userId: works.userId,
  wordCount: works.wordCount,
  chapterCount: works.chapterCount,
  type: works.type,
  status: works.status,
  visibility: works.visibility,
  rating: works.rating,
  isAiGenerated: works.isAiGenerated,
  aiLevel: works.aiLevel,
  price: works.price,
  tags: works.tags,
  createdAt: works.createdAt,
};

/** Normalises a search box value: trimmed, at most SEARCH_QUERY_MAX characters. */
export function normalizeQuery(q: string | null | undefined): string {
  return Array.from((q ?? "").trim()).slice(0, SEARCH_QUERY_MAX).join("");
}

/**
 * The grams a query needs (see work_search_grams): its character pairs, or its single
 * character, leaving out whitespace. Whether they alone decide the match: a query of
 * one or two characters without whitespace is matched exactly by its grams.
 * @internal
 */
export function queryGrams(query: string): { grams: string[]; exact: boolean } {
  const chars = Array.from(query.toLowerCase());
  const isSpace = (s: string) => /\s/u.test(s);
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) {
    if (!isSpace(chars[i]) && !isSpace(chars[i + 1])) pairs.add(chars[i] + chars[i + 1]);
  }
  const grams = pairs.size > 0 ? [...pairs] : [...new Set(chars.filter((c) => !isSpace(c)))];
  const exact = chars.length <= 2 && !chars.some(isSpace);
  return { grams, exact };
}

/**
 * The expression of works_search_grams_idx (drizzle/0008): a condition must spell it
 * exactly so for the planner to answer it from the index. The function costs a fraction
 * of a millisecond a row; its COST (drizzle/0007) keeps the planner from calling it per
 * row where the index can answer.
 */
const workSearchGrams = sql`work_search_grams(${works.title}, ${works.description})`;

/** All the query's grams present in `expression` (the works' index expression, or the nicknames'): exact for 1-2 characters, a pre-filter otherwise. */
function gramsContain(query: string, expression: SQL = workSearchGrams): SQL | undefined {
  const { grams } = queryGrams(query);
  if (grams.length === 0) return undefined;
  const array = sql.join(
    grams.map((g) => sql`${g}`),
    sql`, `,
  );
  return sql`${expression} @> array[${array}]::text[]`;
}

/**
 * Case-insensitive substring of title or description. ILIKE lower-cases both sides as
 * work_search_grams does, so it implies the gram condition and, for 1-2 characters
 * without whitespace, is equivalent to it: on its own it is the cheap per-row test.
 */
function ilikeMatch(query: string): SQL {
  const pattern = `%${escapeLike(query)}%`;
  return sql`(${works.title} ilike ${pattern} or ${works.description} ilike ${pattern})`;
}

/**
 * The substring condition on title and description, for any caller (my works, admin,
 * AI sources): ILIKE decides, and the gram condition lets the gram index find the
 * candidates. The gram condition is a subquery on works so that wherever the planner
 * cannot use the index (an OR with other tables' columns, as in the admin search), it
 * builds the candidate set once (a hashed subplan or a hash join) instead of calling
 * work_search_grams for every row.
 */
export function substringMatch(query: string): SQL | undefined {
  if (!query) return undefined;
  const grams = gramsContain(query);
  if (!grams) return ilikeMatch(query);
  // OFFSET 0 keeps the subquery whole: pulled up into a join, the planner could probe it
  // row by row and call work_search_grams for each candidate.
  return sql`(${ilikeMatch(query)} and ${works.id} in (select ${works.id} from ${works} where ${grams} offset 0))`;
}

/** The expression of profiles_nickname_grams_idx (drizzle/0029): the gram function over the nickname alone. */
const nicknameGrams = sql`work_search_grams(${profiles.nickname}, '')`;

/**
 * Works whose author's nickname holds the query, case-insensitively (docs/decisions/162).
 * The authors are found through profiles_nickname_grams_idx and ILIKE, and their ids
 * taken as one array: an init plan computed once per statement, so `user_id = any(...)` is
 * answered by works_user_created_idx (beside the gram index, in a BitmapOr) and tested
 * per row, where a plan walks rows, against an array, never by reading profiles again.
 */
function authorMatch(query: string): SQL | undefined {
  if (!query) return undefined;
  const grams = gramsContain(query, nicknameGrams);
  const pattern = `%${escapeLike(query)}%`;
  return sql`${works.userId} = any(array(select ${profiles.id} from ${profiles} where ${grams ? sql`${grams} and ` : sql``}${profiles.nickname} ilike ${pattern}))`;
}

/**
 * The community search's match for any plan the planner picks (the filtered search):
 * title or description, or the author's nickname. The whole match is one subquery on the
 * candidates (the gram index's and the authors' works, one BitmapOr), kept whole by
 * OFFSET 0: an OR outside it would keep the planner from driving the semi-join from the
 * candidates, and it would test every work instead (10-50 ms at 10,000 works, against
 * well under 1 ms; decision 162).
 */
export function searchMatch(query: string): SQL | undefined {
  if (!query) return undefined;
  const byAuthor = authorMatch(query)!;
  const grams = gramsContain(query);
  return sql`${works.id} in (select ${works.id} from ${works} where ${grams ? sql`(${grams} or ${byAuthor}) and ` : sql``}(${ilikeMatch(query)} or ${byAuthor}) offset 0)`;
}

/**
 * docs/product.md D5: what a viewer may see in listings, besides visibility. show_ai off
 * hides the works their authors ticked as AI-generated and those whose published text is
 * mostly generated here (AI生成, decision 126).
 */
export function audienceFilter(viewer: Pick<SessionUser, "showR18" | "showAi"> | null): SQL[] {
  if (!viewer) return [eq(works.rating, "all_ages")];
  const filters: SQL[] = [];
  if (!viewer.showR18) filters.push(eq(works.rating, "all_ages"));
  if (!viewer.showAi) filters.push(eq(works.isAiGenerated, false), ne(works.aiLevel, "generated"));
  return filters;
}

/**
 * The reader's AI filter on /works, one of its filters (decision 126), beside show_ai: 无 (neither ticked nor
 * labelled), AI辅助, AI生成 (labelled so, or ticked by the author).
 */
export function aiFilter(filter: AiFilter | null | undefined): SQL[] {
  if (!filter) return [];
  if (filter === "generated") return [or(eq(works.aiLevel, "generated"), eq(works.isAiGenerated, true))!];
  return [eq(works.aiLevel, filter), eq(works.isAiGenerated, false)];
}

/**
 * docs/decisions/012-search-count.md: a search counts its matches up to this many; past
 * it the page says "1000+" and lists the newest SEARCH_COUNT_CAP only (84 pages of 12).
 */
export const SEARCH_COUNT_CAP = 1000;

export interface SearchResult {
  works: WorkCard[];
  /** The number of matches, or the cap when totalCapped. */
  total: number;
  /** More than `total` works match; pages cover the newest `total`. */
  totalCapped: boolean;
  page: number;
  pageCount: number;
  query: string;
}

type Viewer = Pick<SessionUser, "showR18" | "showAi"> | null;

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
};

/**
 * The community search: public and paid works whose title, description or author's
 * nickname holds the query, newest first, 12 a page. The answer
 * depends only on the query, the page and the viewer's two audience preferences, so it
 * comes from the shared few-second copy (public-cache.server.ts, docs/decisions/060).
 */
export function searchWorks(input: SearchInput): Promise<SearchResult> {
  const showR18 = input.viewer?.showR18 ?? false;
  const showAi = input.viewer?.showAi ?? true;
  if (input.filters && hasFilters(input.filters)) {
    const { filters } = input;
    const key = JSON.stringify(["filtered", normalizeQuery(input.query), filters, input.page, input.pageSize ?? SEARCH_PAGE_SIZE, showR18, showAi]);
    const run = () => filteredSearch({ ...input, filters, viewer: { showR18, showAi }, pageSize: input.pageSize ?? SEARCH_PAGE_SIZE });
    return input.countCap !== undefined ? run() : cachedPublic(key, run);
  }
  if (input.countCap !== undefined) return searchWorksNow(input);
  const key = JSON.stringify(["works", normalizeQuery(input.query), input.page, input.pageSize ?? SEARCH_PAGE_SIZE, showR18, showAi]);
  return cachedPublic(key, () => searchWorksNow({ ...input, viewer: { showR18, showAi } }));
}

async function searchWorksNow(input: SearchInput): Promise<SearchResult> {
  const pageSize = input.pageSize ?? SEARCH_PAGE_SIZE;
  const query = normalizeQuery(input.query);
  const visible = [inArray(works.visibility, ["public", "public-vip"]), ...audienceFilter(input.viewer)];
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
    [works.id, works.userId, works.createdAt, works.visibility, works.rating, works.isAiGenerated, works.aiLevel, works.title, works.description],
    sql`, `,
  )} from ${works} where ${grams ? sql`(${grams} or ${byAuthor})` : sql`true`} offset 0) as ${works}`;

  // A finished result, or for a walk the page's ids, whose cards are read after commit.
  type Found = SearchResult | (Omit<SearchResult, "works"> & { ids: number[] });
  const found = await db.transaction(async (tx): Promise<Found> => {
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
    // newest works until `needed` matches, about needed × works / m rows. The first pages
    // (needed <= cap / 8) walk at most cap / 8 × works / cap rows. Deeper pages first
    // count the gram index's candidates (no ILIKE, no visibility: cheaper, and an upper
    // bound of m) up to 10 × cap: the walk when there are more, else a sort of at most
    // that many.
    const needed = page * pageSize;
    const walk = needed <= Math.ceil(cap / 8) || (await countUpTo(10 * cap)) > 10 * cap;
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
  const rows = (await db
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
    db
      .select(workCardColumns)
      .from(works)
      .innerJoin(profiles, eq(profiles.id, works.userId))
      .where(where)
      .orderBy(desc(works.createdAt), desc(works.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize);
  const countQuery = db.select({ n: sql<number>`count(*)::int` }).from(works).where(where);

  const [[{ n: total }], firstTry] = await Promise.all([countQuery, fetchPage(input.page)]);
  // A page past the end shows the last page instead.
  const { page, pageCount } = pageWithin(input.page, total, pageSize);
  const rows = page === input.page ? firstTry : await fetchPage(page);
  return { works: rows as WorkCard[], total, totalCapped: false, page, pageCount, query };
}
