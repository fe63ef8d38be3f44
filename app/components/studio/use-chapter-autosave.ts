import { useCallback, useEffect, useRef, useState } from "react";
import type { AutosaveReply } from "~/types/studio";

/** What the editor autosaves: the chapter's text and 作者的话. */
export interface Draft {
  content: string;
  authorNote: string;
}

// One string per draft, so a draft compares like the text alone did.
const keyOf = (draft: Draft) => JSON.stringify([draft.content, draft.authorNote]);
const draftOf = (key: string): Draft => {
  const [content, authorNote] = JSON.parse(key) as [string, string];
  return { content, authorNote };
};

export type AutosaveStatus =
  | { kind: "idle" }
  | { kind: "dirty" }
  | { kind: "saving" }
  | { kind: "saved"; at: string; pending: boolean }
  | { kind: "error"; message: string; stale: boolean };

/**
 * The studio chapter editor's autosave (docs/decisions/095): `change(draft)` after each
 * edit saves it `delayMs` after typing pauses, and at least every `maxWaitMs` while typing
 * goes on; `flush()` (on blur) saves at once. Text the server already has is not sent, one
 * request is in flight at a time, and each carries the revision the last save returned,
 * so a tab that another tab has overtaken is told so and stops saving. A failed save is
 * not retried with the same text: the next edit or blur tries again. The draft is the text
 * and 作者的话 (decision 202), saved together.
 */
export function useChapterAutosave(options: { url: string; revision: number; draft: Draft; delayMs?: number; maxWaitMs?: number }) {
  const { url, delayMs = 2000, maxWaitMs = 10_000 } = options;
  const revision = useRef(options.revision);
  const saved = useRef(keyOf(options.draft));
  const latest = useRef(keyOf(options.draft));
  const failed = useRef<string | null>(null);
  const inFlight = useRef<Promise<void> | null>(null);
  const stopped = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const firstChange = useRef<number | null>(null);
  const [status, setStatus] = useState<AutosaveStatus>({ kind: "idle" });

  const flush = useCallback((): Promise<void> => {
    clearTimeout(timer.current);
    timer.current = undefined;
    firstChange.current = null;
    if (inFlight.current) return inFlight.current;
    const text = latest.current;
    if (stopped.current || text === saved.current || text === failed.current) return Promise.resolve();
    setStatus({ kind: "saving" });
    const run = (async () => {
      try {
        const response = await fetch(url, {
          method: "POST",
          body: new URLSearchParams({ ...draftOf(text), revision: String(revision.current) }),
          headers: { Accept: "application/json" },
        });
        const reply = (await response.json().catch(() => null)) as AutosaveReply | null;
        if (reply?.ok) {
          saved.current = text;
          failed.current = null;
          revision.current = reply.revision;
          setStatus(latest.current === text ? { kind: "saved", at: reply.savedAt, pending: reply.pending } : { kind: "dirty" });
        } else {
          if (reply?.stale) stopped.current = true;
          failed.current = text;
          setStatus({ kind: "error", message: reply?.error ?? "自动保存失败，请稍后再试", stale: Boolean(reply?.stale) });
        }
      } catch {
        failed.current = text;
        setStatus({ kind: "error", message: "网络异常，自动保存失败；继续输入或离开输入框时会再试", stale: false });
      } finally {
        inFlight.current = null;
      }
    })();
    inFlight.current = run;
    // Text typed while this save was on its way goes next.
    return run.then(() => {
      if (!stopped.current && latest.current !== saved.current && latest.current !== failed.current) schedule();
    });
  }, [url]);

  const schedule = useCallback(() => {
    const now = Date.now();
    firstChange.current ??= now;
    clearTimeout(timer.current);
    const wait = Math.max(0, Math.min(delayMs, firstChange.current + maxWaitMs - now));
    timer.current = setTimeout(() => void flush(), wait);
  }, [delayMs, maxWaitMs, flush]);

  const change = useCallback(
    (draft: Draft) => {
      const text = keyOf(draft);
      latest.current = text;
      if (stopped.current) return;
      if (text === saved.current) {
        clearTimeout(timer.current);
        firstChange.current = null;
        setStatus((s) => (s.kind === "dirty" ? { kind: "idle" } : s));
        return;
      }
      setStatus((s) => (s.kind === "saving" ? s : { kind: "dirty" }));
      schedule();
    },
    [schedule],
  );

  useEffect(() => () => clearTimeout(timer.current), []);

  return {
    status,
    change,
    flush,
    /** Whether text is not on the server yet (typed, waiting, or being sent). */
    unsaved: () => latest.current !== saved.current,
    /** The revision the server has now. */
    revision: () => revision.current,
    /** A save in flight, to wait for before the 保存 form posts. */
    inFlight: () => inFlight.current,
    /** Gives up the unsaved text (reloading a stale tab): leaving no longer asks. */
    discard: () => {
      clearTimeout(timer.current);
      stopped.current = true;
      saved.current = latest.current;
    },
  };
}
