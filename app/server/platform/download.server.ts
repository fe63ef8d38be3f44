/**
 * `attachment; filename="<ascii>"; filename*=UTF-8''<utf-8>`: the ASCII name for old
 * clients and curl -J, the UTF-8 one (RFC 6266/5987) for Chinese names.
 */
function contentDisposition(filename: string, asciiFallback: string): string {
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const ascii = asciiFallback.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A file name without characters that file systems or headers refuse. */
export function safeFileName(name: string, fallback: string): string {
  const cleaned = Array.from(name.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, " ").trim()).slice(0, 80).join("").trim();
  return cleaned || fallback;
}

export function downloadHeaders(filename: string, asciiFallback: string, contentType: string): Record<string, string> {
  return {
    "Content-Type": contentType,
    "Content-Disposition": contentDisposition(filename, asciiFallback),
    "Cache-Control": "no-store, no-transform",
    "X-Content-Type-Options": "nosniff",
  };
}

/**
 * A Node stream as a web stream for a Response, pulled on demand (back-pressure) and
 * destroyed when the download is cancelled. (Node 20's Readable.toWeb can throw
 * "Controller is already closed" when a download is cancelled mid-way.)
 */
export function webStreamFrom(readable: AsyncIterable<Uint8Array> & { destroy(error?: Error): void }): ReadableStream<Uint8Array> {
  const iterator = readable[Symbol.asyncIterator]();
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (cancelled) return;
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        if (!cancelled) controller.error(error);
      }
    },
    cancel() {
      cancelled = true;
      readable.destroy();
    },
  });
}
