import type { ChapterMark } from "~/types/reader-marks";

/**
 * Whether a 书签 or 划线 still stands where it was made (decision 241): a bookmark's
 * paragraph still starts with its quote, a highlight's characters are still its quote.
 * `paragraph` is the text as readers see it; undefined when the chapter has no such paragraph.
 */
export function markStillMatches(mark: Pick<ChapterMark, "kind" | "start" | "end" | "quote">, paragraph: string | undefined): boolean {
  if (paragraph === undefined) return false;
  if (mark.kind === "bookmark") return paragraph.startsWith(mark.quote);
  return paragraph.slice(mark.start, mark.end) === mark.quote;
}
