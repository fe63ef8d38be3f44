import { createHash } from "node:crypto";

/**
 * Pages a CDN may keep (docs/decisions/263-pages-a-cdn-may-keep.md, issue 35): a route whose
 * visitors' view holds nothing personal says so by answering `SHARED_PAGE` from its
 * `headers()`. app/entry.server.tsx then decides per request: a visitor's GET (no cookie,
 * no Authorization) answered 200 without a cookie is sent without a nonce, its own inline
 * scripts allowed by their hashes (a cached copy replays no nonce), with this Cache-Control,
 * `Vary: Cookie` and an ETag; everyone else gets the page private.
 */

/**
 * Shared caches keep a visitor's page 30 s and may serve it 60 s longer while they fetch a
 * new one; browsers always ask again (max-age=0), so a reader who signs in never sees the
 * visitor's copy. A stale copy catches up through its live stream (it asks for what changed
 * since it was rendered, decision 145).
 */
export const SHARED_PAGE = "public, max-age=0, s-maxage=30, stale-while-revalidate=60";

/** A page that said nothing: kept by nobody but the browser, which asks again before using it. */
const PRIVATE_PAGE = "private, no-cache";

/**
 * A shared page's view for someone signed in (their balance, unread count, reading position,
 * which opening the reader records): kept nowhere, as the reader pages always were.
 */
const PERSONAL_VIEW = "private, no-store";

/** Whether this answer may be rendered as the page every visitor without a cookie gets. */
export function isSharedPage(request: Request, status: number, headers: Headers): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (request.headers.has("Cookie") || request.headers.has("Authorization")) return false;
  return status === 200 && headers.get("Cache-Control") === SHARED_PAGE && !headers.has("Set-Cookie");
}

/**
 * The Cache-Control of an answer that is not shared: a shared page's personal view is
 * stored nowhere; a route that said something else keeps it (no-store for a reset link);
 * a page that said nothing is private.
 */
export function privateCacheControl(routeSays: string | null): string {
  if (routeSays === SHARED_PAGE) return PERSONAL_VIEW;
  return routeSays ?? PRIVATE_PAGE;
}

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;

/**
 * A page rendered with a one-off nonce made fit for every visitor: the scripts that carry
 * that nonce (the site's own: React Router's data and modules, the theme's) are named by the
 * hashes of their text, byte for byte as the browser hashes it, and every `nonce="…"` of it
 * is taken out. A script that reached the page by another way (markup past the sanitizer)
 * never had the nonce, so it is not hashed and does not run.
 */
export function withHashesForNonce(page: Buffer, nonce: string): { page: Buffer; scriptHashes: string[] } {
  const attribute = `nonce="${nonce}"`;
  const html = page.toString("utf8");
  const hashes = new Set<string>();
  for (const match of html.matchAll(INLINE_SCRIPT)) {
    if (!match[1].includes(attribute) || /\bsrc\s*=/i.test(match[1])) continue;
    hashes.add(`'sha256-${createHash("sha256").update(match[2], "utf8").digest("base64")}'`);
  }
  return { page: Buffer.from(html.replaceAll(` ${attribute}`, ""), "utf8"), scriptHashes: [...hashes] };
}

/**
 * A weak validator of the page: its bytes, less the moments its data was read (`moments`, the
 * shell's `loadedAt`, from which its live stream asks what changed, decision 145). Two renders
 * of the same content differ only there, and a copy of either is as good as the other (a copy
 * from an earlier moment asks its stream for a little more), so a cache that revalidates
 * after `s-maxage` is answered 304 until the content changes (docs/decisions/263, amended).
 */
export function etagOf(page: Buffer, moments: readonly number[] = []): string {
  let text = page.toString("utf8");
  for (const moment of moments) text = text.replaceAll(String(moment), "");
  return `W/"${createHash("sha1").update(text, "utf8").digest("base64url").slice(0, 22)}"`;
}

/**
 * The headers a 304 carries: those RFC 9110 (15.4.5) asks for, and nothing that describes a
 * body. A cache updates its copy's headers from a 304, and the copy it keeps may come from
 * another moment than this render, with another hash of its data script: this render's
 * Content-Security-Policy would stop that copy's scripts. Also used by
 * server/request-handler.js for pages replayed from the page cache.
 */
export function keptOnNotModified(header: string): boolean {
  return NOT_MODIFIED_HEADERS.has(header.toLowerCase());
}

const NOT_MODIFIED_HEADERS = new Set(["etag", "cache-control", "vary", "expires", "content-location", "date"]);

/** Whether the request's If-None-Match names this ETag (weak comparison, RFC 9110 13.1.2). */
export function notModified(request: Request, etag: string): boolean {
  return etagMatches(request.headers.get("If-None-Match"), etag);
}

/**
 * Whether an If-None-Match header names this ETag. Also used by server/request-handler.js
 * for pages replayed from the page cache (through the build's entry module).
 */
export function etagMatches(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === opaque);
}
