import type { RouteConfigEntry } from "@react-router/dev/routes";
import { matchRoutes, RouterContextProvider, type RouteObject } from "react-router";
import routeConfig from "~/routes";
import { clientAddressContext } from "~/server/platform/request.server";
import { userRequest } from "../fixtures/accounts";

/**
 * Runs a route's loader or action the way the framework does: the URL is matched against
 * app/routes.ts, the middleware of every matched route (root, layouts, the route itself)
 * runs first, top down, on a fresh RouterContextProvider, and then the handler. A test
 * therefore cannot call a guarded page without its guard (docs/architecture.md#guards).
 * Imported by the integration tests, never run by itself.
 */

/** A route of app/routes.ts with the file its module lives in (relative to app/). */
export interface RouteNode {
  id: string;
  path?: string;
  index?: boolean;
  file: string;
  children: RouteNode[];
}

type RouteModule = {
  middleware?: ((args: unknown, next: () => Promise<unknown>) => unknown)[];
  loader?: (args: never) => unknown;
  action?: (args: never) => unknown;
};

function toNode(entry: RouteConfigEntry): RouteNode {
  return {
    id: entry.id ?? entry.file.replace(/\.[jt]sx?$/, ""),
    path: entry.path,
    index: entry.index,
    file: entry.file,
    children: (entry.children ?? []).map(toNode),
  };
}

/** app/routes.ts under the root route, as the framework sees it. */
export const routeTree: RouteNode = {
  id: "root",
  path: "",
  file: "root.tsx",
  children: (routeConfig as RouteConfigEntry[]).map(toNode),
};

function toRouteObject(node: RouteNode): RouteObject {
  if (node.index) return { id: node.id, path: node.path, handle: node, index: true };
  return { id: node.id, path: node.path, handle: node, children: node.children.map(toRouteObject) };
}

/** The same as React Router route objects (no modules: matching only). */
export const routeObjects = [toRouteObject(routeTree)];

/** The chain of routes (root first) the framework would match for a path, or null. */
function matchChain(pathname: string): { nodes: RouteNode[]; params: Record<string, string> } | null {
  const matches = matchRoutes(routeObjects, pathname);
  if (!matches) return null;
  return {
    nodes: matches.map((m) => m.route.handle as RouteNode),
    params: Object.fromEntries(Object.entries(matches.at(-1)!.params).filter((e): e is [string, string] => e[1] !== undefined)),
  };
}

export async function importRoute(node: RouteNode): Promise<RouteModule> {
  return (await import(/* @vite-ignore */ `../../app/${node.file}`)) as RouteModule;
}

/** A request context as server.js makes one (server/request-context.js). */
export function requestContext(clientAddress = "127.0.0.1"): RouterContextProvider {
  const context = new RouterContextProvider();
  context.set(clientAddressContext, clientAddress);
  return context;
}

/**
 * Calls `mod`'s loader or action for `request` after the middleware of every route the
 * request's path matches. `mod` must be one of those routes' modules (the page, or a
 * layout above it); `params` override the ones matched from the path.
 */
export async function runRoute(
  kind: "loader" | "action",
  mod: RouteModule,
  request: Request,
  params: Record<string, string> = {},
  context: RouterContextProvider = requestContext(),
): Promise<unknown> {
  const url = new URL(request.url);
  const chain = matchChain(url.pathname);
  if (!chain) throw new Error(`no route in app/routes.ts matches ${url.pathname}`);
  const modules = await Promise.all(chain.nodes.map(importRoute));
  if (!modules.includes(mod)) throw new Error(`${url.pathname} does not route to the module under test`);
  const handler = mod[kind] as ((args: unknown) => unknown) | undefined;
  if (!handler) throw new Error(`the route at ${url.pathname} has no ${kind}`);
  const args = { request, url, params: { ...chain.params, ...params }, context, pattern: "" };
  const middleware = modules.flatMap((m) => m.middleware ?? []);
  // Like the framework: each middleware may call next() itself; if it does not, next runs
  // after it returns; what it returns instead of undefined is the answer.
  const run = async (i: number): Promise<unknown> => {
    if (i === middleware.length) return handler(args);
    let called = false;
    let downstream: unknown;
    const next = async () => {
      called = true;
      downstream = await run(i + 1);
      return downstream;
    };
    const result = await middleware[i](args, next);
    if (result !== undefined) return result;
    return called ? downstream : next();
  };
  return run(0);
}

type Handler = (args: never) => unknown;

/**
 * For tests holding a loader or action function rather than its module: runs it for
 * `args.request` as runRoute does (the middleware of every matched route first), with
 * a fresh request context unless one is given.
 */
export async function callThroughRoutes<H extends Handler>(
  handler: H,
  args: { request: Request; params?: Record<string, string>; context?: RouterContextProvider },
): Promise<Awaited<ReturnType<H>>> {
  const url = new URL(args.request.url);
  const chain = matchChain(url.pathname);
  if (!chain) throw new Error(`no route in app/routes.ts matches ${url.pathname}`);
  for (const mod of await Promise.all(chain.nodes.map(importRoute))) {
    const kind = mod.loader === handler ? "loader" : mod.action === handler ? "action" : null;
    if (kind) return (await runRoute(kind, mod, args.request, args.params, args.context)) as Awaited<ReturnType<H>>;
  }
  throw new Error(`${url.pathname} does not route to the loader or action under test`);
}

/**
 * A loader or action as a browser with `cookie` calls it (a visitor's when null): GET, or a
 * same-origin form POST of `fields`; through the route's middleware (callThroughRoutes).
 * Returns what the handler returned or threw (a redirect, a 4xx), for statusOf and bodyOf.
 */
export async function callAs(handler: Handler, cookie: string | null, path: string, fields?: Record<string, string>): Promise<unknown> {
  const request = cookie ? userRequest(cookie, path, fields) : new Request(`http://localhost${path}`);
  try {
    return (await callThroughRoutes(handler, { request })) as unknown;
  } catch (thrown) {
    return thrown;
  }
}

/** The status a route's answer carries: a Response's, a `data()` result's, else 200. */
export function statusOf(result: unknown): number {
  if (result instanceof Response) return result.status;
  return (result as { init?: { status?: number } | null }).init?.status ?? 200;
}

/** What a `data()` result carries. */
export function bodyOf<T>(result: unknown): T {
  return (result as { data: T }).data;
}

/** A redirect's Location, else null. */
export function locationOf(result: unknown): string | null {
  return result instanceof Response ? result.headers.get("Location") : null;
}

/** A redirect as "302 /path", or what came instead (for a readable failure). */
export function redirectOf(result: unknown): string {
  return result instanceof Response ? `${result.status} ${result.headers.get("Location")}` : `not a redirect: ${JSON.stringify(result)}`;
}
