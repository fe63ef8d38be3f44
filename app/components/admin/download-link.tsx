import { useState, type ReactNode } from "react";

/** The file name from a Content-Disposition header (the UTF-8 form first). */
function fileNameFromDisposition(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename="([^"]+)"/i.exec(header);
  return plain ? plain[1] : fallback;
}

export function saveBlob(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * A download link. Without JavaScript the browser follows it: the file downloads, or the
 * export's message (e.g. 作品内容为空) shows as a page. With JavaScript the file is
 * fetched here, so an error appears in a red box beside the link instead. The busy flag
 * is kept by hand: a file download is not a navigation or a fetcher load.
 */
export function DownloadLink({
  href,
  fileName,
  children,
  className,
  fallbackError = "导出失败，请重试",
}: {
  href: string;
  fileName: string;
  children: ReactNode;
  className?: string;
  fallbackError?: string;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <a
        href={href}
        className={className}
        aria-busy={busy}
        onClick={async (event) => {
          if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
          event.preventDefault();
          if (busy) return;
          setBusy(true);
          setError(null);
          try {
            const response = await fetch(href, { credentials: "same-origin" });
            if (!response.ok) {
              const text = (await response.text()).trim();
              setError(text && text.length < 200 ? text : fallbackError);
              return;
            }
            const blob = await response.blob();
            saveBlob(blob, fileNameFromDisposition(response.headers.get("Content-Disposition"), fileName));
          } catch {
            setError(fallbackError);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? "导出中..." : children}
      </a>
      {error ? (
        <span className="admin-inline-error" role="alert">
          {error}
        </span>
      ) : null}
    </>
  );
}
