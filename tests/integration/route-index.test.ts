import path from "node:path";
import { pathToFileURL } from "node:url";
import * as resolved from "react-router";
import type { RouteObject } from "react-router";
import { describe, expect, it } from "vitest";
import { routeObjects } from "./route-chain";

/**
 * patches/react-router+7.18.4.patch (docs/decisions/273): on the server React Router tries
 * only the route branches whose path can begin with the URL's first segment. Whatever the
 * URL, it must find the same routes and parameters as React Router's own scan of every
 * branch (`matchRoutes` without precomputed branches, which the patch leaves alone). The
 * URLs are made from every path of app/routes.ts, with the variants a client may send.
 * The patch changes both of React Router's builds: the ES module server.js imports and the
 * CommonJS one vitest resolves; each is checked.
 */

/** Every full path of the route tree (each route's path joined to its parents'). */
function fullPaths(routes: RouteObject[], parent = ""): string[] {
  return routes.flatMap((route) => {
    const here = route.path ? `${parent}/${route.path}`.replace(/\/+/g, "/") : parent;
    return [here || "/", ...fullPaths(route.children ?? [], here)];
  });
}

/** Concrete URLs for a path pattern: parameters filled, optional segments with and without. */
function urlsFor(pattern: string): string[] {
  const filled = (value: string) =>
    pattern
      .split("/")
      .map((segment) => (segment === "*" ? "a/b" : segment.startsWith(":") ? value : segment))
      .join("/")
      .replace(/\?/g, "");
  const base = [filled("123"), filled(encodeURIComponent("西游记"))];
  return base.flatMap((url) => [url, `${url}/`, url.toUpperCase(), `/${url}`, `${url}/extra`]);
}

const toUrl = (path: string) => new URL(`http://127.0.0.1${path.startsWith("/") ? "" : "/"}${path}`);

type Build = Pick<typeof resolved, "createStaticHandler">;
type Found = { ids: (string | undefined)[]; params: unknown } | null;

/**
 * React Router's scan of every branch (`matchRoutes` without precomputed branches, code the
 * patch does not touch): it ranks every branch again for each URL, so it runs once per URL
 * and both builds are compared with it.
 */
function fullScan(urls: string[]): Map<string, Found> {
  return new Map(
    urls.map((url) => {
      const matches = resolved.matchRoutes(routeObjects, toUrl(url).pathname);
      return [url, matches && { ids: matches.map((m) => m.route.id), params: matches.at(-1)?.params }];
    }),
  );
}

/** URLs where what the server's handler matches (the patched path, with precomputed branches) differs from the full scan. */
async function differences(build: Build, scanned: Map<string, Found>) {
  const handler = build.createStaticHandler(routeObjects);
  const differing: string[] = [];
  for (const [url, expected] of scanned) {
    const context = await handler.query(new Request(toUrl(url)));
    if (context instanceof Response) throw new Error(`unexpected response for ${url}`);
    const indexed: Found = context.statusCode === 404 ? null : { ids: context.matches.map((m) => m.route.id), params: context.matches.at(-1)?.params };
    if (JSON.stringify(indexed) !== JSON.stringify(expected)) differing.push(`${url}: ${JSON.stringify(indexed)} vs ${JSON.stringify(expected)}`);
  }
  return differing;
}

describe("route matching by first segment", () => {
  const patterns = [...new Set(fullPaths(routeObjects))];
  const urls = [...new Set([...patterns.flatMap(urlsFor), "/", "", "//", "/unknown-page", "/中文", "/%E4%B8%AD", "/_", "/.well-known/x"])];

  const scanned = fullScan(urls);

  it("the route tree has the routes it is checked against", () => {
    expect(patterns.length).toBeGreaterThan(150);
    expect(urls.length).toBeGreaterThan(patterns.length * 5);
    // Most of the URLs name a page; the rest are answered 404.
    expect([...scanned.values()].filter(Boolean).length).toBeGreaterThan(urls.length / 2);
  });

  it.each([
    ["the build vitest resolves", () => Promise.resolve(resolved as Build)],
    ["the ES module build server.js runs", () => import(/* @vite-ignore */ pathToFileURL(path.resolve("node_modules/react-router/dist/development/index.mjs")).href) as Promise<Build>],
  ])("finds the same routes and parameters as React Router's full scan for every URL (%s)", async (_name, load) => {
    expect(await differences(await load(), scanned)).toEqual([]);
    // ~2,500 URLs through the handler: 1-2 s on a quiet machine, several times that in CI
    // runs on a slow one (machine L, docs/benchmarks.md), so not the default 30 s.
  }, 120_000);
});
