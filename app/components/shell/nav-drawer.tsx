import { useCallback, useEffect, useRef, useState } from "react";
import { useLocation } from "react-router";

export const SIDEBAR_ID = "site-nav";
const TOGGLE_ID = "nav-toggle";

/**
 * The phone menu's state (docs/decisions/071-accessibility.md). Before hydration, and
 * without JavaScript, a checkbox and its ☰ label open the drawer through CSS alone; once
 * React runs they give way to a real button with aria-expanded. Escape closes the drawer
 * and gives focus back to the button; a new page or a tap on the backdrop closes it too.
 * Closed, the drawer is hidden by CSS, so Tab never walks through it.
 */
export function useNavDrawer() {
  const [enhanced, setEnhanced] = useState(false);
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const location = useLocation();

  // A new page closes the drawer.
  useEffect(() => setOpen(false), [location.pathname, location.search]);

  useEffect(() => {
    // Keep a drawer opened before hydration open.
    const toggle = document.getElementById(TOGGLE_ID);
    if (toggle instanceof HTMLInputElement && toggle.checked) setOpen(true);
    setEnhanced(true);
  }, []);

  const close = useCallback((returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  }, []);

  useEffect(() => {
    if (!open) return;
    // Focus goes to the first link of the drawer that just opened.
    const sidebar = document.getElementById(SIDEBAR_ID);
    const first = sidebar?.querySelector<HTMLElement>("a[href]");
    if (first && buttonRef.current === document.activeElement) first.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      // Only while the drawer is a drawer (the button shows on a phone).
      if (buttonRef.current?.getClientRects().length === 0) return;
      event.preventDefault();
      close(true);
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [open, close]);

  return {
    open: enhanced && open,
    /** The checkbox that opens the drawer before hydration; gone once React runs. */
    toggle: enhanced ? null : <input type="checkbox" id={TOGGLE_ID} className="nav-toggle" aria-label="菜单" />,
    button: enhanced ? (
      <button
        ref={buttonRef}
        type="button"
        className="nav-open"
        aria-label="菜单"
        aria-expanded={open}
        aria-controls={SIDEBAR_ID}
        onClick={() => setOpen((value) => !value)}
      >
        <span aria-hidden="true">☰</span>
      </button>
    ) : (
      // The checkbox carries the name; its label is only the visible, tappable ☰.
      <label htmlFor={TOGGLE_ID} className="nav-open" aria-hidden="true">
        ☰
      </label>
    ),
    backdrop: enhanced ? (
      <div className={open ? "nav-backdrop open" : "nav-backdrop"} aria-hidden="true" onClick={() => close(false)} />
    ) : (
      <label htmlFor={TOGGLE_ID} className="nav-backdrop" aria-hidden="true" />
    ),
    close: () => close(false),
  };
}
