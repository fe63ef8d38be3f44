import { and, eq, ne, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { listedVisibility, profiles, works } from "~/db/schema";
import { escapeLike } from "~/server/platform/db-utils.server";
import type { SessionUser } from "~/server/identity/session.server";
import type { AiFilter } from "~/utils/ai-labels";

/**
 * The pieces of the works' search as SQL (docs/decisions/012, 121): the card's columns, the
 * query's normalisation and grams, the match and audience conditions, the count's cap.
 * Shared by the search (search.server.ts) and the filtered listing (filters.server.ts),
 * which search.server.ts calls: here, so the two do not import each other.
 */

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
export function gramsContain(query: string, expression: SQL = workSearchGrams): SQL | undefined {
  const { grams } = queryGrams(query);
  if (grams.length === 0) return undefined;
  const array = sql.join(
    grams.map((g) => sql`${g}`),
    sql`, `,
  );
  return sql`${expression} @> array[${array}]::text[]`;
}

/**
 * Characters that no other character lower-cases to, and that lower-case to themselves:
 * Chinese and Japanese script, decimal digits, punctuation, spaces. Letters with case,
 * and symbols and numerals that have one (Ⓐ, Ⅰ), are left out.
 */
const CASELESS = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\p{Nd}\p{P}\s]*$/u;

/**
 * `column` holds `query`, case-insensitively. ILIKE lower-cases both sides (as
 * work_search_grams does), so it lower-cases every row's whole text: at a million works
 * that was half of a search's cost for each row it tests. For a query of caseless
 * characters only (most Chinese queries) a case-sensitive LIKE finds exactly the same
 * rows, and is what runs (docs/decisions/279).
 */
function containsText(column: AnyColumn, query: string): SQL {
  const pattern = `%${escapeLike(query)}%`;
  return CASELESS.test(query) ? sql`${column} like ${pattern}` : sql`${column} ilike ${pattern}`;
}

/**
 * Case-insensitive substring of title or description. It implies the gram condition and,
 * for 1-2 characters without whitespace, is equivalent to it: on its own it is the cheap
 * per-row test.
 */
export function textMatch(query: string): SQL {
  return sql`(${containsText(works.title, query)} or ${containsText(works.description, query)})`;
}

/**
 * The substring condition on title and description, for any caller (my works, admin,
 * AI sources): the text test (textMatch) decides, and the gram condition lets the gram
 * index find the candidates. The gram condition is a subquery on works so that wherever the
 * planner cannot use the index (an OR with other tables' columns, as in the admin search), it
 * builds the candidate set once (a hashed subplan or a hash join) instead of calling
 * work_search_grams for every row.
 */
export function substringMatch(query: string): SQL | undefined {
  if (!query) return undefined;
  const grams = gramsContain(query);
  if (!grams) return textMatch(query);
  // OFFSET 0 keeps the subquery whole: pulled up into a join, the planner could probe it
  // row by row and call work_search_grams for each candidate.
  return sql`(${textMatch(query)} and ${works.id} in (select ${works.id} from ${works} where ${grams} offset 0))`;
}

/** The expression of profiles_nickname_grams_idx (drizzle/0029): the gram function over the nickname alone. */
const nicknameGrams = sql`work_search_grams(${profiles.nickname}, '')`;

/**
 * Works whose author's nickname holds the query, case-insensitively (docs/decisions/162).
 * The authors are found through profiles_nickname_grams_idx and the text test, and their ids
 * taken as one array: an init plan computed once per statement, so `user_id = any(...)` is
 * answered by works_user_created_idx (beside the gram index, in a BitmapOr) and tested
 * per row, where a plan walks rows, against an array, never by reading profiles again.
 */
export function authorMatch(query: string): SQL | undefined {
  if (!query) return undefined;
  const grams = gramsContain(query, nicknameGrams);
  return sql`${works.userId} = any(array(select ${profiles.id} from ${profiles} where ${grams ? sql`${grams} and ` : sql``}${containsText(profiles.nickname, query)}))`;
}

/**
 * The community search's match for any plan the planner picks (the filtered search):
 * listed works whose title or description, or whose author's nickname, holds the query.
 * The whole match is one subquery on the candidates (the listed part of the gram index's
 * works, works_listed_search_grams_idx, decision 281, and the authors' works, one
 * BitmapOr), kept whole by OFFSET 0: an OR outside it would keep the planner from driving
 * the semi-join from the candidates, and it would test every work instead (10-50 ms at
 * 10,000 works, against well under 1 ms; decision 162).
 */
export function searchMatch(query: string): SQL | undefined {
  if (!query) return undefined;
  const byAuthor = authorMatch(query)!;
  const grams = gramsContain(query);
  const listed = listedVisibility(works.visibility);
  return sql`${works.id} in (select ${works.id} from ${works} where ${listed} and ${grams ? sql`(${grams} or ${byAuthor}) and ` : sql``}(${textMatch(query)} or ${byAuthor}) offset 0)`;
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
 * What any listing shows a viewer (the search, /works?author=, a 书单's entries, decision
 * 232): public and paid works (a private, taken-down or held new work is private) within
 * the viewer's audience preferences.
 */
export function listedFor(viewer: Pick<SessionUser, "showR18" | "showAi"> | null): SQL[] {
  return [listedVisibility(works.visibility), ...audienceFilter(viewer)];
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
