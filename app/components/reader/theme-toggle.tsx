import { useEffect, useState } from "react";

export const THEME_KEY = "inkstone-theme";

/**
 * The reader's dark-mode switch. The root's inline script applies the stored theme
 * before the first paint; this button only exists once JavaScript runs, reads the theme
 * from the document (so server and client render the same), and remembers the choice.
 */
export function ThemeToggle() {
  const [theme, setTheme] = useState<"light" | "dark" | null>(null);
  useEffect(() => {
    setTheme(document.documentElement.dataset.theme === "dark" ? "dark" : "light");
  }, []);
  if (!theme) return null;
  const dark = theme === "dark";
  return (
    <button
      type="button"
      className="btn btn-small theme-toggle"
      aria-pressed={dark}
      onClick={() => {
        const next = dark ? "light" : "dark";
        if (next === "dark") document.documentElement.dataset.theme = "dark";
        else delete document.documentElement.dataset.theme;
        try {
          localStorage.setItem(THEME_KEY, next);
        } catch {
          // private mode: the choice lasts for this page only
        }
        setTheme(next);
      }}
    >
      {dark ? "☀ 日间模式" : "☾ 夜间模式"}
    </button>
  );
}
