import { AiLevelBadge, type AiLevel } from "~/components/ui/ai-badge";
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { Link, useNavigate } from "react-router";
import { ChapterCommentsLink } from "~/components/comments/chapter-comments-link";
import { useCommentsChanged } from "~/components/comments/live-comments";
import { ParagraphBubble } from "~/components/comments/paragraph-bubble";
import { useImmersive } from "./immersive";
import { ReaderSettingsControls } from "./reader-settings";
import { AuthorNote } from "./author-note";
import { Listen } from "./listen";
import { saveReadingPosition } from "./save-progress";
import { usePagedReading } from "./paginate";
import { useReaderGestures } from "./gestures";
import { useWakeLock } from "./wake-lock";

export interface ParagraphBatchData {
  from: number;
  paragraphs: string[];
  next: number | null;
  total: number;
  /** The batch's 段评 counts (the first batch's come with the page). */
  comments?: { paragraphs: Record<number, number>; chapter: number };
}

/** How close (px) the end of the loaded text may come to the window's bottom. */
const LOAD_MARGIN = 100;
const PROGRESS_INTERVAL = 1500;

type LoadState = "idle" | "loading" | "error";

/**
 * One chapter, rendered 50 paragraphs at a time. The server sends the first batch; with
 * JavaScript the next one is fetched when the end of the text comes within 100 px of the
 * window's bottom, and the reading position is saved while scrolling (signed-in users).
 * Without JavaScript a plain link opens the next batch.
 */
