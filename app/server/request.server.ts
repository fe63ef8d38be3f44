import { createContext, type MiddlewareFunction, type RouterContext, type RouterContextProvider } from "react-router";
import { asRouteError } from "./errors.server";
import { requestScope } from "./logger.server";
import { checkQueryString } from "./form-data.server";

/**
 * The client's address as the server saw it, for rate limits. server.js puts it on the
 * request context it hands to the build (server/request-context.js). server.js and the
 * build are two module graphs, so the key is kept under a registered symbol: whichever
 * graph makes it first, both use the same object. Without server.js (vite dev, tests that
 * do not set it) it reads "unknown".
 */
const CLIENT_ADDRESS_KEY = Symbol.for("inkstone.clientAddressContext");
const registry = globalThis as unknown as Record<symbol, RouterContext<string> | undefined>;
export const clientAddressContext: RouterContext<string> = (registry[CLIENT_ADDRESS_KEY] ??= createContext<string>("unknown"));

export function clientAddressOf(context: Readonly<RouterContextProvider>): string {
  return context.get(clientAddressContext) || "unknown";
}

/**
 * On the root route: a query string with a control character or bytes that are not
 * UTF-8 answers 400 with a Chinese message before any loader or action reads it
 * (docs/architecture.md#forms-and-errors).
 */
export const checkQueryMiddleware: MiddlewareFunction<Response> = ({ request }) => {
  try {
    checkQueryString(new URL(request.url));
  } catch (error) {
    asRouteError(error);
  }
};

/**
 * On the root route: names the matched route's pattern (`/works/:id`, never the URL with
 * its ids or query string) for the request's log line and metrics (logger.server.ts).
 */
export const nameRouteMiddleware: MiddlewareFunction<Response> = ({ pattern }) => {
  const scope = requestScope.getStore();
  if (scope) scope.route = `/${(pattern ?? "").replace(/^\/+/, "")}`;
};
