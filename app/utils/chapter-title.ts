/**
 * A chapter's title as readers and authors see it beside its number. Authors often type the
 * number themselves ("第7章 定时之潮", "第七章", "第12回"), and an imported TXT keeps its
 * headings, so a title that already starts with a chapter number is shown as it is rather
 * than as "第6章 第7章 定时之潮" (docs/product.md#chapter-titles).
 */
const NUMBERED_TITLE = /^\s*第\s*[0-9０-９零〇一二两三四五六七八九十百千万]+\s*[章回节]/u;

/** Whether `title` starts with its own chapter number (第7章, 第七章, 第 12 回, 第三节). */
function titleHasChapterNumber(title: string): boolean {
  return NUMBERED_TITLE.test(title);
}

/**
 * "第6章 定时之潮" for the `order`-th chapter; the title alone when it carries its own
 * number or the chapter has none (a draft, a deleted chapter: `order` null); "第6章" for an
 * empty title.
 */
export function chapterDisplayTitle(order: number | null | undefined, title: string): string {
  const trimmed = title.trim();
  if (order === null || order === undefined || titleHasChapterNumber(trimmed)) return trimmed;
  return trimmed ? `第${order}章 ${trimmed}` : `第${order}章`;
}
