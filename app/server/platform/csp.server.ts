import { randomFillSync } from "node:crypto";

/**
 * The Content-Security-Policy of every HTML page (docs/architecture.md#security-headers,
 * docs/decisions/066-content-security-policy.md). Scripts run only from this origin or
 * with the page's nonce, so markup that slips into a page (a sanitizer gap, a stored
 * `<script>` or `onerror=`) cannot run.
 */

/**
 * A fresh nonce per rendered page: 128 random bits, base64 as CSP allows. The bits come
 * from the system's CSPRNG 4 KB at a time (one call per 256 pages instead of one per
 * page, which was 1% of a signed-in render's CPU); no two pages share any of them.
 */
export function createNonce(): string {
  if (noncePoolUsed >= NONCE_POOL.byteLength) {
    randomFillSync(NONCE_POOL);
    noncePoolUsed = 0;
  }
  const nonce = NONCE_POOL.toString("base64", noncePoolUsed, noncePoolUsed + 16);
  noncePoolUsed += 16;
  return nonce;
}
const NONCE_POOL = Buffer.alloc(4096);
let noncePoolUsed = NONCE_POOL.byteLength;

/** The origin of a configured URL (S3_PUBLIC_URL, the payment gateway), or null. */
export function originOf(url: string | undefined | null): string | null {
  const text = url?.trim();
  if (!text) return null;
  try {
    const { protocol, origin } = new URL(text);
    return protocol === "http:" || protocol === "https:" ? origin : null;
  } catch {
    return null;
  }
}

export function contentSecurityPolicy({
  nonce,
  scriptHashes = [],
  formTargets = [],
  development = process.env.NODE_ENV === "development",
}: {
  /** The page's nonce; a page a CDN may keep has none and names its inline scripts' hashes. */
  nonce?: string;
  scriptHashes?: readonly string[];
  /** Origins a form on this page may be sent to besides this one (the payment gateway). */
  formTargets?: readonly string[];
  development?: boolean;
}): string {
  // Covers and avatars come from /files/* or, with S3_PUBLIC_URL, from the bucket; blob:
  // is the cover preview of the publish wizard (URL.createObjectURL).
  const images = ["'self'", "blob:", originOf(process.env.S3_PUBLIC_URL)].filter(Boolean);
  const directives: [string, ...string[]][] = [
    ["default-src", "'self'"],
    ["script-src", "'self'", ...(nonce ? [`'nonce-${nonce}'`] : []), ...scriptHashes],
    // Stylesheets are files; React sets style properties through the CSSOM after
    // hydration, which style-src does not govern. Vite's dev server injects <style>.
    ["style-src", "'self'", ...(development ? ["'unsafe-inline'"] : [])],
    ["img-src", ...(images as string[])],
    ["font-src", "'self'"],
    // fetchers, /api/events (EventSource) and /api/generate are same-origin; Vite's dev
    // server talks to the page over a WebSocket.
    ["connect-src", "'self'", ...(development ? ["ws:", "wss:"] : [])],
    // The service worker (/sw.js) and the web app manifest (decision 244), named so that
    // they do not depend on what script-src and default-src fall back to.
    ["worker-src", "'self'"],
    ["manifest-src", "'self'"],
    ["object-src", "'none'"],
    ["base-uri", "'none'"],
    ["form-action", "'self'", ...formTargets],
    ["frame-ancestors", "'none'"],
  ];
  return directives.map((d) => d.join(" ")).join("; ");
}
