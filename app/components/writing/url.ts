import { useLocation } from "react-router";

/** What a writing page keeps in its URL across links; everything else is one-off UI state. */
const KEEP = ["project", "plot", "tab", "sourceQ"] as const;

/** A link on the writing page: the kept parameters plus `changes` (null or "" removes one). */
export function useWritingHref() {
  const location = useLocation();
  return (changes: Record<string, string | null | undefined> = {}) => {
    const current = new URLSearchParams(location.search);
    const next = new URLSearchParams();
    for (const key of KEEP) {
      const value = current.get(key);
      if (value) next.set(key, value);
    }
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    const query = next.toString();
    return `${location.pathname}${query ? `?${query}` : ""}`;
  };
}

/** One-off UI state from the URL: the form or confirmation open, the version viewed. */
export function useWritingParam(name: string): string {
  return new URLSearchParams(useLocation().search).get(name) ?? "";
}
