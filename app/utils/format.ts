/** docs/product.md D6: tokens abbreviated with K from 1,000 and M from 1,000,000, one decimal. */
export function formatTokens(n: number): string {
  const sign = n < 0 ? "-" : "";
  const a = Math.abs(n);
  if (a >= 1_000_000) return `${sign}${(Math.floor(a / 100_000) / 10).toFixed(1)}M`;
  if (a >= 1_000) return `${sign}${(Math.floor(a / 100) / 10).toFixed(1)}K`;
  return `${sign}${a}`;
}

/**
 * 12,345: grouped digits (at most three decimals), the same text on server and client.
 * Written out rather than through `Intl.NumberFormat`: building a formatter loads ICU's
 * locale data, about 13 ms of the browser's main thread on every page load where it was
 * built at module load (docs/decisions/274); `toLocaleString` pays it on every call.
 */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  const rounded = Number.isInteger(abs) ? abs : Math.round(abs * 1000) / 1000;
  const [whole, fraction] = String(rounded).split(".");
  const sign = n < 0 && rounded !== 0 ? "-" : "";
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ",")}${fraction ? `.${fraction}` : ""}`;
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

/** How long something has waited, in Chinese: 不到 1 分钟, 12 分钟, 3 小时 5 分钟, 2 天 4 小时. */
export function formatWait(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 1) return "不到 1 分钟";
  if (minutes < 60) return `${minutes} 分钟`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} 小时 ${minutes % 60} 分钟` : `${hours} 小时`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} 天 ${hours % 24} 小时` : `${days} 天`;
}

/** Fen as yuan with two decimals: 1234567 → "12,345.67", -80000 → "-800.00" (payout statements, decision 209). */
export function formatFen(fen: number): string {
  const sign = fen < 0 ? "-" : "";
  const abs = Math.abs(fen);
  return `${sign}${formatNumber(Math.floor(abs / 100))}.${String(abs % 100).padStart(2, "0")}`;
}
