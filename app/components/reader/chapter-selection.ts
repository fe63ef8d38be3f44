import { useEffect, useState } from "react";

/** Text selected in the chapter, and where it is when it starts in one paragraph. */
export interface ChapterSelection {
  /** The selected text, whitespace of any kind (paragraph breaks) as one space. */
  text: string;
  /** The paragraph it starts in (its `data-index`) and the range within it (UTF-16 offsets
   * of the paragraph's text, cut at its end), or null when it starts outside one. */
  place: { paragraph: number; start: number; end: number; quote: string } | null;
}

/** The number of characters of `paragraph`'s text before `node`/`offset`. */
function offsetIn(paragraph: Element, node: Node, offset: number): number {
  const range = document.createRange();
  range.setStart(paragraph, 0);
  range.setEnd(node, offset);
  return range.toString().length;
}

function placeOf(range: Range): ChapterSelection["place"] {
  const startElement = range.startContainer instanceof Element ? range.startContainer : range.startContainer.parentElement;
  const paragraph = startElement?.closest(".chapter-text p[data-index]");
  if (!paragraph) return null;
  const whole = paragraph.textContent ?? "";
  const start = offsetIn(paragraph, range.startContainer, range.startOffset);
  const end = paragraph.contains(range.endContainer) ? offsetIn(paragraph, range.endContainer, range.endOffset) : whole.length;
  const quote = whole.slice(start, end);
  if (!quote.trim()) return null;
  return { paragraph: Number((paragraph as HTMLElement).dataset.index), start, end, quote };
}

/**
 * The reader's selection inside the chapter's text (`.chapter-text`), on mouse and touch:
 * the last one made (it stays when the selection is cleared, e.g. by a tap on a button),
 * and whether a selection is on the page now. 报错 (typo-report.tsx) quotes its text; 划线
 * (highlights.tsx) saves its place.
 */
export function useChapterSelection(): { selection: ChapterSelection | null; live: boolean; clear: () => void } {
  const [selection, setSelection] = useState<ChapterSelection | null>(null);
  const [live, setLive] = useState(false);
  useEffect(() => {
    const onSelection = () => {
      const current = document.getSelection();
      if (!current || current.isCollapsed || current.rangeCount === 0) {
        setLive(false);
        return;
      }
      const node = current.anchorNode;
      const element = node instanceof Element ? node : node?.parentElement;
      if (!element?.closest(".chapter-text")) return;
      const text = current.toString().replace(/\s+/gu, " ").trim();
      if (!text) return;
      setSelection({ text, place: placeOf(current.getRangeAt(0)) });
      setLive(true);
    };
    document.addEventListener("selectionchange", onSelection);
    return () => document.removeEventListener("selectionchange", onSelection);
  }, []);
  return { selection, live, clear: () => setSelection(null) };
}
