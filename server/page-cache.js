// A short-lived copy of the public pages a visitor without any cookie gets (the landing
// page and the works listing and search), so that a burst of visitors on the same
// address renders it once instead of once each (docs/decisions/013-visitor-page-cache.md).
//
// Only what is the same for every such visitor is kept: GET or HEAD of an allowed path,
// no Cookie and no Authorization header, and a 200 HTML answer that sets no cookie. A
// signed-in user (or anyone with a cookie) always gets a fresh render. Entries expire
// after `ttlMs`, and everything is dropped when the works or the site configuration
// change (the live events `work` and `site`, raised by database triggers from any
// process), so a change shows at once; the TTL bounds what no event announces (an
// author's new nickname on a card).
//
// A kept page with a Content-Security-Policy nonce is not replayed byte for byte: the nonce
// is replaced by a fresh one on every replay, so no two answers share a nonce. The pages it
// keeps today are visitors' pages a CDN may keep too, which carry none (decision 263)
// (docs/decisions/066-content-security-policy.md).
import { randomBytes } from "node:crypto";

const DEFAULT_PATHS = new Set(["/", "/works", "/rankings"]);

export function createPageCache({ ttlMs = 5_000, maxEntries = 500, maxBodyBytes = 512 * 1024, paths = DEFAULT_PATHS } = {}) {
  /** @type {Map<string, { status: number, headers: [string, string][], body: Buffer, nonce: string | null, storedAt: number }>} */
  const entries = new Map();
  let generation = 0;
  let enabled = false;

  return {
    /** Called once the process listens for the invalidating events; until then nothing is kept. */
    enable() {
      enabled = true;
    },
    clear() {
      generation += 1;
      entries.clear();
    },
    get size() {
      return entries.size;
    },
    /** The cache key of a request that may be served from or stored in the cache, or null. */
    keyOf(req) {
      if (!enabled) return null;
      if (req.method !== "GET" && req.method !== "HEAD") return null;
      if (req.headers.cookie || req.headers.authorization) return null;
      const url = req.originalUrl;
      const path = url.split("?", 1)[0];
      if (!paths.has(path)) return null;
      return url;
    },
    lookup(key, now = Date.now()) {
      const entry = entries.get(key);
      if (!entry) return null;
      if (now - entry.storedAt > ttlMs) {
        entries.delete(key);
        return null;
      }
      return entry;
    },
    /**
     * Starts recording a response for `key`. Returns `{ add(chunk), finish() }`; the entry is
     * kept only if the answer qualifies, fits in maxBodyBytes, and nothing changed
     * meanwhile.
     */
    recorder(key, response) {
      const startedAt = generation;
      const type = response.headers.get("Content-Type") ?? "";
      if (response.status !== 200 || !type.startsWith("text/html") || response.headers.has("Set-Cookie")) return null;
      if (/no-store|private/i.test(response.headers.get("Cache-Control") ?? "")) return null;
      const chunks = [];
      let bytes = 0;
      let overflow = false;
      return {
        add(chunk) {
          if (overflow) return;
          bytes += chunk.byteLength;
          if (bytes > maxBodyBytes) {
            overflow = true;
            chunks.length = 0;
            return;
          }
          chunks.push(Buffer.from(chunk)); // a copy: the stream may reuse what it handed over
        },
        finish() {
          if (overflow || startedAt !== generation) return;
          if (entries.size >= maxEntries) entries.delete(entries.keys().next().value);
          entries.set(key, {
            status: response.status,
            // Without Content-Length: a replay writes a fresh nonce, and Node counts the body.
            headers: [...response.headers].filter(([name]) => name.toLowerCase() !== "content-length"),
            body: Buffer.concat(chunks, bytes),
            nonce: nonceOf(response.headers.get("Content-Security-Policy")),
            storedAt: Date.now(),
          });
        },
      };
    },
  };
}

/** The `'nonce-…'` source of a Content-Security-Policy, or null. */
function nonceOf(policy) {
  return policy?.match(/'nonce-([A-Za-z0-9+/=_-]+)'/)?.[1] ?? null;
}

/**
 * The headers and body to send for a kept page, with a nonce of its own: the policy's
 * nonce and every `nonce="…"` attribute carrying it are replaced (entry.server makes
 * nonces the same way: 16 random bytes, base64). A page without a nonce is sent as kept.
 *
 * @param {{ status: number, headers: [string, string][], body: Buffer, nonce: string | null }} entry
 * @param {string} [nonce]
 * @returns {{ status: number, headers: [string, string][], body: Buffer }}
 */
export function replayOf(entry, nonce = randomBytes(16).toString("base64")) {
  if (!entry.nonce) return { status: entry.status, headers: entry.headers, body: entry.body };
  const headers = entry.headers.map(([name, value]) =>
    /** @type {[string, string]} */ (
      name.toLowerCase() === "content-security-policy" ? [name, value.replaceAll(`'nonce-${entry.nonce}'`, `'nonce-${nonce}'`)] : [name, value]
    ),
  );
  const kept = Buffer.from(`nonce="${entry.nonce}"`);
  const fresh = Buffer.from(`nonce="${nonce}"`);
  const parts = [];
  let from = 0;
  for (let at = entry.body.indexOf(kept); at !== -1; at = entry.body.indexOf(kept, from)) {
    parts.push(entry.body.subarray(from, at), fresh);
    from = at + kept.length;
  }
  parts.push(entry.body.subarray(from));
  return { status: entry.status, headers, body: Buffer.concat(parts) };
}
