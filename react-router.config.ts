import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // Guards are middleware on the layout routes, with the user, the administrator and the
  // client's address on a typed request context (docs/architecture.md#guards).
  // Loaders and actions get the request as it came (no copies per loader) and read the
  // page's address from their `url` argument, which has no `.data` suffix (decision 070).
  future: { v8_middleware: true, v8_passThroughRequests: true },
  routeDiscovery: { mode: "initial" },
} satisfies Config;
