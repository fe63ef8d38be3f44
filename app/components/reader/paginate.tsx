import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from "react";
import { useRootSetting } from "./root-setting";

/** Space kept under the pages for the page number and the chapter's bottom padding (px). */
const RESERVE = 56;

export interface Pager {
  /** The chapter is laid out in pages (翻页 chosen, JavaScript running). */
  active: boolean;
  page: number;
  pages: number;
  /** Shows page `n` (clamped); the batch before or after is asked for near the ends. */
  goTo(n: number): void;
}

/** The step between two pages: a column's width and the gap after it. */
function pageStep(box: HTMLElement): number {
  const gap = parseFloat(getComputedStyle(box).columnGap) || 0;
  return box.clientWidth + gap;
}

/** The page showing the `fragment`-th piece of a paragraph (a paragraph split over pages has one piece per page). */
function pageOf(box: HTMLElement, paragraph: Element, fragment = 0): number {
  const rects = paragraph.getClientRects();
  const rect = rects[Math.min(fragment, rects.length - 1)] ?? paragraph.getBoundingClientRect();
  return Math.max(0, Math.floor((rect.left + 1 - box.getBoundingClientRect().left + box.scrollLeft) / pageStep(box)));
}

/** The first paragraph on the page shown, and which of its pieces that is. */
function pageAnchor(box: HTMLElement): { index: number; fragment: number } | null {
  const left = box.getBoundingClientRect().left;
  for (const child of Array.from(box.children)) {
    const rects = Array.from(child.getClientRects());
    const fragment = rects.findIndex((rect) => rect.right > left + 1);
    if (fragment >= 0) return { index: Number((child as HTMLElement).dataset.index), fragment };
  }
  return null;
}

/**
 * 翻页 (decision 242): with the setting on and JavaScript running, the chapter's text is laid
 * out in screen-sized pages by CSS columns (`data-paged` on the text, app/styles/app.css),
 * one column per page, the box scrolled sideways a page at a time. The page that is shown is
 * kept across everything that moves the text: a new font size or width, a turned phone,
 * the text loaded before it (the first paragraph shown is found again). 听书's paragraph is
 * followed to its page. Each turn tells the reader's scroll listeners (a `scroll` event on
 * the window), which save the first paragraph shown as scrolling does. Without JavaScript
 * nothing marks the text and the chapter scrolls.
 */
