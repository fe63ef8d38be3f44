/** docs/product.md D6: tokens abbreviated with K from 1,000 and M from 1,000,000, one decimal. */
export function formatTokens(n: number): string {
  const sign = n < 0 ? "-" : "";
  const a = Math.abs(n);
  if (a >= 1_000_000) return `${sign}${(Math.floor(a / 100_000) / 10).toFixed(1)}M`;
  if (a >= 1_000) return `${sign}${(Math.floor(a / 100) / 10).toFixed(1)}K`;
  return `${sign}${a}`;
}

// One formatter for the process: `toLocaleString` builds a new one on every call, which
// showed in the profile of a listing page (docs/benchmarks/history.md).
const numberFormat = new Intl.NumberFormat("zh-CN");

/** 12,345: grouped digits, the same text on server and client. */
export function formatNumber(n: number): string {
  return numberFormat.format(n);
}

/** Word counts the way Chinese sites show them: 8,500 字, 1.2 万字. */
export function formatWordCount(n: number): string {
  if (n >= 10_000) return `${(Math.floor(n / 1000) / 10).toFixed(1)} 万字`;
  return `${formatNumber(n)} 字`;
}

export const WORK_TYPE_LABELS = {
  single_chapter: "单章",
  multi_chapter: "多章节",
  series: "连载",
} as const;

export const WORK_STATUS_LABELS = { completed: "已完结", ongoing: "连载中" } as const;
