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
/** @internal */
export const clientAddressContext: RouterContext<string> = (registry[CLIENT_ADDRESS_KEY] ??= createContext<string>("unknown"));

export function clientAddressOf(context: Readonly<RouterContextProvider>): string {
  return context.get(clientAddressContext) || "unknown";
}

/** SITE_URL's origin when it is set to an http(s) address, else null (docs/decisions/166). */
export function configuredSiteOrigin(): string | null {
  const configured = process.env.SITE_URL?.trim();
  if (!configured) return null;
  try {
    const url = new URL(configured);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * The origin for links the site hands out beyond the page (feed entries, the payment
 * gateway's notify and return addresses): SITE_URL when set, else this machine on the
 * server's port (`http://localhost:3000`, what `npm start` prints). Never the request's
 * `Host` or forwarded headers, which a client writes (docs/decisions/166, 200).
 */
export function siteOrigin(): string {
  return configuredSiteOrigin() ?? `http://localhost:${Number(process.env.PORT) || 3000}`;
}

/**
 * On the root route: a query string with a control character or bytes that are not
 * UTF-8 answers 400 with a Chinese message before any loader or action reads it
 * (docs/architecture.md#forms-and-errors).
 */
export const checkQueryMiddleware: MiddlewareFunction<Response> = ({ request }) => {
  try {
    // The raw address: the `url` argument has been re-encoded by React Router, which
    // turns bytes that are not UTF-8 into U+FFFD before anyone could refuse them.
    checkQueryString(new URL(request.url));
  } catch (error) {
    asRouteError(error);
  }
};

/** What a resource route that crashed answers, instead of React Router's English text. @internal */
export const SERVER_ERROR_MESSAGE = "服务器暂时无法处理这个请求，请稍后重试。";

/**
 * On the root route: a resource route (a download, the generation stream, the progress
 * beacon) that throws something unexpected gets React Router's last-resort answer, a
 * 500 with the English text "Unexpected Server Error" (after handleError in
 * entry.server logged it). The caller gets the same status with a Chinese message.
 * Pages are not touched: their errors render the root ErrorBoundary.
 */
export const lastResortMiddleware: MiddlewareFunction<Response> = async (_args, next) => {
  const response = await next();
  if (!(response instanceof Response) || response.status !== 500 || response.headers.get("Content-Type") !== "text/plain") return response;
  const text = await response.clone().text();
  if (!text.startsWith("Unexpected Server Error")) return response;
  return new Response(SERVER_ERROR_MESSAGE, {
    status: 500,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
};

/**
 * On the root route: names the matched route's pattern (`/works/:id`, never the URL with
 * its ids or query string) for the request's log line and metrics (logger.server.ts).
 */
export const nameRouteMiddleware: MiddlewareFunction<Response> = ({ pattern }) => {
  const scope = requestScope.getStore();
  if (scope) scope.route = `/${(pattern ?? "").replace(/^\/+/, "")}`;
};
