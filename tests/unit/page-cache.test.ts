import { describe, expect, it } from "vitest";
import { createPageCache, replayOf } from "../../server/page-cache.js";

const visitor = (url: string, headers: Record<string, string> = {}, method = "GET") => ({ method, headers, originalUrl: url });
const html = (body: string, init: ResponseInit = {}) =>
  new Response(body, { status: 200, ...init, headers: { "Content-Type": "text/html; charset=utf-8", ...init.headers } });

function store(cache: ReturnType<typeof createPageCache>, key: string, response: Response, body = "<p>页面</p>") {
  const recorder = cache.recorder(key, response);
  if (!recorder) return false;
  recorder.add(new TextEncoder().encode(body));
  recorder.finish();
  return true;
}

describe("the visitor page cache", () => {
  it("keeps nothing until the process listens for changes", () => {
    const cache = createPageCache();
    expect(cache.keyOf(visitor("/works?q=西游"))).toBeNull();
    cache.enable();
    expect(cache.keyOf(visitor("/works?q=西游"))).toBe("/works?q=西游");
  });

  it("serves only visitors without a cookie or credentials, on the listed pages, for GET and HEAD", () => {
    const cache = createPageCache();
    cache.enable();
    expect(cache.keyOf(visitor("/"))).toBe("/");
    expect(cache.keyOf(visitor("/works", {}, "HEAD"))).toBe("/works");
    expect(cache.keyOf(visitor("/works", {}, "POST"))).toBeNull();
    expect(cache.keyOf(visitor("/works", { cookie: "theme=dark" }))).toBeNull();
    expect(cache.keyOf(visitor("/works", { authorization: "Bearer x" }))).toBeNull();
    expect(cache.keyOf(visitor("/works/12"))).toBeNull();
    expect(cache.keyOf(visitor("/credits"))).toBeNull();
  });

  it("stores a 200 HTML page, and never one that sets a cookie, is private, failed or is not HTML", () => {
    const cache = createPageCache();
    cache.enable();
    expect(store(cache, "/", html("x"))).toBe(true);
    expect(cache.lookup("/")?.body.toString()).toBe("<p>页面</p>");
    expect(store(cache, "/a", html("x", { headers: { "Set-Cookie": "a=1" } }))).toBe(false);
    expect(store(cache, "/b", html("x", { headers: { "Cache-Control": "private, no-store" } }))).toBe(false);
    expect(store(cache, "/c", html("x", { status: 404 }))).toBe(false);
    expect(store(cache, "/d", new Response("{}", { headers: { "Content-Type": "application/json" } }))).toBe(false);
  });

  it("forgets a page after its time, on clear(), and a render that a change overtook", () => {
    const cache = createPageCache({ ttlMs: 1000 });
    cache.enable();
    store(cache, "/", html("x"));
    const storedAt = cache.lookup("/")!.storedAt;
    expect(cache.lookup("/", storedAt + 1000)).not.toBeNull();
    expect(cache.lookup("/", storedAt + 1001)).toBeNull();

    store(cache, "/", html("x"));
    cache.clear();
    expect(cache.lookup("/")).toBeNull();

    // A render that started before a change is not kept after it.
    const recorder = cache.recorder("/works", html("x"))!;
    recorder.add(new TextEncoder().encode("旧的列表"));
    cache.clear();
    recorder.finish();
    expect(cache.lookup("/works")).toBeNull();
  });

  it("keeps at most maxEntries pages of at most maxBodyBytes", () => {
    const cache = createPageCache({ maxEntries: 2, maxBodyBytes: 10 });
    cache.enable();
    expect(store(cache, "/1", html("x"), "1234567890")).toBe(true);
    expect(cache.lookup("/1")).not.toBeNull();
    store(cache, "/2", html("x"), "x");
    store(cache, "/3", html("x"), "x");
    expect([cache.lookup("/1"), cache.size]).toEqual([null, 2]);
    store(cache, "/big", html("x"), "12345678901");
    expect(cache.lookup("/big")).toBeNull();
  });

  it("replays a kept page with a nonce of its own in the policy and in every nonce attribute", () => {
    const cache = createPageCache();
    cache.enable();
    const policy = "default-src 'self'; script-src 'self' 'nonce-OLD+/nonce=='";
    const body = `<link nonce="OLD+/nonce=="><script nonce="OLD+/nonce==">1</script><p>OLD+/nonce== 页面</p>`;
    expect(store(cache, "/", html("x", { headers: { "Content-Security-Policy": policy } }), body)).toBe(true);
    const entry = cache.lookup("/")!;
    const first = replayOf(entry);
    const fresh = /'nonce-([^']+)'/.exec(new Map(first.headers).get("content-security-policy")!)![1];
    expect(fresh).not.toBe("OLD+/nonce==");
    expect(first.body.toString()).toBe(`<link nonce="${fresh}"><script nonce="${fresh}">1</script><p>OLD+/nonce== 页面</p>`);
    expect(replayOf(entry, "NEW").body.toString()).toBe(`<link nonce="NEW"><script nonce="NEW">1</script><p>OLD+/nonce== 页面</p>`);
    // The kept entry itself is unchanged, for the next replay.
    expect(entry.body.toString()).toBe(body);

    expect(store(cache, "/works", html("x"), "<p>无策略</p>")).toBe(true);
    expect(replayOf(cache.lookup("/works")!).body.toString()).toBe("<p>无策略</p>");
  });
});
