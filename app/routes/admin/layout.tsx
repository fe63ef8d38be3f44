import { useEffect, useRef } from "react";
import { Form, Link, Outlet, useLocation } from "react-router";
import { AdminSidebar } from "~/components/admin/sidebar";
import { PendingBar } from "~/components/admin/ui";
import { adminContext, requireAdminMiddleware } from "~/server/guards.server";
import type { Route } from "./+types/layout";

export const meta: Route.MetaFunction = () => [{ title: "管理后台 - 砚台" }, { name: "robots", content: "noindex" }];

/**
 * The admin session is checked here, before any loader or action of a page below runs
 * (docs/architecture.md#guards): a page view without one goes to /xbbadmin, a post gets 401.
 */
export const middleware: Route.MiddlewareFunction[] = [requireAdminMiddleware];

export async function loader({ context }: Route.LoaderArgs) {
  const admin = context.get(adminContext);
  return { email: admin.email, role: admin.role };
}

export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  // With JavaScript a page change happens in place: close the drawer after it.
  const menuToggle = useRef<HTMLInputElement>(null);
  const location = useLocation();
  useEffect(() => {
    if (menuToggle.current) menuToggle.current.checked = false;
  }, [location.key]);
  return (
    <div className="admin-shell">
      <a className="skip-link" href="#main">
        跳到正文
      </a>
      {/* Below 768 px the menu is a drawer opened by this checkbox's label: no JavaScript needed. */}
      <input ref={menuToggle} type="checkbox" id="admin-menu-toggle" className="admin-menu-toggle" aria-label="打开管理菜单" aria-controls="admin-menu" />
      <AdminSidebar role={loaderData.role} />
      <label htmlFor="admin-menu-toggle" className="admin-menu-backdrop" aria-hidden="true" />
      <div className="admin-main">
        <header className="admin-top">
          <label htmlFor="admin-menu-toggle" className="btn btn-ghost admin-menu-button" aria-hidden="true">
            菜单
          </label>
          <PendingBar />
          <span className="admin-email">{loaderData.email}</span>
          <Link to="/admin/account">我的账户</Link>
          <Form method="post" action="/admin/logout">
            <button type="submit" className="btn btn-ghost">
              退出登录
            </button>
          </Form>
        </header>
        <main id="main" tabIndex={-1} className="admin-content">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
