import { useCallback, useEffect, useRef, useState } from "react";

/**
 * Saving as the author types: `schedule` keeps the latest text and saves it after a pause;
 * `flush` saves it at once. Whatever is still waiting is saved when the editor goes away
 * (another plot, another tab, another page), so in-app navigation loses nothing, and
 * while text is waiting or a save is in flight, leaving or reloading the page asks first
 * (beforeunload: the browser's own dialog). `waiting` is true from a keystroke until its
 * save is sent, so the status line never says 已自动保存 over text that has not left yet.
 */
export function useAutosave(saving: () => boolean, delayMs = 800) {
  const pending = useRef<(() => void) | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const isSaving = useRef(saving);
  isSaving.current = saving;
  const [waiting, setWaiting] = useState(false);

  const flush = useCallback(() => {
    clearTimeout(timer.current);
    const save = pending.current;
    pending.current = null;
    setWaiting(false);
    save?.();
  }, []);

  const schedule = useCallback(
    (save: () => void) => {
      pending.current = save;
      setWaiting(true);
      clearTimeout(timer.current);
      timer.current = setTimeout(flush, delayMs);
    },
    [flush, delayMs],
  );

  // Dropping the waiting text (forgetting a timer) would lose the last words typed.
  useEffect(() => flush, [flush]);

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!pending.current && !isSaving.current()) return;
      flush();
      event.preventDefault();
      event.returnValue = "";
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, [flush]);

  return { schedule, flush, waiting };
}
