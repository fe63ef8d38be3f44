import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { etagOf, isSharedPage, keptOnNotModified, notModified, privateCacheControl, SHARED_PAGE, withHashesForNonce } from "~/server/platform/shared-cache.server";

const get = (headers: Record<string, string> = {}, method = "GET") => new Request("http://site.test/works", { method, headers });
const answer = (headers: Record<string, string> = { "Cache-Control": SHARED_PAGE }) => new Headers(headers);
const sha = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

describe("pages a CDN may keep (decision 263)", () => {
  it("shares only a visitor's 200 of a route that said so, without a cookie either way", () => {
    expect(isSharedPage(get(), 200, answer())).toBe(true);
    expect(isSharedPage(get({}, "HEAD"), 200, answer())).toBe(true);
    expect(isSharedPage(get({ Cookie: "theme=dark" }), 200, answer())).toBe(false);
    expect(isSharedPage(get({ Authorization: "Bearer x" }), 200, answer())).toBe(false);
    expect(isSharedPage(get({}, "POST"), 200, answer())).toBe(false);
    expect(isSharedPage(get(), 404, answer())).toBe(false);
    expect(isSharedPage(get(), 200, answer({}))).toBe(false);
    expect(isSharedPage(get(), 200, answer({ "Cache-Control": "private, no-store" }))).toBe(false);
    expect(isSharedPage(get(), 200, answer({ "Cache-Control": SHARED_PAGE, "Set-Cookie": "a=b" }))).toBe(false);
  });

  it("keeps a shared page's personal view nowhere and a route's own word otherwise", () => {
    expect(privateCacheControl(SHARED_PAGE)).toBe("private, no-store");
    expect(privateCacheControl("no-store")).toBe("no-store");
    expect(privateCacheControl(null)).toBe("private, no-cache");
  });

  it("hashes only the scripts that carry the render's nonce, and takes the nonce out", () => {
    const nonce = "bm9uY2Vub25jZW5vbmNlMQ==";
    const own = 'window.__reactRouterContext = {"a":"章节</p>"};';
    const page = Buffer.from(
      `<html><head><link rel="modulepreload" fetchpriority="low" href="/assets/a.js" nonce="${nonce}"/></head><body>` +
        `<p>正文</p><script>alert("stored")</script><script nonce="guess">alert(2)</script>` +
        `<script nonce="${nonce}">${own}</script><script nonce="${nonce}" type="module" async="">import "/assets/a.js";</script>` +
        `<script src="/assets/b.js" nonce="${nonce}"></script></body></html>`,
    );
    const { page: out, scriptHashes } = withHashesForNonce(page, nonce);
    expect(scriptHashes).toEqual([sha(own), sha('import "/assets/a.js";')]);
    const html = out.toString("utf8");
    expect(html).not.toContain(nonce);
    expect(html).toContain(`<script>${own}</script>`);
    expect(html).toContain('<script nonce="guess">alert(2)</script>');
    expect(html).toContain("<p>正文</p>");
  });

  it("answers 304 to a copy the asker holds, weakly compared", () => {
    const etag = etagOf(Buffer.from("<p>页面</p>"));
    expect(etag).toMatch(/^W\/"[\w-]{22}"$/);
    expect(etagOf(Buffer.from("<p>页面</p>"))).toBe(etag);
    expect(etagOf(Buffer.from("<p>别的</p>"))).not.toBe(etag);
    expect(notModified(get({ "If-None-Match": etag }), etag)).toBe(true);
    expect(notModified(get({ "If-None-Match": `"x", ${etag.slice(2)}` }), etag)).toBe(true);
    expect(notModified(get({ "If-None-Match": "*" }), etag)).toBe(true);
    expect(notModified(get({ "If-None-Match": '"other"' }), etag)).toBe(false);
    expect(notModified(get(), etag)).toBe(false);
  });

  it("gives two renders of the same content one ETag, whatever moment each was read at", () => {
    const render = (at: number, text = "页面") => Buffer.from(`<p>${text}</p><script>enqueue("loadedAt\\",${at},")</script>`);
    const etag = etagOf(render(1796218918485), [1796218918485]);
    expect(etagOf(render(1796218924574), [1796218924574])).toBe(etag);
    expect(etagOf(render(1796218924574, "别的"), [1796218924574])).not.toBe(etag);
    // Without the moment named, the bytes differ and so does the validator.
    expect(etagOf(render(1796218924574))).not.toBe(etagOf(render(1796218918485)));
  });

  it("keeps a 304 to the validators, never a policy that names another render's scripts", () => {
    const sent = ["ETag", "Cache-Control", "Vary", "Content-Security-Policy", "Content-Length", "Content-Type", "X-Frame-Options"];
    expect(sent.filter(keptOnNotModified)).toEqual(["ETag", "Cache-Control", "Vary"]);
  });
});
