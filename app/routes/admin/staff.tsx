import { Outlet } from "react-router";
import { requireStaffMiddleware } from "~/middleware/guards.server";
import type { Route } from "./+types/staff";

/**
 * The daily back office (docs/product.md#admin-roles): 超级管理员 and 运营. A 审核员 or 总编辑
 * reaches none of it: a page view goes to the review queue, a post gets 403.
 */
export const middleware: Route.MiddlewareFunction[] = [requireStaffMiddleware];

export default function Staff() {
  return <Outlet />;
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
