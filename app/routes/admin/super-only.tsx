import { Outlet } from "react-router";
import { requireSuperAdminMiddleware } from "~/middleware/guards.server";
import type { Route } from "./+types/super-only";

/**
 * The pages only a 超级管理员 may open (docs/product.md#admin-roles): site settings, API
 * keys and configs, payment keys, exports and admin management. The middleware runs after
 * the admin layout's, before any loader or action below, so a page is protected by being
 * placed under this layout in app/routes.ts.
 */
export const middleware: Route.MiddlewareFunction[] = [requireSuperAdminMiddleware];

export default function SuperOnly() {
  return <Outlet />;
}

/**
 * The back office's error box for every page below (docs/decisions/173): a page under this
 * layout has no ErrorBoundary of its own, its error renders here, in the same place.
 */
export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
