import { tellOwner } from "~/components/shell/service-worker";

/**
 * 离线阅读 on the device (decision 244): asks the server which chapters the reader may keep
 * (GET /works/:id/offline), fetches each page and later batch of text, and puts them in the
 * reader's own cache (`inkstone-offline-<key>`), with the script and style files the pages
 * name, for public/sw.js to answer from when the network is gone.
 */

const OFFLINE_PREFIX = "inkstone-offline-";
const ASSETS = "inkstone-assets";

export type KeepResult = { ok: true; kept: number; locked: number; first: number | null; last: number | null } | { ok: false; error: string };

/** Whether this browser can keep chapters: a service worker and the Cache API. */
export function offlineSupported(): boolean {
  return typeof window !== "undefined" && "serviceWorker" in navigator && "caches" in window;
}

export async function keepForOffline(workId: number, from: number | null): Promise<KeepResult> {
  let plan: { key: string; chapters: { order: number }[]; urls: string[]; locked: number };
  try {
    const response = await fetch(`/works/${workId}/offline${from === null ? "" : `?from=${from}`}`, { headers: { Accept: "application/json" } });
    const answer = (await response.json().catch(() => null)) as (typeof plan & { error?: string }) | null;
    if (!response.ok || !answer) return { ok: false, error: answer?.error ?? "保存失败，请稍后重试" };
    plan = answer;
  } catch {
    return { ok: false, error: "保存失败，请检查网络后重试" };
  }
  try {
    await tellOwner(plan.key);
  } catch {
    return { ok: false, error: "离线阅读暂时不可用，请刷新页面后重试" };
  }
  try {
    const cache = await caches.open(OFFLINE_PREFIX + plan.key);
    const assets = new Set<string>();
    const fetched: [string, Response][] = [];
    for (const url of plan.urls) {
      // The server records no reading position for a page kept this way.
      const response = await fetch(url, { headers: { "X-Inkstone-Offline": "keep" }, credentials: "same-origin" });
      if (!response.ok || response.redirected) return { ok: false, error: "保存失败，请稍后重试" };
      if ((response.headers.get("Content-Type") ?? "").startsWith("text/html")) {
        const html = await response.clone().text();
        for (const asset of html.match(/\/assets\/[\w.-]+\.(?:js|css|woff2?)/g) ?? []) assets.add(asset);
      }
      fetched.push([url, response]);
    }
    // What was kept of this work before makes way for the new span.
    for (const old of await cache.keys()) {
      const { pathname } = new URL(old.url);
      if (pathname === `/works/${workId}` || pathname === `/works/${workId}/paragraphs`) await cache.delete(old);
    }
    for (const [url, response] of fetched) await cache.put(url, response);
    const files = await caches.open(ASSETS);
    for (const asset of assets) if (!(await files.match(asset))) await files.add(asset);
    const orders = plan.chapters.map((c) => c.order);
    return { ok: true, kept: orders.length, locked: plan.locked, first: orders[0] ?? null, last: orders.at(-1) ?? null };
  } catch {
    return { ok: false, error: "保存失败：本机存储空间不足或浏览器不允许" };
  }
}

/** The chapter numbers of this work kept on this device (only the signed-in reader's cache is left there). */
export async function keptChapters(workId: number): Promise<number[]> {
  const orders: number[] = [];
  for (const name of await caches.keys()) {
    if (!name.startsWith(OFFLINE_PREFIX)) continue;
    for (const request of await (await caches.open(name)).keys()) {
      const url = new URL(request.url);
      const chapter = url.searchParams.get("chapter");
      if (url.pathname === `/works/${workId}` && chapter) orders.push(Number(chapter));
    }
  }
  return orders.sort((a, b) => a - b);
}
