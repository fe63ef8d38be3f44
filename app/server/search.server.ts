import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { profiles, works } from "~/db/schema";
import { pageCountOf } from "~/utils/pagination";
import type { SessionUser } from "./session.server";

export const SEARCH_PAGE_SIZE = 12;
export const SEARCH_QUERY_MAX = 100;

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
  price: number;
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
  price: works.price,
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

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The substring condition on title and description, index-backed for any length. */
export function substringMatch(query: string): SQL | undefined {
  if (!query) return undefined;
  const { grams, exact } = queryGrams(query);
  const conditions: SQL[] = [];
  if (grams.length > 0) {
    const array = sql.join(
      grams.map((g) => sql`${g}`),
      sql`, `,
    );
    conditions.push(sql`${works.searchGrams} @> array[${array}]::text[]`);
  }
  if (!exact) {
    const pattern = `%${escapeLike(query)}%`;
    conditions.push(sql`(${works.title} ilike ${pattern} or ${works.description} ilike ${pattern})`);
  }
  return and(...conditions);
}

/** DECISIONS D5: what a viewer may see in listings, besides visibility. */
export function audienceFilter(viewer: Pick<SessionUser, "showR18" | "showAi"> | null): SQL[] {
  if (!viewer) return [eq(works.rating, "all_ages")];
  const filters: SQL[] = [];
  if (!viewer.showR18) filters.push(eq(works.rating, "all_ages"));
  if (!viewer.showAi) filters.push(eq(works.isAiGenerated, false));
  return filters;
}

export interface SearchResult {
  works: WorkCard[];
  total: number;
  page: number;
  pageCount: number;
  query: string;
}

/** The community search: public and paid works, newest first, 12 a page. */
export async function searchWorks(input: {
  query: string;
  page: number;
  viewer: Pick<SessionUser, "showR18" | "showAi"> | null;
  pageSize?: number;
}): Promise<SearchResult> {
  const pageSize = input.pageSize ?? SEARCH_PAGE_SIZE;
  const query = normalizeQuery(input.query);
  const where = and(
    inArray(works.visibility, ["public", "public-vip"]),
    ...audienceFilter(input.viewer),
    substringMatch(query),
  );
  const fetchPage = (page: number) =>
    db
      .select(workCardColumns)
      .from(works)
      .innerJoin(profiles, eq(profiles.id, works.userId))
      .where(where)
      .orderBy(desc(works.createdAt), desc(works.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize);
  const countQuery = db
    .select({ n: sql<number>`count(*)::int` })
    .from(works)
    .where(where);

  const [[{ n: total }], firstTry] = await Promise.all([countQuery, fetchPage(input.page)]);
  const pageCount = pageCountOf(total, pageSize);
  // A page past the end shows the last page instead.
  const page = Math.min(Math.max(1, input.page), pageCount);
  const rows = page === input.page ? firstTry : await fetchPage(page);
  return { works: rows as WorkCard[], total, page, pageCount, query };
}
