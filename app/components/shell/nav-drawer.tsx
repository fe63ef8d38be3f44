import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { useLocation } from "react-router";

export const SIDEBAR_ID = "site-nav";

/** The pieces of one drawer: its ids, classes and the button's face. */
export interface DrawerParts {
  sidebarId: string;
  toggleId: string;
  toggleClass: string;
  buttonClass: string;
  backdropClass: string;
  /** The accessible name of the checkbox and the button. */
  label: string;
  /** What the button and its no-JavaScript label show. */
  face: ReactNode;
}

/** The site's drawer (the shell's sidebar); the back office passes its own parts. */
const SITE_DRAWER: DrawerParts = {
  sidebarId: SIDEBAR_ID,
  toggleId: "nav-toggle",
  toggleClass: "nav-toggle",
  buttonClass: "nav-open",
  backdropClass: "nav-backdrop",
  label: "菜单",
  face: <span aria-hidden="true">☰</span>,
};

/** The address without `?notice=`, which names a message on the page, not another page. */
function pageOf(pathname: string, search: string): string {
  const params = new URLSearchParams(search);
  params.delete("notice");
  return `${pathname}?${params.toString()}`;
}

/**
 * The phone menu's state (docs/decisions/071-accessibility.md), for the site's sidebar and
 * the back office's menu alike. Before hydration, and without JavaScript, a checkbox and
 * its label open the drawer through CSS alone; once React runs they give way to a real
 * button with aria-expanded (Enter and Space open it). Escape closes the drawer and gives
 * focus back to the button; a new page or a tap on the backdrop closes it too. Closed,
 * the drawer is hidden by CSS, so Tab never walks through it.
 */
export function useNavDrawer(parts: DrawerParts = SITE_DRAWER) {
  const { sidebarId, toggleId } = parts;
  const [enhanced, setEnhanced] = useState(false);
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const location = useLocation();

  // A new page closes the drawer. The back office's notice leaving the address bar a few
  // seconds after a save (QueryNotice, components/admin/ui.tsx) is not a new page: it
  // must not shut a menu the operator has just opened.
  const page = pageOf(location.pathname, location.search);
  useEffect(() => setOpen(false), [page]);

  useEffect(() => {
    // Keep a drawer opened before hydration open.
    const toggle = document.getElementById(toggleId);
    if (toggle instanceof HTMLInputElement && toggle.checked) setOpen(true);
    setEnhanced(true);
  }, [toggleId]);

  const close = useCallback((returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  }, []);

  useEffect(() => {
    if (!open) return;
    // Focus goes to the first link of the drawer that just opened.
    const sidebar = document.getElementById(sidebarId);
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
  }, [open, close, sidebarId]);

  return {
    open: enhanced && open,
    /** The checkbox that opens the drawer before hydration; gone once React runs. */
    toggle: enhanced ? null : <input type="checkbox" id={toggleId} className={parts.toggleClass} aria-label={parts.label} aria-controls={sidebarId} />,
    button: enhanced ? (
      <button
        ref={buttonRef}
        type="button"
        className={parts.buttonClass}
        aria-label={parts.label}
        aria-expanded={open}
        aria-controls={sidebarId}
        onClick={() => setOpen((value) => !value)}
      >
        {parts.face}
      </button>
    ) : (
      // The checkbox carries the name; its label is only the visible, tappable face.
      <label htmlFor={toggleId} className={parts.buttonClass} aria-hidden="true">
        {parts.face}
      </label>
    ),
    backdrop: enhanced ? (
      <div className={open ? `${parts.backdropClass} open` : parts.backdropClass} aria-hidden="true" onClick={() => close(false)} />
    ) : (
      <label htmlFor={toggleId} className={parts.backdropClass} aria-hidden="true" />
    ),
    close: () => close(false),
  };
}
