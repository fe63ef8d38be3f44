import { useEffect, type AnchorHTMLAttributes } from "react";
import { useNavigate } from "react-router";

/**
 * A link to a page of this app: a plain `<a href>` that the one click listener of
 * `useAppLinkNavigation` (mounted once, in app/root.tsx) turns into a client-side
 * navigation once the page has hydrated; without JavaScript it is an ordinary link.
 *
 * React Router's `<Link>` resolves its target against the matched routes and sets up its
 * click handler on every render of every link: with some forty links on a listing page
 * that was a measurable part of a signed-in render (docs/decisions/109-plain-app-links.md).
 * Use `AppLink` for absolute addresses of pages (`/works/12`, `/works?page=2`); keep
 * `<Link>` where its options matter (relative paths, `replace`, `state`, `reloadDocument`).
 */
export function AppLink({ to, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  return <a {...props} href={to} data-app-link="" />;
}

/**
 * Mounted once at the root: a click on an `AppLink` (a plain left click, without a target
 * or modifier keys, to this origin) navigates on the client, as `<Link>` would. The
 * listener sits on `window`, after React's own on the document, so a link's own onClick
 * that called preventDefault (the sidebar opening the login dialog) wins.
 */
export function useAppLinkNavigation() {
  const navigate = useNavigate();
  useEffect(() => {
    function onClick(event: MouseEvent) {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
      const link = event.target instanceof Element ? event.target.closest<HTMLAnchorElement>("a[data-app-link]") : null;
      if (!link || (link.target && link.target !== "_self") || link.hasAttribute("download")) return;
      const url = new URL(link.href);
      if (url.origin !== window.location.origin) return;
      event.preventDefault();
      void navigate(url.pathname + url.search + url.hash);
    }
    window.addEventListener("click", onClick);
    return () => window.removeEventListener("click", onClick);
  }, [navigate]);
}
