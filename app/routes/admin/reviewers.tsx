import { Outlet } from "react-router";
import { requireReviewerMiddleware } from "~/middleware/guards.server";
import type { Route } from "./+types/reviewers";

/**
 * The review pages (先审后发, docs/product.md#review): 审核员, 总编辑 and 超级管理员; a 运营
 * admin gets 403 on every page and action below.
 */
export const middleware: Route.MiddlewareFunction[] = [requireReviewerMiddleware];

export default function Reviewers() {
  return <Outlet />;
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
