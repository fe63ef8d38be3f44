import { useEffect, useRef } from "react";
import { useMatches } from "react-router";

/**
 * Live comments (docs/decisions/101-live-comments.md). The shell's one live-update stream
 * (`/api/events`) also carries the comments events of the chapter the page shows; it
 * re-raises each as this window event, and the reader's bubbles, the thread page and the
 * thread dialog refresh only their own part, never the whole chapter.
 */
const COMMENTS_EVENT = "inkstone:comments";

export interface CommentsEventDetail {
  chapterId: number;
  paragraph: number | null;
}

/** The chapter whose comments a page shows, declared by its route's `handle`. */
export interface LiveCommentsTarget {
  workId: number;
  chapterId: number;
}

export interface LiveCommentsHandle {
  liveComments: (loaderData: unknown) => LiveCommentsTarget | null;
}

/** The chapter the matched routes want live comments for, if any. */
export function useLiveCommentsTarget(): LiveCommentsTarget | null {
  for (const match of useMatches()) {
    const handle = match.handle as Partial<LiveCommentsHandle> | undefined;
    const target = handle?.liveComments?.(match.loaderData);
    if (target) return target;
  }
  return null;
}

/** Raises the comments event in this window (the stream's, or after one's own post). */
export function announceCommentsChanged(detail: CommentsEventDetail) {
  window.dispatchEvent(new CustomEvent<CommentsEventDetail>(COMMENTS_EVENT, { detail }));
}

/**
 * Calls `onChange` when the comments of `chapterId` changed. Bursts are coalesced, and
 * each page waits a random extra moment so thousands of readers do not ask at once.
 */
export function useCommentsChanged(chapterId: number, onChange: (detail: CommentsEventDetail) => void) {
  const callback = useRef(onChange);
  callback.current = onChange;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const listener = (event: Event) => {
      const detail = (event as CustomEvent<CommentsEventDetail>).detail;
      if (detail?.chapterId !== chapterId) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        callback.current(detail);
      }, 150 + Math.random() * 250);
    };
    window.addEventListener(COMMENTS_EVENT, listener);
    return () => {
      if (timer) clearTimeout(timer);
      window.removeEventListener(COMMENTS_EVENT, listener);
    };
  }, [chapterId]);
}
