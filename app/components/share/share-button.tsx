import { useEffect, useState } from "react";

/**
 * 分享 a work or a chapter (docs/product.md#sharing): with JavaScript, the browser's own
 * share sheet where it has one (Web Share), else the link copied to the clipboard with a
 * visible 已复制; without JavaScript (or when neither works) the link in a selectable field
 * inside a native disclosure. The link is built by the server from the configured site
 * origin (SITE_URL), never from the request's Host.
 */
export function ShareButton({ url, title, label = "分享" }: { url: string; title: string; label?: string }) {
  const [hydrated, setHydrated] = useState(false);
  const [status, setStatus] = useState<"idle" | "copied" | "shown">("idle");
  useEffect(() => setHydrated(true), []);

  if (!hydrated || status === "shown") {
    return (
      <details className="share-box" open={status === "shown" || undefined}>
        <summary className="btn btn-small">{label}</summary>
        <label className="share-field">
          <span>链接</span>
          <input type="text" readOnly value={url} onFocus={(e) => e.currentTarget.select()} data-testid="share-link" />
        </label>
      </details>
    );
  }

  const share = async () => {
    if (typeof navigator.share === "function") {
      try {
        await navigator.share({ title, url });
        return;
      } catch (error) {
        // The reader closed the sheet: nothing to do.
        if (error instanceof DOMException && error.name === "AbortError") return;
      }
    }
    try {
      await navigator.clipboard.writeText(url);
      setStatus("copied");
    } catch {
      setStatus("shown");
    }
  };
  return (
    <span className="share-box">
      <button type="button" className="btn btn-small" onClick={() => void share()}>
        {label}
      </button>
      <span role="status" className="share-status">
        {status === "copied" ? "已复制" : ""}
      </span>
    </span>
  );
}
