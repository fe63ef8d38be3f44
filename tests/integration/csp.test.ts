import type { ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RouterContextProvider } from "react-router";
import { freePort, startServer, stopServer } from "../../bench/lib-server";
import { handleError, routePattern } from "~/entry.server";
import { logger } from "~/server/platform/logger.server";
import { requireBuild, root } from "../fixtures/processes";
import { childDatabase } from "../fixtures/server-database";

/**
 * The Content-Security-Policy and the error pages of `node server.js` as a browser gets
 * them (docs/decisions/066-content-security-policy.md), on this test file's own database,
 * with the visitor page cache on as in production. Needs the build (`npm test` makes it).
 */
const BUCKET = "https://covers.example-cdn.com";
let server: ChildProcess;
let origin: string;
let logFile: string;
let removeDatabase = () => {};

beforeAll(async () => {
  requireBuild();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  logFile = path.join(process.env.DATA_DIR!, "server.log");
  const env: NodeJS.ProcessEnv = { ...process.env, S3_PUBLIC_URL: `${BUCKET}/inkstone` };
  delete env.NODE_ENV;
  delete env.PAGE_CACHE;
  const database = childDatabase(env);
  removeDatabase = database.remove;
  server = await startServer({ cwd: root, env: database.env, port, logFile });
}, 70_000);

afterAll(async () => {
  if (server) await stopServer(server);
  removeDatabase();
});

function directives(policy: string | null): Map<string, string[]> {
  expect(policy).toBeTruthy();
  return new Map(
    policy!.split(";").map((part) => {
      const [name, ...sources] = part.trim().split(/\s+/);
      return [name, sources] as const;
    }),
  );
}

