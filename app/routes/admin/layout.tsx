import { Form, Link, Outlet } from "react-router";
import { AdminSidebar } from "~/components/admin/sidebar";
import { PendingBar } from "~/components/admin/ui";
import { requireAdmin } from "~/server/admin/session.server";
import type { Route } from "./+types/layout";

export const meta: Route.MetaFunction = () => [{ title: "管理后台 - 砚台" }, { name: "robots", content: "noindex" }];

/** The shell only; every child page checks the admin session itself (STYLE: loaders run in parallel). */
export async function loader({ request }: Route.LoaderArgs) {
  const admin = await requireAdmin(request);
  return { email: admin.email };
}

export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  return (
    <div className="admin-shell">
      <AdminSidebar />
      <div className="admin-main">
        <header className="admin-top">
          <PendingBar />
          <span className="admin-email">{loaderData.email}</span>
          <Link to="/admin/account">修改密码</Link>
          <Form method="post" action="/admin/logout">
            <button type="submit" className="btn btn-ghost">
              退出登录
            </button>
          </Form>
        </header>
        <main className="admin-content">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
