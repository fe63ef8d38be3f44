import { Form, Link, Outlet } from "react-router";
import { AdminSidebar } from "~/components/admin/sidebar";
import { useNavDrawer, type DrawerParts } from "~/components/shell/nav-drawer";
import { PendingBar } from "~/components/admin/ui";
import { adminContext, requireAdminMiddleware } from "~/middleware/guards.server";
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

/** The back office's phone menu: the same drawer as the site's (components/shell/nav-drawer.tsx). */
const ADMIN_DRAWER: DrawerParts = {
  sidebarId: "admin-menu",
  toggleId: "admin-menu-toggle",
  toggleClass: "admin-menu-toggle",
  buttonClass: "btn btn-ghost admin-menu-button",
  backdropClass: "admin-menu-backdrop",
  label: "菜单",
  face: "菜单",
};

export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  const drawer = useNavDrawer(ADMIN_DRAWER);
  return (
    <div className="admin-shell">
      <a className="skip-link" href="#main">
        跳到正文
      </a>
      {/* Below 768 px the menu is a drawer; without JavaScript this checkbox's label opens it. */}
      {drawer.toggle}
      <AdminSidebar role={loaderData.role} open={drawer.open} />
      {drawer.backdrop}
      <div className="admin-main">
        <header className="admin-top">
          {drawer.button}
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