/** The nonce of a page's policy, after checking that every script and nonce in the page carries it. */
function nonceOf(response: Response, html: string): string {
  const csp = directives(response.headers.get("Content-Security-Policy"));
  const nonce = csp.get("script-src")?.find((source) => source.startsWith("'nonce-"))?.slice("'nonce-".length, -1);
  expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  expect(scripts.length).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  expect(new Set(html.match(/nonce="[^"]*"/g))).toEqual(new Set([`nonce="${nonce}"`]));
  return nonce!;
}

/** A free single-chapter work published through the forms by a new author; its id. */
async function publishedWork(title: string): Promise<number> {
  const post = (to: string, body: URLSearchParams | FormData, cookie = "") =>
    fetch(`${origin}${to}`, { method: "POST", body, headers: { Origin: origin, ...(cookie ? { Cookie: cookie } : {}) }, redirect: "manual" });
  const email = `first-touch-${Date.now()}@example.com`;
  await post("/auth/register", new URLSearchParams({ email, password: "a-good-password" }));
  const cookie = (await post("/auth/login", new URLSearchParams({ email, password: "a-good-password" }))).headers.getSetCookie()[0].split(";")[0];
  const form = new FormData();
  const fields = { status: "completed", type: "single_chapter", title, description: "简介", rating: "all_ages", visibility: "public", content: `${title}的正文` };
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  expect((await post("/submit", form, cookie)).status).toBe(302);
  const list = await (await fetch(`${origin}/my-works?tab=free&q=${encodeURIComponent(title)}`, { headers: { Cookie: cookie } })).text();
  return Number(/href="\/works\/(\d+)"/.exec(list)![1]);
}

describe("the Content-Security-Policy of node server.js", () => {
  it("lets scripts run only from the site or with the page's nonce, and allows the bucket's images", async () => {
    // With a cookie: the page is the reader's own, with a nonce (a visitor's is below).
    const response = await fetch(`${origin}/terms`, { headers: { Cookie: "theme=dark" } });
    expect(response.status).toBe(200);
    const html = await response.text();
    nonceOf(response, html);
    const csp = directives(response.headers.get("Content-Security-Policy"));
    expect(csp.get("script-src")?.slice(0, 1)).toEqual(["'self'"]);
    expect(csp.get("script-src")).toHaveLength(2);
    expect(csp.get("default-src")).toEqual(["'self'"]);
    expect(csp.get("style-src")).toEqual(["'self'"]);
    expect(csp.get("img-src")).toEqual(["'self'", "blob:", BUCKET]);
    expect(csp.get("connect-src")).toEqual(["'self'"]);
    expect(csp.get("worker-src")).toEqual(["'self'"]);
    expect(csp.get("manifest-src")).toEqual(["'self'"]);
    expect(csp.get("object-src")).toEqual(["'none'"]);
    expect(csp.get("base-uri")).toEqual(["'none'"]);
    expect(csp.get("form-action")).toEqual(["'self'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    // Nothing in the site's markup needs 'unsafe-inline': no handler attributes, no
    // javascript: URLs, no style attributes or <style> elements.
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/javascript:/i);
    expect(html).not.toMatch(/\sstyle=|<style/i);
  });

  it("names each script of a visitor's page a CDN may keep by its hash, with no nonce (decision 263)", async () => {
    const response = await fetch(`${origin}/terms`);
    const html = await response.text();
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=0, s-maxage=30, stale-while-revalidate=60");
    const sources = directives(response.headers.get("Content-Security-Policy")).get("script-src")!;
    expect(sources[0]).toBe("'self'");
    expect(html).not.toContain("nonce=");
    const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => !m[1].includes("src=")).map((m) => m[2]);
    expect(inline.length).toBeGreaterThan(2);
    const hashes = new Set(inline.map((text) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`));
    expect(new Set(sources.slice(1))).toEqual(hashes);
    // Its data, which the app fetches after a form or on a navigation, is never shared.
    for (const cookie of [{}, { Cookie: "theme=dark" }] as Record<string, string>[]) {
      const data = await fetch(`${origin}/terms.data`, { headers: cookie });
      expect([data.status, data.headers.get("Cache-Control")]).toEqual([200, "private, no-store"]);
    }
  });

  it("gives every answer with a cookie its own nonce; a visitor's replayed page is the same copy", async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${origin}/works`, { headers: { Cookie: "theme=dark" } });
      const nonce = nonceOf(response, await response.text());
      expect(seen.has(nonce)).toBe(false);
      seen.add(nonce);
    }
    const copies = new Set<string>();
    let replays = 0;
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${origin}/works`);
      copies.add(`${response.headers.get("Content-Security-Policy")}\n${await response.text()}`);
      if (response.headers.get("X-Page-Cache") === "hit") replays += 1;
    }
    expect(replays).toBeGreaterThan(0);
    expect(copies.size).toBeLessThan(3);
  });

  it("holds a chapter's scripts until the first touch, allowed as they were: by hash for a visitor, by nonce with a cookie (decision 264)", async () => {
    const workId = await publishedWork("首触之书");
    const chapter = `${origin}/works/${workId}?chapter=1`;
    // The visitor's shared copy: no module preload, no module script that runs at load; the
    // held module script and the starter are named by hash like every other inline script.
    const visitor = await fetch(chapter);
    expect(visitor.headers.get("Cache-Control")).toBe("public, max-age=0, s-maxage=30, stale-while-revalidate=60");
    const html = await visitor.text();
    expect(html).toContain("首触之书的正文");
    expect(html).toMatch(/^<!DOCTYPE html><html data-scripts="at-first-touch" /i);
    expect(html).not.toMatch(/<link[^>]*modulepreload/);
    const tags = html.match(/<script\b[^>]*>/g) ?? [];
    expect(tags.filter((tag) => /type="module"|\ssrc=/.test(tag))).toEqual([]);
    const held = [...html.matchAll(/<script type="inkstone\/at-first-touch" data-preload="([^"]*)"[^>]*>([\s\S]*?)<\/script>/g)];
    expect(held).toHaveLength(1);
    expect(held[0][1].split(" ").every((href) => /^\/assets\/[\w.-]+\.js$/.test(href))).toBe(true);
    expect(held[0][1]).toMatch(/\/assets\/framework-/);
    expect(held[0][2]).toMatch(/import\("\/assets\/entry\.client-[\w-]+\.js"\)/);
    const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => m[2]);
    const sources = directives(visitor.headers.get("Content-Security-Policy")).get("script-src")!;
    expect(new Set(sources.slice(1))).toEqual(new Set(inline.map((text) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`)));
    expect(inline.some((text) => text.includes('addEventListener(type, start, { capture: true, passive: true })'))).toBe(true);

    // With a cookie: every script carries the page's nonce, the held one and the starter too.
    const reader = await fetch(chapter, { headers: { Cookie: "theme=dark" } });
    const own = await reader.text();
    nonceOf(reader, own);
    expect(own).toContain('type="inkstone/at-first-touch"');
    expect(own).not.toMatch(/<link[^>]*modulepreload/);

    // The work's own page (no chapter text) runs its scripts at load, preloaded.
    const work = await (await fetch(`${origin}/works/${workId}`)).text();
    expect(work).not.toContain("at-first-touch");
    expect(work).toMatch(/<link rel="modulepreload" fetchpriority="low" href="\/assets\/framework-/);
    expect(work).toMatch(/<script type="module" async="">/);
  });

  it("sends the policy with the error page of a missing work", async () => {
    const response = await fetch(`${origin}/works/999999`);
    expect(response.status).toBe(404);
    const html = await response.text();
    nonceOf(response, html);
    expect(html).toContain("作品不存在");
  });

  it("answers a path Express cannot decode with a Chinese 400 page, no stack trace and nothing logged", async () => {
    const response = await fetch(`${origin}/%E0%A4%A`);
    expect(response.status).toBe(400);
    expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain("请求无效");
    expect(html).not.toMatch(/Error|at \w+ \(/);
    expect(fs.readFileSync(logFile, "utf8")).not.toMatch(/URIError|Error/);
  });
});

describe("handleError", () => {
  it("logs an unexpected error with the method and route pattern, and nothing for a gone client or a 404", () => {
    const logged = vi.spyOn(logger, "error").mockImplementation(() => {});
    try {
      const failure = new Error("connection refused");
      handleError(failure, {
        request: new Request("http://127.0.0.1/works/12/edit.data?x=secret", { method: "POST" }),
        params: { id: "12" },
        context: new RouterContextProvider(),
      });
      expect(logged).toHaveBeenCalledTimes(1);
      expect(logged.mock.calls[0]).toEqual([{ err: failure, method: "POST", route: "/works/:id/edit" }, "unexpected error: POST /works/:id/edit"]);

      const gone = new AbortController();
      gone.abort();
      handleError(new Error("aborted"), { request: new Request("http://127.0.0.1/works", { signal: gone.signal }), params: {}, context: new RouterContextProvider() });
      const notFound = Object.assign(new Error("No route matches URL"), {});
      handleError({ status: 404, statusText: "Not Found", internal: true, data: "", error: notFound }, {
        request: new Request("http://127.0.0.1/nowhere"),
        params: {},
        context: new RouterContextProvider(),
      });
      expect(logged).toHaveBeenCalledTimes(1);
    } finally {
      logged.mockRestore();
    }
  });

  it("names the route by its pattern, with splats and encoded ids", () => {
    expect(routePattern("/files/covers/1/a.webp", { "*": "covers/1/a.webp" })).toBe("/files/*");
    expect(routePattern("/admin/users/7", { id: "7" })).toBe("/admin/users/:id");
    expect(routePattern("/works/%E8%A5%BF", { id: "西" })).toBe("/works/:id");
    expect(routePattern("/works", {})).toBe("/works");
  });
});
