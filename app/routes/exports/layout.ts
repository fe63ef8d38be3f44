import { requireExportAccessMiddleware } from "~/middleware/guards.server";
import type { Route } from "./+types/layout";

/**
 * The export resource routes (app/routes.ts): an admin session or a bearer API token is
 * checked here, before any of them runs; they read who asked from exportAccessContext.
 */
export const middleware: Route.MiddlewareFunction[] = [requireExportAccessMiddleware];
