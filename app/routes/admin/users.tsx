import { Form, Link } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { formatNumber, formatTokens } from "~/utils/format";
import { QueryNotice } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { listUsers } from "~/server/admin/users.server";
import { normalizeQuery } from "~/server/catalog/search-sql.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/users";
import { AdminTable } from "~/components/admin/admin-table";

export const meta: Route.MetaFunction = () => [{ title: "用户管理 - 管理后台" }];

export async function loader({ url }: Route.LoaderArgs) {
  const query = normalizeQuery(url.searchParams.get("q"));
  const result = await listUsers({ query, page: parsePage(url.searchParams.get("page")) });
  return { ...result, query };
}

export default function Users({ loaderData }: Route.ComponentProps) {
  const { users, total, page, pageCount, query } = loaderData;
  const hrefFor = (p: number) => `/admin/users?${new URLSearchParams({ q: query, page: String(p) })}`;
  return (
    <section className="admin-page">
      <div className="page-head">
        <h1>用户管理</h1>
        <span className="hint">共 {formatNumber(total)} 位用户</span>
      </div>
      <QueryNotice />
      <Form method="get" className="toolbar" role="search">
        <input type="search" name="q" defaultValue={query} key={query} placeholder="按邮箱或昵称搜索" aria-label="按邮箱或昵称搜索" maxLength={100} />
        <button type="submit" className="btn">搜索</button>
      </Form>
      {users.length === 0 ? (
        <p className="empty-state">{query ? "未找到匹配的用户" : "暂无用户"}</p>
      ) : (
        <AdminTable label="用户列表" framed head={["邮箱", "昵称", "积分余额", "Tokens", "注册时间", "最后登录", "操作"]}>
          {users.map((u) => (
            <tr key={u.id}>
              <td>{u.email}</td>
              <td>
                {u.nickname}
                {u.banned ? <small className="admin-muted">（已封禁）</small> : null}
              </td>
              <td>{formatNumber(u.credits)}</td>
              <td title={String(u.tokens)}>{formatTokens(u.tokens)}</td>
              <td>{formatShanghaiSeconds(u.createdAt)}</td>
              <td>{formatShanghaiSeconds(u.lastSignInAt) || "—"}</td>
              <td>
                <Link to={`/admin/users/${u.id}`}>编辑</Link>
              </td>
            </tr>
          ))}
        </AdminTable>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} />
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