export function ChapterReader({
  workId,
  chapter,
  batch,
  prev,
  next,
  saveProgress,
  comments,
  threadDialogHref,
  drawerHref,
  authorNote,
  tipHref,
  voteBox,
  paragraphText,
  paragraphTools,
}: {
  /** A paragraph's text as drawn (划线 marks in it) and what follows it (书签), decision 241. */
  paragraphText?: (index: number, text: string) => ReactNode;
  paragraphTools?: (index: number) => ReactNode;
  /** 打赏's page for this chapter's end (decision 207); null for the work's author. */
  tipHref?: string | null;
  /** 投月票 / 投推荐票 at the chapter's end (decision 222), for a signed-in reader not the author. */
  voteBox?: ReactNode;
  /** 作者的话 (decision 202), shown once the end of the text is on the page. */
  authorNote?: string[] | null;
  workId: number;
  chapter: { id: number; title: string; order: number; aiLevel?: AiLevel };
  batch: ParagraphBatchData;
  prev: number | null;
  next: number | null;
  saveProgress: boolean;
  /** 段评 counts by paragraph and the 本章说 count (decision 090). */
  comments?: { paragraphs: Record<number, number>; chapter: number };
  /** With JavaScript: the address of a paragraph's thread dialog (decision 101). */
  threadDialogHref?: (index: number) => string;
  /** The chapter list drawer (app/components/reader/chapter-drawer.tsx). */
  drawerHref?: string;
}) {
  const [paragraphs, setParagraphs] = useState(batch.paragraphs);
  // The index of the first paragraph shown: a resumed chapter starts inside and loads the
  // text before it when the reader scrolls up (docs/product.md#reading-comfort).
  const [start, setStart] = useState(batch.from);
  const [nextFrom, setNextFrom] = useState(batch.next);
  const [state, setState] = useState<LoadState>("idle");
  const [earlierState, setEarlierState] = useState<LoadState>("idle");
  const startRef = useRef<HTMLDivElement>(null);
  /** The first paragraph on screen and its place before text is added above it. */
  const anchor = useRef<{ index: number; top: number } | null>(null);
  const [enhanced, setEnhanced] = useState(false);
  const endRef = useRef<HTMLDivElement>(null);
  const textRef = useRef<HTMLDivElement>(null);
  const chapterHref = (order: number) => `/works/${workId}?chapter=${order}`;

  const titleRef = useRef<HTMLHeadingElement>(null);
  const immersive = useImmersive();
  const navigate = useNavigate();

  // ← and → open the previous and next chapter; not while typing, with a modifier, or
  // while a dialog is open (docs/product.md#reading-comfort).
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || target.closest("input, textarea, select, [contenteditable]"))) return;
      if (document.querySelector("dialog[open]")) return;
      const order = event.key === "ArrowLeft" ? prev : event.key === "ArrowRight" ? next : null;
      if (order === null) return;
      event.preventDefault();
      navigate(chapterHref(order));
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [prev, next, navigate]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => setEnhanced(true), []);

  // The counts as the page loaded them, then as the live stream says they changed
  // (decision 101): one small JSON request, never the chapter again.
  const [counts, setCounts] = useState(comments);
  const loaded = useRef({ from: start, to: start + paragraphs.length });
  loaded.current = { from: start, to: start + paragraphs.length };
  useEffect(() => {
    if (comments) setCounts((now) => withRange(now, comments, batch.from, batch.from + batch.paragraphs.length));
  }, [comments]); // eslint-disable-line react-hooks/exhaustive-deps
  useCommentsChanged(chapter.id, () => {
    if (!comments) return;
    const { from, to } = loaded.current;
    const range = `from=${from}&to=${to}`;
    fetch(`/works/${workId}/comment-counts?chapterId=${chapter.id}&${range}`, { headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : null))
      .then((fresh) => {
        if (fresh && typeof fresh.chapter === "number") setCounts((now) => withRange(now, fresh, from, to));
      })
      .catch(() => {
        // the next event or reload corrects it
      });
  });

  // A chapter opened inside the site (上一章/下一章, the table of contents) puts focus on
  // its title, so keyboard and screen-reader users go on from the top of the new text
  // rather than from a link that is gone. On the page the browser loaded, focus stays
  // where the browser put it: the root marks the document hydrated only after this runs.
  useEffect(() => {
    if (document.documentElement.dataset.hydrated === "true") titleRef.current?.focus({ preventScroll: true });
  }, []);

  // A batch asked for and not yet added: two scroll events in one task both see the state
  // before its re-render, and would add the same batch twice (every id after it shifted).
  const loadingMore = useRef(false);
  const loadingEarlier = useRef(false);

  const loadMore = useCallback(async () => {
    if (nextFrom === null || state === "loading" || loadingMore.current) return;
    loadingMore.current = true;
    setState("loading");
    try {
      const response = await fetch(`/works/${workId}/paragraphs?chapter=${chapter.order}&from=${nextFrom}`, {
        headers: { Accept: "application/json" },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const more = (await response.json()) as ParagraphBatchData;
      setParagraphs((list) => [...list, ...more.paragraphs]);
      const added = more.comments;
      if (added) setCounts((now) => withRange(now, added, more.from, more.from + more.paragraphs.length));
      setNextFrom(more.next);
      setState("idle");
    } catch {
      setState("error");
    } finally {
      loadingMore.current = false;
    }
  }, [workId, chapter.order, nextFrom, state]);

  const loadEarlier = useCallback(async () => {
    if (start === 0 || earlierState === "loading" || loadingEarlier.current) return;
    loadingEarlier.current = true;
    setEarlierState("loading");
    try {
      const response = await fetch(`/works/${workId}/paragraphs?chapter=${chapter.order}&before=${start}`, {
        headers: { Accept: "application/json" },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const earlier = (await response.json()) as ParagraphBatchData;
      const first = firstVisibleParagraph(textRef.current);
      const element = first === null ? null : document.getElementById(`p-${first}`);
      anchor.current = element ? { index: first!, top: element.getBoundingClientRect().top } : null;
      setParagraphs((list) => [...earlier.paragraphs, ...list]);
      setStart(earlier.from);
      const added = earlier.comments;
      if (added) setCounts((now) => withRange(now, added, earlier.from, earlier.from + earlier.paragraphs.length));
      setEarlierState("idle");
    } catch {
      setEarlierState("error");
    } finally {
      loadingEarlier.current = false;
    }
  }, [workId, chapter.order, start, earlierState]);

  // 翻页, tap zones and swipes, 屏幕常亮 (decision 242).
  const pager = usePagedReading({ textRef, start, count: paragraphs.length, more: nextFrom !== null, loadMore: () => void loadMore(), loadEarlier: () => void loadEarlier() });
  useReaderGestures({ pager, start, more: nextFrom !== null, prev, next, open: (order) => navigate(chapterHref(order)), toggleBar: immersive.toggle, loadMore: () => void loadMore() });
  useWakeLock();

  // Text added above keeps the paragraph being read where it was on the screen.
  useLayoutEffect(() => {
    const kept = anchor.current;
    anchor.current = null;
    const element = kept && document.getElementById(`p-${kept.index}`);
    if (kept && element && !pager.active) window.scrollBy(0, element.getBoundingClientRect().top - kept.top);
  }, [start]);

  // Load the batch before when the start of the text comes within 100 px of the window's top.
  useEffect(() => {
    if (start === 0 || earlierState !== "idle" || pager.active) return;
    const check = () => {
      const top = startRef.current;
      if (top && top.getBoundingClientRect().bottom >= -LOAD_MARGIN) void loadEarlier();
    };
    check();
    window.addEventListener("scroll", check, { passive: true });
    return () => window.removeEventListener("scroll", check);
  }, [start, earlierState, loadEarlier, pager.active]);

  // Load the next batch when the end of the text is near the bottom of the window,
  // checking again after each batch (a short batch may not fill the window).
  useEffect(() => {
    if (nextFrom === null || state !== "idle" || pager.active) return;
    const check = () => {
      const end = endRef.current;
      if (end && end.getBoundingClientRect().top - window.innerHeight <= LOAD_MARGIN) void loadMore();
    };
    check();
    window.addEventListener("scroll", check, { passive: true });
    window.addEventListener("resize", check);
    return () => {
      window.removeEventListener("scroll", check);
      window.removeEventListener("resize", check);
    };
  }, [nextFrom, state, loadMore, pager.active]);

  // 听书 saves the paragraph it reads; scrolling saves nothing meanwhile.
  const listening = useRef(false);

  // Save the first paragraph on screen, at most every 1.5 s while scrolling.
  useEffect(() => {
    if (!saveProgress) return;
    let saved = -1;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const save = () => {
      timer = null;
      const index = firstVisibleParagraph(textRef.current);
      if (index === null || index === saved || listening.current) return;
      saved = index;
      void saveReadingPosition(workId, chapter, index).then((ok) => {
        if (!ok) saved = -1;
      });
    };
    const onScroll = () => {
      timer ??= setTimeout(save, PROGRESS_INTERVAL);
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => {
      window.removeEventListener("scroll", onScroll);
      if (timer) {
        clearTimeout(timer);
        save();
      }
    };
  }, [saveProgress, workId, chapter.order]);

  return (
    <article className="chapter" aria-labelledby="chapter-title">
      <div className="chapter-bar">
        <span className="chapter-bar-start">
          <Link to={`/works/${workId}#toc`} className="btn btn-small">
            目录
          </Link>
          {drawerHref ? (
            <Link to={drawerHref} className="btn btn-small" preventScrollReset>
              章节列表
            </Link>
          ) : null}
          <Listen
            workId={workId}
            chapter={chapter}
            next={next}
            saveProgress={saveProgress}
            text={{ start, paragraphs, more: nextFrom !== null, loadFailed: state === "error", loadMore: () => void loadMore() }}
            firstInView={() => firstVisibleParagraph(textRef.current)}
            onListening={(on) => (listening.current = on)}
          />
        </span>
        <ReaderSettingsControls back={`${chapterHref(chapter.order)}${batch.from > 0 ? `&from=${batch.from}` : ""}`}>
          {immersive.button}
        </ReaderSettingsControls>
      </div>
      <h1 id="chapter-title" className="chapter-title" ref={titleRef} tabIndex={-1}>
        {chapter.title}
        <AiLevelBadge level={chapter.aiLevel} />
      </h1>
      <div ref={startRef} className="chapter-earlier">
        {start === 0 ? null : enhanced ? (
          earlierState === "error" ? (
            <p role="alert" className="load-error">
              前文加载失败{" "}
              <button type="button" className="btn btn-small" onClick={() => void loadEarlier()}>
                重试
              </button>
            </p>
          ) : (
            <p className="loading" role="status">
              {earlierState === "loading" ? "加载中..." : "向上滚动加载前文"}
            </p>
          )
        ) : (
          <p>
            <Link to={chapterHref(chapter.order)}>从本章开头阅读</Link>
          </p>
        )}
      </div>
      <div className="chapter-text" ref={textRef} data-testid="chapter-text">
        {paragraphs.map((text, i) => (
          <p key={start + i} id={`p-${start + i}`} data-index={start + i}>
            {paragraphText ? paragraphText(start + i, text) : text}
            {paragraphTools?.(start + i)}
            {counts ? (
              <ParagraphBubble
                workId={workId}
                order={chapter.order}
                index={start + i}
                count={counts.paragraphs[start + i] ?? 0}
                dialogHref={enhanced && threadDialogHref ? threadDialogHref(start + i) : undefined}
              />
            ) : null}
          </p>
        ))}
      </div>
      {pager.indicator}
      <div ref={endRef} className="chapter-more">
        {nextFrom === null ? null : !enhanced ? (
          <Link to={`${chapterHref(chapter.order)}&from=${nextFrom}`}>继续阅读下面的内容</Link>
        ) : state === "error" ? (
          <p role="alert" className="load-error">
            加载失败，请重试{" "}
            <button type="button" className="btn btn-small" onClick={() => void loadMore()}>
              重试
            </button>
          </p>
        ) : (
          <p className="loading" role="status">
            {state === "loading" ? "加载中..." : "继续下滑加载更多"}
          </p>
        )}
      </div>
      {nextFrom === null ? <AuthorNote paragraphs={authorNote} /> : null}
      {counts && nextFrom === null ? <ChapterCommentsLink workId={workId} order={chapter.order} count={counts.chapter} /> : null}
      {tipHref && nextFrom === null ? (
        // 打赏 from the chapter's end (decision 207): the tip page, its notice in this 本章说.
        <p className="chapter-tip">
          <Link to={tipHref} className="btn" data-testid="chapter-tip-link">
            打赏作者
          </Link>
        </p>
      ) : null}
      <nav className="chapter-nav" aria-label="章节导航">
        {prev !== null ? (
          <Link to={chapterHref(prev)} className="btn" rel="prev">
            上一章
          </Link>
        ) : (
          <span className="btn disabled" aria-disabled="true">
            已是第一章
          </span>
        )}
        <Link to={`/works/${workId}#toc`} className="btn">
          目录
        </Link>
        {next !== null ? (
          <Link to={chapterHref(next)} className="btn" rel="next">
            下一章
          </Link>
        ) : (
          <span className="btn disabled" aria-disabled="true">
            已是最后一章
          </span>
        )}
      </nav>
      {/* After the navigation, so the chapter's end keeps its Tab order (本章说, 打赏作者, 上一章…). */}
      {voteBox && nextFrom === null ? voteBox : null}
    </article>
  );
}

type Counts = { paragraphs: Record<number, number>; chapter: number };

/** `now` with the counts of paragraphs from..to-1 and the 本章说 count replaced by `fresh`'s. */
function withRange(now: Counts | undefined, fresh: Counts, from: number, to: number): Counts {
  const paragraphs: Record<number, number> = {};
  for (const [key, n] of Object.entries(now?.paragraphs ?? {})) if (Number(key) < from || Number(key) >= to) paragraphs[Number(key)] = n;
  for (const [key, n] of Object.entries(fresh.paragraphs)) paragraphs[Number(key)] = n;
  return { chapter: fresh.chapter, paragraphs };
}

/** The index of the first paragraph whose bottom is below the top of the window (in 翻页: on the page shown). */
function firstVisibleParagraph(container: HTMLElement | null): number | null {
  if (!container) return null;
  const items = container.children;
  const left = container.dataset.paged ? container.getBoundingClientRect().left + 1 : null;
  let lo = 0;
  let hi = items.length - 1;
  let found: Element | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const rect = items[mid].getBoundingClientRect();
    if (left === null ? rect.bottom > 0 : rect.right > left) {
      found = items[mid];
      hi = mid - 1;
    } else {
      lo = mid + 1;
    }
  }
  const index = found ? Number((found as HTMLElement).dataset.index) : NaN;
  return Number.isFinite(index) ? index : null;
}
