// Inkstone's service worker (docs/decisions/244-offline-reading.md): hand-written, no build
// step, because what it keeps is chosen by the reader, per person, not precached by a tool.
//
// - /assets/* (hashed, immutable files): kept on first use, so a kept chapter hydrates offline.
// - Pages and a chapter's later batches (/works/<id>/paragraphs): always from the network. Only
//   when the network fails do they come from the signed-in reader's own cache of kept
//   chapters (app/components/reader/offline-reading.ts fills it), a page else the offline
//   page. No other HTML is ever stored.
// - The kept chapters live in `inkstone-offline-<key>`, the key a per-person hash the server
//   gives the page (routes/shell/layout.tsx). When the page reports another key, or none (a
//   visitor), or the browser posts 退出登录, every other person's cache is deleted.
const SHELL = "inkstone-shell-v1";
const ASSETS = "inkstone-assets";
const OFFLINE_PREFIX = "inkstone-offline-";
const META = "inkstone-meta";
const OWNER = "/__inkstone-offline-owner";
const ASSET_LIMIT = 300;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(SHELL)
      .then((cache) => cache.addAll(["/offline.html"]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("inkstone-shell-") && n !== SHELL).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

/** The key of the person whose chapters are kept here, or null. */
async function ownerKey() {
  const found = await (await caches.open(META)).match(OWNER);
  return found ? (await found.text()) || null : null;
}

/** Makes `key` the device's reader: every other person's kept chapters are deleted. */
async function setOwner(key) {
  const keep = key ? OFFLINE_PREFIX + key : null;
  const names = await caches.keys();
  await Promise.all(names.filter((n) => n.startsWith(OFFLINE_PREFIX) && n !== keep).map((n) => caches.delete(n)));
  const meta = await caches.open(META);
  await meta.put(OWNER, new Response(key ?? "", { headers: { "Content-Type": "text/plain" } }));
}

self.addEventListener("message", (event) => {
  const message = event.data;
  if (!message || typeof message !== "object") return;
  if (message.type === "owner") {
    const key = typeof message.key === "string" && /^[0-9a-f]{16,64}$/.test(message.key) ? message.key : null;
    event.waitUntil(setOwner(key).then(() => event.ports[0]?.postMessage("ok")));
  }
});

/** A chapter's address as kept: `/works/<id>?chapter=<n>`, whatever else the link carries. */
function keptAddress(url) {
  const work = /^\/works\/(\d{1,15})$/.exec(url.pathname);
  const chapter = url.searchParams.get("chapter");
  if (!work || !chapter || !/^\d{1,7}$/.test(chapter)) return null;
  return `/works/${work[1]}?chapter=${chapter}`;
}

/** A kept chapter's page, or a later batch of its text, from the device's reader's cache. */
async function keptPage(url) {
  const address = keptAddress(url) ?? (/^\/works\/\d{1,15}\/paragraphs$/.test(url.pathname) ? url.pathname + url.search : null);
  const key = address && (await ownerKey());
  if (!key) return null;
  const names = await caches.keys();
  if (!names.includes(OFFLINE_PREFIX + key)) return null;
  return (await (await caches.open(OFFLINE_PREFIX + key)).match(address)) ?? null;
}

async function offlinePage(url) {
  return (await keptPage(url)) ?? (await caches.match("/offline.html", { cacheName: SHELL })) ?? Response.error();
}

/**
 * A page's data request (React Router's `<path>.data`) that cannot reach the server: the
 * router is told to load the page as a document instead, which the fetch handler then
 * answers from the kept chapters or with the offline page.
 */
function reloadAsDocument(url) {
  const page = new URL(url);
  page.pathname = page.pathname === "/_root.data" ? "/" : page.pathname.replace(/\.data$/, "");
  page.searchParams.delete("_routes");
  page.searchParams.delete("index");
  return new Response(null, {
    status: 204,
    headers: { "X-Remix-Redirect": page.pathname + page.search, "X-Remix-Status": "302", "X-Remix-Reload-Document": "true", "X-Remix-Replace": "true" },
  });
}

async function fromAssets(request) {
  const cache = await caches.open(ASSETS);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") {
    await cache.put(request, response.clone());
    const keys = await cache.keys();
    // Old builds' files go first once there are too many.
    for (const old of keys.slice(0, Math.max(0, keys.length - ASSET_LIMIT))) await cache.delete(old);
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method !== "GET") {
    // 退出登录: nobody's chapters stay on the device.
    if (request.method === "POST" && url.pathname === "/auth/logout") event.waitUntil(setOwner(null));
    return;
  }
  if (url.pathname.startsWith("/assets/")) {
    event.respondWith(fromAssets(request));
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => offlinePage(url)));
    return;
  }
  if (/^\/works\/\d{1,15}\/paragraphs$/.test(url.pathname)) {
    event.respondWith(fetch(request).catch(async () => (await keptPage(url)) ?? Response.error()));
    return;
  }
  if (url.pathname.endsWith(".data")) {
    event.respondWith(fetch(request).catch(() => reloadAsDocument(url)));
  }
});
