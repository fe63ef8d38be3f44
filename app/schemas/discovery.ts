import { parseAiFilter, type AiFilter } from "~/utils/ai-labels";
import { parseTags } from "./tag-rules";

/**
 * docs/product.md#discovery: filters and rankings, without zod: the list pages ship this
 * (docs/decisions/243). The back office's category forms are in categories.ts.
 */

// ---- The works filters (/works and /tags/:name): a GET form, read leniently ----------

export const WORK_SORTS = {
  newest: "最新发布",
  updated: "最新更新",
  favorites: "收藏最多",
  purchases: "购买最多",
  words: "字数最多",
} as const;
type WorkSort = keyof typeof WORK_SORTS;

/** Length ranges in 字 (docs/product.md#discovery). */
export const WORK_LENGTHS = {
  short: { label: "10万字以下", min: 0, max: 100_000 },
  medium: { label: "10万-50万字", min: 100_000, max: 500_000 },
  long: { label: "50万-100万字", min: 500_000, max: 1_000_000 },
  epic: { label: "100万字以上", min: 1_000_000, max: null },
} as const;
type WorkLength = keyof typeof WORK_LENGTHS;

export const WORK_STATUS_FILTERS = { ongoing: "连载中", completed: "已完本" } as const;

export interface WorkFilters {
  /** Works must carry every one of these tags. */
  tags: string[];
  /** Works must carry none of these (AO3-style exclusion). */
  excludeTags: string[];
  categoryId: number | null;
  status: keyof typeof WORK_STATUS_FILTERS | null;
  length: WorkLength | null;
  sort: WorkSort;
  /** The AI label filter (docs/decisions/126): 无, AI辅助 or AI生成. */
  ai: AiFilter | null;
  /** One author's works (`author`, their user id): where author names link (docs/decisions/162). */
  authorId: string | null;
}

/** @internal */
export const NO_FILTERS: WorkFilters = { tags: [], excludeTags: [], categoryId: null, status: null, length: null, sort: "newest", ai: null, authorId: null };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FILTER_TAGS_MAX = 10;

/**
 * The filters of a query string. A link or a hand-typed address can carry anything:
 * what is not understood is ignored (never an error page). Tags come as `tags` (a
 * text of tags separated by commas, as the form types them) and as repeated `tag`
 * (links from tag chips); the excluded ones as `exclude`.
 */
export function parseWorkFilters(params: URLSearchParams): WorkFilters {
  const list = (key: string, repeated?: string) => {
    const all = [...params.getAll(key), ...(repeated ? params.getAll(repeated) : [])].join(",");
    return parseTags(all)
      .filter((t) => Array.from(t).length <= 20)
      .slice(0, FILTER_TAGS_MAX);
  };
  const category = params.get("category") ?? "";
  const status = params.get("status");
  const length = params.get("length");
  const sort = params.get("sort");
  const author = params.get("author") ?? "";
  return {
    tags: list("tags", "tag"),
    excludeTags: list("exclude"),
    categoryId: /^\d{1,15}$/.test(category) && Number(category) > 0 ? Number(category) : null,
    status: status === "ongoing" || status === "completed" ? status : null,
    length: length && length in WORK_LENGTHS ? (length as WorkLength) : null,
    sort: sort && sort in WORK_SORTS ? (sort as WorkSort) : "newest",
    ai: parseAiFilter(params.get("ai")),
    authorId: UUID.test(author) ? author.toLowerCase() : null,
  };
}

/** Whether anything beyond the default (newest first, everything) is asked for. */
export function hasFilters(f: WorkFilters): boolean {
  return (
    f.tags.length > 0 ||
    f.excludeTags.length > 0 ||
    f.categoryId !== null ||
    f.status !== null ||
    f.length !== null ||
    f.sort !== "newest" ||
    f.ai !== null ||
    f.authorId !== null
  );
}

/** The filters as query parameters (for links: pagination, tag chips). */
export function filterParams(f: WorkFilters): [string, string][] {
  const out: [string, string][] = [];
  if (f.tags.length) out.push(["tags", f.tags.join(",")]);
  if (f.excludeTags.length) out.push(["exclude", f.excludeTags.join(",")]);
  if (f.categoryId !== null) out.push(["category", String(f.categoryId)]);
  if (f.status) out.push(["status", f.status]);
  if (f.length) out.push(["length", f.length]);
  if (f.sort !== "newest") out.push(["sort", f.sort]);
  if (f.ai) out.push(["ai", f.ai]);
  if (f.authorId) out.push(["author", f.authorId]);
  return out;
}

// ---- Rankings --------------------------------------------------------------------------

export const RANKING_BOARDS = {
  "bestselling-7d": "畅销榜 · 7天",
  "bestselling-30d": "畅销榜 · 30天",
  favorites: "收藏榜",
  new: "新书榜",
  completed: "完本榜",
  // By China-time day, week or month (decision 222), from tallies kept with each cast and tip.
  "monthly-votes": "月票榜",
  "recommend-votes": "推荐票榜",
  tips: "打赏榜",
} as const;
export type RankingBoard = keyof typeof RANKING_BOARDS;

/** The boards counted by China-time day, week and month, and the metric each reads. */
export const PERIOD_BOARDS = { "monthly-votes": "monthly", "recommend-votes": "recommend", tips: "tip" } as const;
export type PeriodBoard = keyof typeof PERIOD_BOARDS;
export const RANKING_PERIODS = { day: "日榜", week: "周榜", month: "月榜" } as const;
export type RankingPeriod = keyof typeof RANKING_PERIODS;
