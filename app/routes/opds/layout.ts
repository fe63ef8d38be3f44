import { requireOpdsReaderMiddleware } from "~/middleware/guards.server";
import type { Route } from "./+types/layout";

/**
 * The reading apps' OPDS catalog (docs/product.md#reading-apps, decision 201): the token in
 * the address is checked here, before any of the feeds or downloads below runs; they read
 * the reader from opdsReaderContext.
 */
export const middleware: Route.MiddlewareFunction[] = [requireOpdsReaderMiddleware];
