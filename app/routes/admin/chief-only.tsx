import { Outlet } from "react-router";
import { requireChiefEditorMiddleware } from "~/middleware/guards.server";
import type { Route } from "./+types/chief-only";

/** The review policy (docs/product.md#review): 总编辑 and 超级管理员; anyone else gets 403. */
export const middleware: Route.MiddlewareFunction[] = [requireChiefEditorMiddleware];

export default function ChiefOnly() {
  return <Outlet />;
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
