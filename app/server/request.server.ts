import { createContext, type RouterContext, type RouterContextProvider } from "react-router";

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
