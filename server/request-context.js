// The request context server.js hands to the React Router build (future.v8_middleware
// wants a RouterContextProvider). The client address key is the one
// app/server/platform/request.server.ts uses: both take it from a registered symbol, since this
// file and the build are separate module graphs.
import { createContext, RouterContextProvider } from "react-router";

const CLIENT_ADDRESS_KEY = Symbol.for("inkstone.clientAddressContext");
globalThis[CLIENT_ADDRESS_KEY] ??= createContext("unknown");

/** A fresh context for one request, carrying the client's address. */
export function requestContext(clientAddress) {
  const context = new RouterContextProvider();
  context.set(globalThis[CLIENT_ADDRESS_KEY], clientAddress);
  return context;
}
