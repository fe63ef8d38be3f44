import { Form, Link } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { FormErrors } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { parseAuditFilters, searchAuditLog, type AuditFilters } from "~/server/admin/audit-search.server";
import { AUDIT_ACTION_LABELS, AUDIT_TARGET_LABELS, auditActionLabel } from "~/utils/audit-actions";
import { formatNumber } from "~/utils/format";
import type { Route } from "./+types/audit";
import { TableScroll } from "~/components/ui/table-scroll";

export const meta: Route.MetaFunction = () => [{ title: "操作日志 - 管理后台" }];

/** docs/product.md#audit-log: search by admin, action, target, days and text; 50 a page. */
export async function loader({ url }: Route.LoaderArgs) {
  const { filters, page, errors } = parseAuditFilters(url);
  return { ...(await searchAuditLog(filters, page)), filters, errors };
}

function queryOf(filters: AuditFilters, page?: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) params.set(key, value);
  if (page && page > 1) params.set("page", String(page));
  const search = params.toString();
  return `/admin/audit${search ? `?${search}` : ""}`;
}

function Change({ before, after }: { before: unknown; after: unknown }) {
  if (before == null && after == null) return <span className="hint">—</span>;
  return (
    <details className="audit-change">
      <summary>查看</summary>
      {before != null ? (
        <div>
          <strong>修改前</strong>
          <pre>{JSON.stringify(before, null, 1)}</pre>
        </div>
      ) : null}
      {after != null ? (
        <div>
          <strong>修改后</strong>
          <pre>{JSON.stringify(after, null, 1)}</pre>
        </div>
      ) : null}
    </details>
  );
}

/**
 * A filter over coded values: 全部, the codes by their Chinese names, and a code the
 * address names that has no name (an old or unknown one) as itself, so it stays selected.
 */
function CodeSelect({ label, name, value, labels }: { label: string; name: string; value: string; labels: Record<string, string> }) {
  return (
    <label className="field">
      <span>{label}</span>
      <select name={name} defaultValue={value}>
        <option value="">全部</option>
        {value && !(value in labels) ? <option value={value}>{value}</option> : null}
        {Object.entries(labels).map(([code, text]) => (
          <option key={code} value={code}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { rows, total, page, pageCount, filters, errors } = loaderData;
  const key = queryOf(filters);
  return (
    <section className="admin-page">
      <div className="page-head">
        <h1>操作日志</h1>
        <span className="hint">共 {formatNumber(total)} 条</span>
      </div>
      <p className="hint">管理员的每一次操作都记录在这里：谁、做了什么、对象、修改前后、原因、时间和地址。日志不能修改或删除。</p>
      <FormErrors errors={errors.length ? errors : undefined} />
      <Form method="get" className="audit-filters" role="search" key={key}>
        <label className="field">
          <span>管理员</span>
          <input type="search" name="admin" defaultValue={filters.admin} placeholder="邮箱" maxLength={200} />
        </label>
        <CodeSelect label="操作" name="action" value={filters.action} labels={AUDIT_ACTION_LABELS} />
        <CodeSelect label="对象类型" name="targetType" value={filters.targetType} labels={AUDIT_TARGET_LABELS} />
        <label className="field">
          <span>对象ID</span>
          <input type="search" name="targetId" defaultValue={filters.targetId} maxLength={200} />
        </label>
        <label className="field">
          <span>开始日期</span>
          <input type="date" name="from" defaultValue={filters.from} />
        </label>
        <label className="field">
          <span>结束日期</span>
          <input type="date" name="to" defaultValue={filters.to} />
        </label>
        <label className="field audit-q">
          <span>关键词</span>
          <input type="search" name="q" defaultValue={filters.q} placeholder="原因、内容、地址…" maxLength={200} />
        </label>
        <div className="audit-filter-actions">
          <button type="submit" className="btn btn-primary">
            搜索
          </button>
          <Link className="btn" to="/admin/audit">
            清除
          </Link>
        </div>
      </Form>
      {rows.length === 0 ? (
        <p className="empty-state">没有符合条件的记录</p>
      ) : (
        <TableScroll className="admin-table-wrap" label="操作日志列表">
          <table className="admin-table audit-table">
            <thead>
              <tr>
                <th>时间</th>
                <th>管理员</th>
                <th>操作</th>
                <th>对象</th>
                <th>原因</th>
                <th>修改内容</th>
                <th>地址</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-testid="audit-row">
                  <td>{formatShanghaiSeconds(r.createdAt)}</td>
                  <td>
                    <Link to={queryOf({ ...filters, admin: r.adminEmail })}>{r.adminEmail}</Link>
                  </td>
                  <td title={r.action}>{auditActionLabel(r.action)}</td>
                  <td className="admin-break">
                    {r.targetType ? (
                      <Link to={queryOf({ ...filters, targetType: r.targetType, targetId: r.targetId ?? "" })}>
                        {AUDIT_TARGET_LABELS[r.targetType] ?? r.targetType}
                        {r.targetId ? ` ${r.targetId}` : ""}
                      </Link>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className="admin-break">{r.reason ?? "—"}</td>
                  <td>
                    <Change before={r.before} after={r.after} />
                  </td>
                  <td>{r.clientAddress}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => queryOf(filters, p)} />
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
