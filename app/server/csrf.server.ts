/**
 * Resource routes get no framework CSRF check: a POST is accepted only when its Origin
 * (or, failing that, Referer) is this site. Browsers send Origin on every POST.
 */
export function isSameOriginPost(request: Request): boolean {
  const url = new URL(request.url);
  const origin = request.headers.get("Origin") ?? request.headers.get("Referer");
  if (!origin) return false;
  try {
    const from = new URL(origin);
    const host = request.headers.get("X-Forwarded-Host") ?? request.headers.get("Host") ?? url.host;
    return from.host === host;
  } catch {
    return false;
  }
}
