import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../bench/lib-server";
import { requireBuild, root, startServerProcess, type Child } from "../fixtures/processes";
import { childDatabase } from "../fixtures/server-database";
import { waitFor } from "../fixtures/wait";

/**
 * The production server as a newcomer starts it (`npm start` = build, then `node
 * server.js` with no NODE_ENV), on this test file's own database. Needs the build that
 * `npm test` makes first.
 */
let server: Child;
let origin: string;
let removeDatabase = () => {};
// The server creates this administrator at start (app/server/platform/defaults.server.ts).
const ADMIN = { ADMIN_EMAIL: "server-admin@example.com", ADMIN_PASSWORD: "server-admin-password" };
/** Targets that resolve to another host somewhere along the way (docs/architecture.md#redirects). */
const OFF_SITE = ["//evil.example", "/\\evil.example", "/.//evil.example", "/admin/../..//evil.example", "/%2e%2e//evil.example", "https://evil.example/", "/\t/evil.example"];

beforeAll(async () => {
  requireBuild();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: "127.0.0.1", ...ADMIN };
  delete env.NODE_ENV;
  // The server runs with its caches on, as in production (tests/setup/per-file-env.ts turns
  // them off for this process).
  delete env.PAGE_CACHE;
  const database = childDatabase(env);
  removeDatabase = database.remove;
  server = await startServerProcess(database.env, port);
}, 60_000);

afterAll(async () => {
  if (server && server.process.exitCode === null) {
    server.process.kill("SIGTERM");
    await server.exited;
  }
  removeDatabase();
});

