/** A page number from the query string: anything that is not a whole number >= 1 gives 1. */
export function parsePage(value: string | null | undefined): number {
  if (!value || !/^\d{1,9}$/.test(value.trim())) return 1;
  const n = Number(value.trim());
  return n >= 1 ? n : 1;
}

function pageCountOf(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** The requested page of a list of `total` items, kept within it (a page past the last is the last), and the page count. */
export function pageWithin(requested: number, total: number, pageSize: number): { page: number; pageCount: number } {
  const pageCount = pageCountOf(total, pageSize);
  return { page: Math.min(Math.max(1, Math.floor(requested) || 1), pageCount), pageCount };
}

export type PageItem = number | "ellipsis-start" | "ellipsis-end";

/**
 * Page numbers to show: `window` numbers around the current page, plus the first and
 * last page with ellipses where numbers are left out.
 */
export function pageItems(current: number, pageCount: number, window = 5): PageItem[] {
  if (pageCount <= window + 2) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const half = Math.floor(window / 2);
  let start = Math.max(2, current - half);
  let end = Math.min(pageCount - 1, start + window - 1);
  start = Math.max(2, end - window + 1);
  const items: PageItem[] = [1];
  if (start > 2) items.push("ellipsis-start");
  for (let p = start; p <= end; p++) items.push(p);
  if (end < pageCount - 1) items.push("ellipsis-end");
  items.push(pageCount);
  return items;
}
