import { Form, Link } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { CREDITED_VIA_LABELS, ORDER_FILTER_LABELS, ORDER_FILTERS, orderStatusLabel, type OrderFilter } from "~/utils/order-labels";
import { Pagination } from "~/components/ui/pagination";
import { listPaymentOrders, parseDay } from "~/server/admin/payments.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/orders";
import { AdminTable, UserCell } from "~/components/admin/admin-table";

/**
 * 充值订单 (docs/product.md: Back office, orders and money): every payment order, filtered by
 * status, order number or e-mail, and the day it was created (China time). 查单, 补单 and
 * refunds are on each order's page.
 */
export const meta: Route.MetaFunction = () => [{ title: "充值订单 - 管理后台" }];

function parseStatus(value: string | null): OrderFilter {
  return value && (ORDER_FILTERS as readonly string[]).includes(value) ? (value as OrderFilter) : "all";
}

export async function loader({ url }: Route.LoaderArgs) {
  const status = parseStatus(url.searchParams.get("status"));
  const q = (url.searchParams.get("q") ?? "").trim().slice(0, 200);
  const from = parseDay(url.searchParams.get("from"));
  const to = parseDay(url.searchParams.get("to"));
  const list = await listPaymentOrders({ status, query: q, from, to, page: parsePage(url.searchParams.get("page")) });
  return { ...list, status, q, from, to };
}

export default function Orders({ loaderData }: Route.ComponentProps) {
  const { orders, status, q, from, to, page, pageCount, total } = loaderData;
  const hrefFor = (p: number) => `/admin/orders?${new URLSearchParams({ status, q, from, to, page: String(p) })}`;
  return (
    <section className="admin-page">
      <h1>充值订单</h1>
      <Form method="get" className="admin-card admin-filters">
        <label className="field">
          <span>状态</span>
          <select name="status" defaultValue={status}>
            {ORDER_FILTERS.map((s) => (
              <option key={s} value={s}>
                {ORDER_FILTER_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>订单号或用户邮箱</span>
          <input name="q" defaultValue={q} maxLength={200} />
        </label>
        <label className="field">
          <span>创建日期从</span>
          <input type="date" name="from" defaultValue={from} />
        </label>
        <label className="field">
          <span>到</span>
          <input type="date" name="to" defaultValue={to} />
        </label>
        <button type="submit" className="btn">
          筛选
        </button>
      </Form>
      <p className="admin-muted">共 {total} 笔</p>
      <AdminTable label="订单列表" testId="order-table" head={["订单号", "用户", "金额", "状态", "创建时间", "支付时间"]}>
        {orders.length === 0 ? (
          <tr>
            <td colSpan={6}>暂无订单</td>
          </tr>
        ) : (
          orders.map((o) => (
            <tr key={o.outTradeNo}>
              <td>
                <Link to={`/admin/orders/${o.outTradeNo}`}>{o.outTradeNo}</Link>
              </td>
              <UserCell userId={o.userId} nickname={o.nickname} email={o.email} />
              <td>¥{o.amount}</td>
              <td>
                {orderStatusLabel(o)}
                {o.status === "paid" && o.creditedVia ? <small className="admin-muted">（{CREDITED_VIA_LABELS[o.creditedVia] ?? o.creditedVia}）</small> : null}
              </td>
              <td>{formatShanghaiSeconds(o.createdAt)}</td>
              <td>{formatShanghaiSeconds(o.paidAt) || "—"}</td>
            </tr>
          ))
        )}
      </AdminTable>
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} />
    </section>
  );
}
