import { useCallback, useEffect, useState } from "react";

const KEY = "inkstone-immersive";

/**
 * Immersive reading (docs/product.md#reading-comfort): the sidebar, the top bar and the
 * footer step aside (`data-immersive` on the document, app/styles/app.css) until the
 * reader presses 退出沉浸 or Escape. It lasts from chapter to chapter in the tab
 * (sessionStorage) and ends when the reader leaves the chapter. Needs JavaScript: without
 * it the button is not shown.
 */
export function useImmersive() {
  const [on, setOn] = useState(false);
  const [enhanced, setEnhanced] = useState(false);

  const set = useCallback((next: boolean) => {
    setOn(next);
    try {
      if (next) sessionStorage.setItem(KEY, "1");
      else sessionStorage.removeItem(KEY);
    } catch {
      // private mode: lasts for this chapter only
    }
  }, []);

  useEffect(() => {
    setEnhanced(true);
    try {
      if (sessionStorage.getItem(KEY) === "1") setOn(true);
    } catch {
      // no storage: starts off
    }
  }, []);

  useEffect(() => {
    const root = document.documentElement;
    if (!on) {
      delete root.dataset.immersive;
      return;
    }
    root.dataset.immersive = "true";
    const onKeyDown = (event: KeyboardEvent) => {
      // A dialog's own Escape (decision 050) comes first.
      if (event.key !== "Escape" || event.defaultPrevented || document.querySelector("dialog[open]")) return;
      set(false);
    };
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      delete root.dataset.immersive;
    };
  }, [on, set]);

  const button = enhanced ? (
    <button type="button" className="btn btn-small immersive-toggle" aria-pressed={on} onClick={() => set(!on)}>
      {on ? "退出沉浸" : "沉浸阅读"}
    </button>
  ) : null;
  // The middle of the page, tapped (gestures.ts), does what the button does.
  return { on, button, toggle: () => set(!on) };
}
