/**
 * Pure helpers of the reader, shared by the reader (reading/reader.server.ts), the lists
 * that link into it (catalog/home.server.ts, reading/library.server.ts) and the 段评
 * (community/comments.server.ts): they live here, below every domain, so none of those
 * imports another domain for them (docs/architecture.md#domains).
 */

/** @internal */
export const PARAGRAPH_MAX_CHARS = 3_000;

/** The chapter's paragraphs: split on line breaks, trimmed, empty lines dropped. */
export function splitParagraphs(content: string): string[] {
  const out: string[] = [];
  for (const line of content.split(/\r\n|\r|\n/)) {
    const text = line.trim();
    if (!text) continue;
    if (text.length <= PARAGRAPH_MAX_CHARS) {
      out.push(text);
      continue;
    }
    const chars = Array.from(text);
    for (let i = 0; i < chars.length; i += PARAGRAPH_MAX_CHARS) out.push(chars.slice(i, i + PARAGRAPH_MAX_CHARS).join(""));
  }
  return out;
}

/**
 * Where 继续阅读 goes: the chapter from the saved paragraph on (batches are cut by
 * characters as well as by count, so only `from` itself is sure to hold it), with its
 * anchor; the page offers 从本章开头阅读 above it.
 */
export function progressHref(workId: number, p: { chapterOrder: number; paragraph: number }): string {
  const query = p.paragraph > 0 ? `?chapter=${p.chapterOrder}&from=${p.paragraph}` : `?chapter=${p.chapterOrder}`;
  return `/works/${workId}${query}#p-${p.paragraph}`;
}
