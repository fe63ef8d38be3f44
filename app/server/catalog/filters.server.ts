import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { readDb } from "~/db/client.server";
import { profiles, works, workStats } from "~/db/schema";
import { WORK_LENGTHS, type WorkFilters } from "~/schemas/discovery";
import { pageWithin } from "~/utils/pagination";
import { aiFilter, listedFor, normalizeQuery, SEARCH_COUNT_CAP, searchMatch, workCardColumns, type SearchResult, type WorkCard } from "./search-sql.server";
import type { SessionUser } from "~/server/identity/session.server";
import { blockFilter, type ReaderBlocks } from "./blocks.server";

/**
 * /works with filters (docs/decisions/121): include tags (all of them), exclude tags (any
 * of them hides a work, AO3-style), category, 连载/完本, a length range, and the sorts 最新更新,
 * 收藏, 购买, 字数. Tags use the GIN index on works.tags; the 收藏 and 购买 sorts read the
 * background counts (work_stats, at most a few minutes old). Counted up to
 * SEARCH_COUNT_CAP like the search, past which the page says "1000+".
 */
function textArray(values: string[]): SQL {
  return sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;
}

/** The conditions of the filters alone (not the sort), for any listing of works. */
function filterConditions(f: WorkFilters): SQL[] {
  const out: SQL[] = [];
  if (f.tags.length) out.push(sql`${works.tags} @> ${textArray(f.tags)}`);
  if (f.excludeTags.length) out.push(sql`not (${works.tags} && ${textArray(f.excludeTags)})`);
  if (f.categoryId !== null) out.push(eq(works.categoryId, f.categoryId));
  // 连载中 is an ongoing series; 完本 is every finished work.
  if (f.status) out.push(eq(works.status, f.status));
  if (f.length) {
    const range = WORK_LENGTHS[f.length];
    out.push(gte(works.wordCount, range.min));
    if (range.max !== null) out.push(lt(works.wordCount, range.max));
  }
  out.push(...aiFilter(f.ai));
  // works_user_created_idx answers it.
  if (f.authorId) out.push(eq(works.userId, f.authorId));
  return out;
}

function orderOf(f: WorkFilters) {
  const newest = [desc(works.createdAt), desc(works.id)];
  switch (f.sort) {
    case "updated":
      return [desc(works.updatedAt), desc(works.id)];
    case "favorites":
      return [desc(sql`coalesce(${workStats.favorites}, 0)`), ...newest];
    case "purchases":
      return [desc(sql`coalesce(${workStats.purchases}, 0)`), ...newest];
    case "words":
      return [desc(works.wordCount), ...newest];
    default:
      return newest;
  }
}

export async function filteredSearch(input: {
  query: string;
  filters: WorkFilters;
  page: number;
  pageSize: number;
  viewer: Pick<SessionUser, "showR18" | "showAi"> | null;
  /** The viewer's 屏蔽 (decision 233). */
  blocks: ReaderBlocks;
  countCap?: number;
}): Promise<SearchResult> {
  const query = normalizeQuery(input.query);
  const cap = input.countCap ?? SEARCH_COUNT_CAP;
  const where = and(
    ...listedFor(input.viewer),
    searchMatch(query),
    ...filterConditions(input.filters),
    ...blockFilter(input.blocks),
  );
  const matches = readDb().select({ one: sql`1`.as("one") }).from(works).where(where).limit(cap + 1).as("matches");
  const [{ n }] = await readDb().select({ n: sql<number>`count(*)::int` }).from(matches);
  const totalCapped = n > cap;
  const total = Math.min(n, cap);
  const { page, pageCount } = pageWithin(input.page, total, input.pageSize);
  const sortsByStats = input.filters.sort === "favorites" || input.filters.sort === "purchases";
  const base = readDb().select(workCardColumns).from(works).innerJoin(profiles, eq(profiles.id, works.userId));
  const rows = await (sortsByStats ? base.leftJoin(workStats, eq(workStats.workId, works.id)) : base)
    .where(where)
    .orderBy(...orderOf(input.filters))
    .limit(input.pageSize)
    .offset((page - 1) * input.pageSize);
  return { works: rows as WorkCard[], total, totalCapped, page, pageCount, query };
}