describe("node server.js", () => {
  it("renders the landing page with React's production build", async () => {
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html).toContain("让短篇写作更简单");
    // Every module the page preloads is fetched after the stylesheet and the text (decision 243),
    // Chinese text after </head> unchanged by the rewrite.
    const preloads = html.match(/<link rel="modulepreload"[^>]*>/g) ?? [];
    expect(preloads.length).toBeGreaterThan(3);
    for (const link of preloads) expect(link).toContain('fetchpriority="low"');
    // Its scripts run at load: only a chapter's wait for the reader's first touch (decision 264).
    expect(html).toMatch(/<script type="module" async="">import /);
    expect(html).not.toContain("at-first-touch");
    expect(server.output()).not.toMatch(/Error/);
  });

  it("sends a page rendered at once whole, with its length, gzipped when asked, from the visitor cache too", async () => {
    // Plain: one body with a Content-Length instead of a chunked stream (decision 108).
    for (let visit = 0; visit < 2; visit++) {
      const page = await fetch(`${origin}/works?page=1`, { headers: { "Accept-Encoding": "identity" } });
      const bytes = Buffer.from(await page.arrayBuffer());
      expect(page.headers.get("Transfer-Encoding")).toBeNull();
      expect(Number(page.headers.get("Content-Length"))).toBe(bytes.byteLength);
      expect(bytes.toString("utf8")).toMatch(/<\/html>$/);
      // The second visit is the cached copy, with a fresh nonce of the same length.
      expect(page.headers.get("X-Page-Cache")).toBe(visit === 0 ? null : "hit");
    }
    // gzip: compression replaces the length; the body still decodes to the whole page.
    const zipped = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get(`${origin}/refund`, { headers: { "Accept-Encoding": "gzip" } }, (res) => {
          const parts: Buffer[] = [];
          res.on("data", (part: Buffer) => parts.push(part));
          res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
        })
        .on("error", reject);
    });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(zipped.body).toString("utf8")).toMatch(/^<!DOCTYPE html>[\s\S]*<\/html>$/i);
  });

  it("answers HEAD without a body, and the health check from the database", async () => {
    const head = await fetch(`${origin}/works`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const health = await fetch(`${origin}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, "ok"]);
  });

  it("serves the built public files and assets, and pages for every other path", async () => {
    const icon = await fetch(`${origin}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("Cache-Control")).toBe("public, max-age=3600");
    expect((await icon.arrayBuffer()).byteLength).toBe(fs.statSync(path.join(root, "public/favicon.ico")).size);
    const html = await (await fetch(`${origin}/`)).text();
    const script = html.match(/\/assets\/[\w.-]+\.js/)?.[0];
    expect(script).toBeTruthy();
    const asset = await fetch(`${origin}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("Cache-Control")).toContain("immutable");
    // Not a file: the site's own answer (an unknown page path goes to the home page).
    const missing = await fetch(`${origin}/favicon.ico.bak`, { redirect: "manual" });
    expect(missing.status).toBe(302);
  });

  it("streams live events to a visitor as they are written, and ends when the client goes away", async () => {
    const controller = new AbortController();
    const response = await fetch(`${origin}/api/events`, { signal: controller.signal });
    expect(response.headers.get("Content-Type")).toBe("text/event-stream; charset=utf-8");
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain(": connected");
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });

  it("reads posted forms and passes the session cookie of a login through", async () => {
    const email = `server-${Date.now()}@example.com`;
    const post = (to: string) =>
      fetch(`${origin}${to}`, {
        method: "POST",
        body: new URLSearchParams({ email, password: "a-good-password", redirectTo: "/works" }),
        headers: { Origin: origin },
        redirect: "manual",
      });
    expect((await post("/auth/register")).status).toBe(302);
    const response = await post("/auth/login");
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/works");
    const [cookie] = response.headers.getSetCookie();
    expect(cookie).toMatch(/^inkstone_session=[^;]+;.*HttpOnly/i);
    const page = await fetch(`${origin}/credits`, { headers: { Cookie: cookie.split(";")[0] } });
    expect(page.status).toBe(200);
  });

  it("sends a visitor's client-side navigation to a signed-in page to login with the page's own address", async () => {
    // A navigation with JavaScript asks for `/following.data?page=2`; the guard must name
    // `/following?page=2`, not React Router's data address (decision 070).
    const answer = await fetch(`${origin}/following.data?page=2`, { redirect: "manual" });
    const body = await answer.text();
    const target = answer.headers.get("X-Remix-Redirect") ?? body;
    expect(target).toContain(`redirectTo=${encodeURIComponent("/following?page=2")}`);
    expect(target).not.toContain(".data");
  });

  it("answers a control character in the query, or a body that is not a form, with 400 and a Chinese page", async () => {
    for (const query of ["?q=%00", "?q=%FF"]) {
      const page = await fetch(`${origin}/works${query}`);
      expect(page.status, query).toBe(400);
      expect(await page.text()).toMatch(/网址中的参数(包含不允许的控制字符|不是有效的 UTF-8 文本)/);
    }
    const json = await fetch(`${origin}/auth/login`, {
      method: "POST",
      body: JSON.stringify({ email: "a@example.com", password: "a-good-password" }),
      headers: { Origin: origin, "Content-Type": "application/json" },
      redirect: "manual",
    });
    expect(json.status).toBe(400);
    expect(await json.text()).toContain("提交的内容不是表单");
  });

  it("sends a user and an administrator back only to this site after login, however the target is spelled", async () => {
    const email = `redirect-${Date.now()}@example.com`;
    const post = (to: string, fields: Record<string, string>) =>
      fetch(`${origin}${to}`, { method: "POST", body: new URLSearchParams(fields), headers: { Origin: origin }, redirect: "manual" });
    expect((await post("/auth/register", { email, password: "a-good-password" })).status).toBe(302);
    // Sixteen logins, each a scrypt run on the server: sent together, so the server's
    // thread pool runs them side by side.
    const targets = [...OFF_SITE, "/works?page=2"];
    const [userLocations, adminLocations] = await Promise.all([
      Promise.all(targets.map(async (redirectTo) => (await post("/auth/login", { email, password: "a-good-password", redirectTo })).headers.get("Location"))),
      Promise.all(
        targets.map(async (redirectTo) =>
          (await post("/xbbadmin", { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD, redirectTo })).headers.get("Location"),
        ),
      ),
    ]);
    expect(userLocations).toEqual([...OFF_SITE.map(() => "/"), "/works?page=2"]);
    expect(adminLocations).toEqual([...OFF_SITE, "/works?page=2"].map(() => "/admin/dashboard"));

    // A signed-in administrator opening the login page is sent on, to the same safe place.
    const login = await post("/xbbadmin", { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD, redirectTo: "/admin/users" });
    expect(login.headers.get("Location")).toBe("/admin/users");
    const cookie = login.headers.getSetCookie()[0].split(";")[0];
    for (const redirectTo of OFF_SITE) {
      const page = await fetch(`${origin}/xbbadmin?redirectTo=${encodeURIComponent(redirectTo)}`, { headers: { Cookie: cookie }, redirect: "manual" });
      expect([redirectTo, page.headers.get("Location")]).toEqual([redirectTo, "/admin/dashboard"]);
    }
  }, 60_000);

  it("keeps visitors' pages a few seconds, never for a cookie, and drops them when a work is published", async () => {
    const visit = (headers: Record<string, string> = {}) => fetch(`${origin}/works?q=${encodeURIComponent("缓存测试")}&page=1`, { headers });
    const first = await visit();
    const firstHtml = await first.text();
    expect(first.headers.get("X-Page-Cache")).toBeNull();
    expect(firstHtml).toContain("未找到相关作品");
    const second = await visit();
    expect(second.headers.get("X-Page-Cache")).toBe("hit");
    // The same bytes: a visitor's page a CDN may keep carries no nonce, its scripts are
    // named by hash (docs/decisions/263-pages-a-cdn-may-keep.md).
    expect(await second.text()).toBe(firstHtml);
    expect(second.headers.get("ETag")).toBe(first.headers.get("ETag"));
    const held = await visit({ "If-None-Match": first.headers.get("ETag")! });
    expect([held.status, await held.text()]).toEqual([304, ""]);
    // The asker keeps its copy's own policy (decision 263, amended).
    expect(held.headers.get("Content-Security-Policy")).toBeNull();
    expect(held.headers.get("Vary")).toMatch(/Cookie/);
    const head = await fetch(`${origin}/works?q=${encodeURIComponent("缓存测试")}&page=1`, { method: "HEAD" });
    expect([head.status, head.headers.get("X-Page-Cache"), await head.text()]).toEqual([200, "hit", ""]);

    // Someone with a cookie always gets a fresh page.
    const withCookie = await visit({ Cookie: "theme=dark" });
    expect(withCookie.headers.get("X-Page-Cache")).toBeNull();

    // An author publishes a matching work; the next visitor sees it at once.
    const email = `cache-${Date.now()}@example.com`;
    const post = (to: string, body: URLSearchParams | FormData, cookie = "") =>
      fetch(`${origin}${to}`, { method: "POST", body, headers: { Origin: origin, ...(cookie ? { Cookie: cookie } : {}) }, redirect: "manual" });
    await post("/auth/register", new URLSearchParams({ email, password: "a-good-password" }));
    const login = await post("/auth/login", new URLSearchParams({ email, password: "a-good-password" }));
    const cookie = login.headers.getSetCookie()[0].split(";")[0];
    const form = new FormData();
    const fields = { status: "completed", type: "single_chapter", title: "缓存测试之书", description: "简介", rating: "all_ages", visibility: "public", content: "正文" };
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    expect((await post("/submit", form, cookie)).status).toBe(302);

    const html = await waitFor("the new work on the cached page", async () => {
      const text = await (await visit()).text();
      return text.includes("缓存测试之书") && text;
    }, { timeout: 2000 });
    expect(html).toContain("缓存测试之书");
  });

  it("answers a cache's revalidation 304 while the content is the same, though each render starts its stream from its own moment", async () => {
    // 用户协议 is shared (a CDN may keep it) and rendered afresh for every request here.
    const first = await fetch(`${origin}/terms`);
    const firstHtml = await first.text();
    const moment = (html: string) => Number(/loadedAt\\",(\d+)/.exec(html)?.[1]);
    expect(moment(firstHtml)).toBeGreaterThan(0);
    const second = await waitFor("a render of a later moment", async () => {
      const response = await fetch(`${origin}/terms`);
      const html = await response.text();
      return moment(html) > moment(firstHtml) && { response, html };
    });
    expect(second.html).not.toBe(firstHtml);
    expect(second.response.headers.get("ETag")).toBe(first.headers.get("ETag"));
    expect(second.response.headers.get("Content-Security-Policy")).not.toBe(first.headers.get("Content-Security-Policy"));

    const held = await fetch(`${origin}/terms`, { headers: { "If-None-Match": first.headers.get("ETag")! } });
    expect([held.status, await held.text()]).toEqual([304, ""]);
    expect(held.headers.get("ETag")).toBe(first.headers.get("ETag"));
    expect(held.headers.get("Cache-Control")).toBe("public, max-age=0, s-maxage=30, stale-while-revalidate=60");
    // This render's policy names this render's data script; the copy the cache keeps has its own.
    expect(held.headers.get("Content-Security-Policy")).toBeNull();
    expect((await fetch(`${origin}/terms`, { headers: { "If-None-Match": 'W/"another"' } })).status).toBe(200);
  });

  it("stops cleanly on SIGTERM, closing the database", async () => {
    server.process.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });
});