export function usePagedReading({
  textRef,
  start,
  count,
  more,
  loadMore,
  loadEarlier,
}: {
  textRef: RefObject<HTMLDivElement | null>;
  /** The first paragraph loaded and how many are: a change re-lays the pages. */
  start: number;
  count: number;
  /** More text after the loaded batches. */
  more: boolean;
  loadMore: () => void;
  loadEarlier: () => void;
}): Pager & { indicator: React.ReactNode } {
  const layout = useRootSetting("data-reader-layout");
  const active = layout === "paged";
  const [page, setPage] = useState(0);
  const [pages, setPages] = useState(1);
  const anchor = useRef<{ index: number; fragment: number } | null>(null);
  const facts = useRef({ start, more, loadMore, loadEarlier });
  facts.current = { start, more, loadMore, loadEarlier };
  const pageRef = useRef(0);

  const count_ = useCallback((box: HTMLElement) => {
    const step = pageStep(box);
    const total = Math.max(1, Math.round((box.scrollWidth + step - box.clientWidth) / step));
    setPages(total);
    return total;
  }, []);

  const show = useCallback(
    (n: number, fromScroll = false) => {
      const box = textRef.current;
      if (!box) return;
      const total = count_(box);
      const target = Math.max(0, Math.min(n, total - 1));
      const left = target * pageStep(box);
      if (Math.abs(box.scrollLeft - left) > 1) box.scrollLeft = left;
      const moved = target !== pageRef.current;
      pageRef.current = target;
      setPage(target);
      anchor.current = pageAnchor(box);
      // The whole page in sight: the window back at the top, where the pages were measured.
      const rect = box.getBoundingClientRect();
      if (!fromScroll && (rect.top < 0 || rect.bottom > window.innerHeight)) window.scrollTo(0, 0);
      const { start: first, more: after } = facts.current;
      if (after && target >= total - 2) facts.current.loadMore();
      if (first > 0 && target <= 1) facts.current.loadEarlier();
      if (moved) window.dispatchEvent(new Event("scroll"));
    },
    [textRef, count_],
  );

  /** Sizes the pages to the window and shows the page of the remembered paragraph. */
  const relayout = useCallback(() => {
    const box = textRef.current;
    if (!box) return;
    const top = box.getBoundingClientRect().top + window.scrollY;
    const height = Math.max(window.innerHeight * 0.5, window.innerHeight - top - RESERVE);
    box.style.setProperty("--page-height", `${Math.floor(height)}px`);
    const kept = anchor.current;
    const paragraph = kept && document.getElementById(`p-${kept.index}`);
    show(paragraph ? pageOf(box, paragraph, kept.fragment) : pageRef.current);
  }, [textRef, show]);

  // Turning 翻页 on starts at the paragraph at the top of the window; turning it off scrolls back to it.
  useLayoutEffect(() => {
    const box = textRef.current;
    if (!box || !active) return;
    const first = Array.from(box.children).find((child) => child.getBoundingClientRect().bottom > 0) as HTMLElement | undefined;
    anchor.current = first ? { index: Number(first.dataset.index), fragment: 0 } : null;
    box.dataset.paged = "true";
    window.scrollTo(0, 0);
    relayout();
    return () => {
      const kept = anchor.current;
      delete box.dataset.paged;
      box.style.removeProperty("--page-height");
      box.scrollLeft = 0;
      pageRef.current = 0;
      setPage(0);
      // 滚动 chosen (not the chapter left): the paragraph that was shown is at the window's top.
      if (kept && document.documentElement.getAttribute("data-reader-layout") !== "paged") {
        document.getElementById(`p-${kept.index}`)?.scrollIntoView({ block: "start" });
      }
    };
  }, [active, textRef]); // eslint-disable-line react-hooks/exhaustive-deps

  // Text added before: find the paragraph again. Text added after: more pages.
  useLayoutEffect(() => {
    if (active) relayout();
  }, [start]); // eslint-disable-line react-hooks/exhaustive-deps
  useLayoutEffect(() => {
    if (active && textRef.current) count_(textRef.current);
  }, [count]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    const box = textRef.current;
    if (!box || !active) return;
    // A new size, width, line height, or the bars shown or hidden, move the text.
    const onResize = () => relayout();
    window.addEventListener("resize", onResize);
    const settings = new MutationObserver(onResize);
    settings.observe(document.documentElement, {
      attributes: true,
      attributeFilter: ["data-reader-size", "data-reader-leading", "data-reader-width", "data-immersive"],
    });
    // Something else scrolled the box (a link to a paragraph, find in page): land on a page.
    const onScroll = () => {
      const n = Math.round(box.scrollLeft / pageStep(box));
      if (n !== pageRef.current || Math.abs(box.scrollLeft - n * pageStep(box)) > 1) show(n, true);
    };
    box.addEventListener("scroll", onScroll, { passive: true });
    // 听书's paragraph: its page is shown.
    const listening = new MutationObserver(() => {
      const current = box.querySelector(".listen-current");
      if (current) {
        const n = pageOf(box, current);
        if (n !== pageRef.current) show(n);
      }
    });
    listening.observe(box, { subtree: true, attributes: true, attributeFilter: ["class"] });
    return () => {
      window.removeEventListener("resize", onResize);
      settings.disconnect();
      listening.disconnect();
      box.removeEventListener("scroll", onScroll);
    };
  }, [active, textRef, relayout, show]);

  const goTo = useCallback((n: number) => show(n), [show]);
  const indicator = active ? (
    <p className="page-indicator" data-testid="page-indicator" aria-live="polite">
      {page + 1} / {pages}
    </p>
  ) : null;
  return { active, page, pages, goTo, indicator };
}
