import { useId, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { Link, useNavigate } from "react-router";

const FIELDS = 'input:not([type="hidden"]):not([disabled]), select:not([disabled]), textarea:not([disabled])';
const FOCUSABLE = `${FIELDS}, a[href], button:not([disabled]), [tabindex]:not([tabindex="-1"])`;

/**
 * The one modal dialog of the site (docs/decisions/050). The server renders it open from
 * the URL (`?auth=login`, `?dialog=redeem`...), so without JavaScript it is a section over
 * the page with links that close it. Once hydrated it becomes a real modal through the
 * native `<dialog>`'s showModal(): focus moves in, the page behind is inert, Escape
 * closes it (by navigating to `closeHref`), and focus goes back to what opened it.
 */
export function Dialog({
  title,
  closeHref,
  closable = true,
  className,
  children,
}: {
  title: ReactNode;
  /** Where closing goes: the same page without the dialog's query parameters. */
  closeHref: string;
  /** False while something runs that must not be interrupted (a purchase being made). */
  closable?: boolean;
  className?: string;
  children: ReactNode;
}) {
  const titleId = useId();
  const ref = useRef<HTMLDialogElement>(null);
  const navigate = useNavigate();
  // What had focus when the dialog was first rendered (the link that opened it); read
  // once, on the client, before anything inside the dialog takes focus.
  const [opener] = useState(() => (typeof document === "undefined" ? null : document.activeElement));
  const closableRef = useRef(closable);
  closableRef.current = closable;
  const close = useRef(() => {});
  close.current = () => navigate(closeHref, { replace: true, preventScrollReset: true });

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    // The server rendered it with `open` (non-modal); reopen it as a modal. React keeps
    // rendering `open`, which showModal() sets again, so the two never disagree.
    const focused = dialog.contains(document.activeElement) ? document.activeElement : null;
    if (!dialog.matches(":modal")) {
      dialog.removeAttribute("open");
      dialog.showModal();
    }
    const target = focused ?? dialog.querySelector("[autofocus]") ?? dialog.querySelector(FIELDS) ?? firstAction(dialog);
    if (target instanceof HTMLElement) target.focus();
    else dialog.focus();

    // Escape asks first (cancel) and the site closes by navigating, so the URL says
    // whether the dialog is open. The browser may skip the cancel step (no user action
    // since the last Escape); then the dialog closes natively and the same rules apply.
    const onCancel = (event: Event) => {
      event.preventDefault();
      if (closableRef.current) close.current();
    };
    const onClose = () => {
      if (dialog.open) return;
      if (closableRef.current) close.current();
      else dialog.showModal();
    };
    // The browser lets Tab leave a modal dialog for its own toolbar; keep it going round.
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Tab") return;
      const stops = tabStops(dialog);
      if (stops.length === 0) return;
      const first = stops[0];
      const last = stops[stops.length - 1];
      const active = document.activeElement;
      if (event.shiftKey && (active === first || active === dialog)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && active === last) {
        event.preventDefault();
        first.focus();
      }
    };
    dialog.addEventListener("cancel", onCancel);
    dialog.addEventListener("close", onClose);
    dialog.addEventListener("keydown", onKeyDown);
    return () => {
      dialog.removeEventListener("cancel", onCancel);
      dialog.removeEventListener("close", onClose);
      dialog.removeEventListener("keydown", onKeyDown);
      if (dialog.open) dialog.close();
      if (opener instanceof HTMLElement && opener.isConnected && !dialog.contains(opener)) opener.focus();
    };
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <div className="modal-backdrop" role="presentation">
      <dialog ref={ref} open className={className ? `modal ${className}` : "modal"} aria-labelledby={titleId} tabIndex={-1}>
        {closable ? (
          <Link to={closeHref} className="modal-close" aria-label="关闭" replace preventScrollReset>
            ×
          </Link>
        ) : null}
        <h2 id={titleId}>{title}</h2>
        {children}
      </dialog>
    </div>
  );
}

/** What Tab stops on inside the dialog, in order (only visible, enabled elements). */
function tabStops(dialog: HTMLElement): HTMLElement[] {
  return Array.from(dialog.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (element) => element.tabIndex >= 0 && element.getClientRects().length > 0,
  );
}

/** The first control that is not the close link: the dialog's own first step. */
function firstAction(dialog: HTMLElement): Element | null {
  for (const element of dialog.querySelectorAll(FOCUSABLE)) {
    if (!element.classList.contains("modal-close")) return element;
  }
  return null;
}
