import { useEffect, useRef } from "react";
import { takeFirstTouch } from "~/utils/first-touch";
import type { Pager } from "./paginate";

/** A swipe: at least this far sideways (px), twice as far as up or down, within this long (ms). */
const SWIPE_DISTANCE = 60;
const SWIPE_TIME = 800;
/** A screen turned by a tap keeps this much (px) of the last one in sight. */
const OVERLAP = 48;

/**
 * What a tap never turns: links, buttons and form controls, 段评 marks, the bar, and
 * anything marked `data-no-page-turn` (a 划线's note, say).
 */
const NOT_A_TURN =
  "a, button, input, select, textarea, label, summary, details, form, dialog, mark, [role=button], [role=dialog], [role=region], .comment-bubble, .chapter-bar, .listen-bar, [data-no-page-turn]";

interface Facts {
  pager: Pager;
  /** The first loaded paragraph (0: the chapter's top is loaded) and whether text follows the loaded. */
  start: number;
  more: boolean;
  prev: number | null;
  next: number | null;
  open: (order: number) => void;
  toggleBar: () => void;
  loadMore: () => void;
}

/** The chapter's end is in sight: nothing more to load and its 上一章/下一章 row shown. */
function atChapterEnd(more: boolean): boolean {
  if (more) return false;
  const nav = document.querySelector(".chapter .chapter-nav");
  const bottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
  return bottom || (nav !== null && nav.getBoundingClientRect().bottom <= window.innerHeight);
}

/** Turns a screen forward (+1) or back (-1): a page, a window's height, or at the chapter's ends the chapter. */
function turn(facts: Facts, direction: 1 | -1) {
  const { pager } = facts;
  if (pager.active) {
    if (direction === 1) {
      if (pager.page < pager.pages - 1) pager.goTo(pager.page + 1);
      else if (facts.more) facts.loadMore();
      else if (facts.next !== null) facts.open(facts.next);
    } else if (pager.page > 0) pager.goTo(pager.page - 1);
    else if (facts.start === 0 && facts.prev !== null) facts.open(facts.prev);
    // With text before the loaded batches, the first page asked for it already (paginate.tsx).
    return;
  }
  if (direction === 1 && atChapterEnd(facts.more)) {
    if (facts.next !== null) facts.open(facts.next);
    return;
  }
  if (direction === -1 && window.scrollY <= 0 && facts.start === 0) {
    if (facts.prev !== null) facts.open(facts.prev);
    return;
  }
  // 听书's bar covers the window's bottom: a screen is what shows above it.
  const bar = document.querySelector(".listen-bar")?.getBoundingClientRect().height ?? 0;
  window.scrollBy(0, direction * Math.max(100, window.innerHeight - bar - OVERLAP));
}

/** The tap or swipe began somewhere that is not the chapter's reading surface. */
function outsideText(target: EventTarget | null): boolean {
  const element = target instanceof Element ? target : null;
  return !element || !element.closest(".chapter") || element.closest(NOT_A_TURN) !== null || document.querySelector("dialog[open], details.reader-settings[open]") !== null;
}

function hasSelection(): boolean {
  const selection = window.getSelection();
  return selection !== null && !selection.isCollapsed && selection.toString().trim() !== "";
}

/**
 * Reading like an app (decision 242), on touch screens: a tap on the left third of the
 * chapter turns back a screen, on the right third forward, in the middle shows or hides the
 * site's bars (沉浸阅读). A horizontal swipe opens the next (←) or previous (→) chapter; in
 * 翻页 it turns the page, and the chapter at the ends. In 翻页 the keys ← →, PageUp/PageDown
 * and the space bar turn pages (← → open chapters once at the ends, as in scrolling).
 * A mouse click does none of this.
 */
export function useReaderGestures(facts: Facts) {
  const latest = useRef(facts);
  latest.current = facts;

  useEffect(() => {
    let touch = false;
    let selected = false;
    const onPointerDown = (event: PointerEvent) => {
      touch = event.pointerType === "touch";
      // A tap that ends a text selection only clears it.
      selected = hasSelection();
    };
    const tap = (clientX: number, target: EventTarget | null) => {
      if (hasSelection() || outsideText(target)) return;
      const third = clientX / window.innerWidth;
      if (third < 1 / 3) turn(latest.current, -1);
      else if (third > 2 / 3) turn(latest.current, 1);
      else latest.current.toggleBar();
    };
    const onClick = (event: MouseEvent) => {
      if (!touch || event.defaultPrevented || event.button !== 0 || selected) return;
      tap(event.clientX, event.target);
    };
    // A chapter's scripts start at the first touch (decision 264): a first tap that came
    // before they were up is carried out now; one still on its way is a finger's.
    const first = takeFirstTouch();
    if (first?.touch) touch = true;
    if (first?.tap) tap(first.tap.x, first.tap.target);

    let swipe: { x: number; y: number; at: number } | null = null;
    const onTouchStart = (event: TouchEvent) => {
      const point = event.touches[0];
      swipe = event.touches.length === 1 && point && !outsideText(event.target) ? { x: point.clientX, y: point.clientY, at: event.timeStamp } : null;
    };
    const onTouchEnd = (event: TouchEvent) => {
      const began = swipe;
      swipe = null;
      const point = event.changedTouches[0];
      if (!began || !point || event.timeStamp - began.at > SWIPE_TIME || hasSelection()) return;
      const dx = point.clientX - began.x;
      const dy = point.clientY - began.y;
      if (Math.abs(dx) < SWIPE_DISTANCE || Math.abs(dx) < 2 * Math.abs(dy)) return;
      const facts = latest.current;
      if (facts.pager.active) return turn(facts, dx < 0 ? 1 : -1);
      const order = dx < 0 ? facts.next : facts.prev;
      if (order !== null) facts.open(order);
    };

    const onKeyDown = (event: KeyboardEvent) => {
      const facts = latest.current;
      if (!facts.pager.active || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || target.closest("input, textarea, select, button, a, summary"))) return;
      if (document.querySelector("dialog[open]")) return;
      const forward = event.key === "PageDown" || event.key === "ArrowRight" || (event.key === " " && !event.shiftKey);
      const back = event.key === "PageUp" || event.key === "ArrowLeft" || (event.key === " " && event.shiftKey);
      if (!forward && !back) return;
      if (event.shiftKey && event.key !== " ") return;
      const { pager } = facts;
      // At the ends ← → are left to the reader's own keys (previous / next chapter).
      if (event.key === "ArrowRight" && pager.page >= pager.pages - 1 && !facts.more) return;
      if (event.key === "ArrowLeft" && pager.page === 0 && facts.start === 0) return;
      event.preventDefault();
      turn(facts, forward ? 1 : -1);
    };

    document.addEventListener("pointerdown", onPointerDown, { capture: true, passive: true });
    document.addEventListener("click", onClick);
    document.addEventListener("touchstart", onTouchStart, { passive: true });
    document.addEventListener("touchend", onTouchEnd, { passive: true });
    window.addEventListener("keydown", onKeyDown, { capture: true });
    return () => {
      document.removeEventListener("pointerdown", onPointerDown, { capture: true });
      document.removeEventListener("click", onClick);
      document.removeEventListener("touchstart", onTouchStart);
      document.removeEventListener("touchend", onTouchEnd);
      window.removeEventListener("keydown", onKeyDown, { capture: true });
    };
  }, []);
}
