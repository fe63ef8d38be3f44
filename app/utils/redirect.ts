/**
 * A same-origin path to go to after login, or "/" for anything else: absolute URLs,
 * protocol-relative "//host", backslash tricks and control characters are refused.
 */
export function safeRedirectPath(value: unknown, fallback = "/"): string {
  if (typeof value !== "string") return fallback;
  const v = value.trim();
  if (!v.startsWith("/") || v.startsWith("//") || v.startsWith("/\\")) return fallback;
  if (/[\u0000-\u001f\\]/.test(v) || v.length > 2000) return fallback;
  try {
    const url = new URL(v, "http://inkstone.invalid");
    if (url.origin !== "http://inkstone.invalid") return fallback;
    return url.pathname + url.search + url.hash;
  } catch {
    return fallback;
  }
}
