const ORIGIN = "http://inkstone.invalid";

/**
 * The one normalizer for every redirect target taken from a request (`redirectTo`,
 * `back`; docs/architecture.md#redirects): a same-origin path, or `fallback`.
 *
 * The target is resolved against a dummy origin the way a browser would resolve it, so
 * dot segments, encoded characters and the parser's own clean-ups (it drops tabs and
 * newlines, reads `\` as `/`) are applied before the check, not after. The result must
 * be a fixed point: resolving it again gives the same path on the same origin. That
 * refuses `/.//evil.example` and `/admin/../..//evil.example`, which resolve to the
 * path `//evil.example`, itself a link to another host. `allow`, when given, must accept
 * the normalized pathname (e.g. only pages under /admin).
 */
export function safeRedirectPath(
  value: unknown,
  fallback = "/",
  allow?: (pathname: string) => boolean,
): string {
  if (typeof value !== "string" || value.length > 2000) return fallback;
  // Only absolute paths; controls and backslashes never appear in a path the site links to.
  if (!value.startsWith("/") || /[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  let url: URL;
  try {
    url = new URL(value, ORIGIN);
  } catch {
    return fallback;
  }
  if (url.origin !== ORIGIN || !url.pathname.startsWith("/") || url.pathname.startsWith("//")) return fallback;
  const path = url.pathname + url.search + url.hash;
  const again = new URL(path, ORIGIN);
  if (again.origin !== ORIGIN || again.pathname + again.search + again.hash !== path) return fallback;
  if (allow && !allow(url.pathname)) return fallback;
  return path;
}

/** True for `prefix` itself and the pages under it (`/admin`, `/admin/users`, not `/administrator`). */
export function isUnder(prefix: string): (pathname: string) => boolean {
  return (pathname) => pathname === prefix || pathname.startsWith(`${prefix}/`);
}
