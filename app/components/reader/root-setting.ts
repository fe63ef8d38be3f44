import { useEffect, useState } from "react";

/**
 * A reading setting as the document carries it (`data-reader-*` on `<html>`, rendered by the
 * server from the saved settings and changed at once by the settings panel, decision 106),
 * followed as it changes. `null` until the page has hydrated: the server renders nothing
 * that depends on it.
 */
export function useRootSetting(attribute: string): string | null {
  const [value, setValue] = useState<string | null>(null);
  useEffect(() => {
    const root = document.documentElement;
    const read = () => setValue(root.getAttribute(attribute) ?? "");
    read();
    const observer = new MutationObserver(read);
    observer.observe(root, { attributes: true, attributeFilter: [attribute] });
    return () => observer.disconnect();
  }, [attribute]);
  return value;
}
