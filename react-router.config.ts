import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // Guards are middleware on the layout routes, with the user, the administrator and the
  // client's address on a typed request context (docs/architecture.md#guards).
  future: { v8_middleware: true },
  routeDiscovery: { mode: "initial" },
} satisfies Config;
