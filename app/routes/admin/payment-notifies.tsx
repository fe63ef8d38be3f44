import { Form } from "react-router";
import { NotifyTable } from "~/components/admin/notify-table";
import { Pagination } from "~/components/ui/pagination";
import { listPaymentNotifies } from "~/server/admin/payments.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/payment-notifies";

/**
 * 支付通知 (decision 136): the gateway's notifies as they arrived, newest first, with the
 * handler's decision and the reason for a refusal, for "I paid but nothing arrived". The
 * signature is cut short; the merchant key is never part of a notify.
 */
export const meta: Route.MetaFunction = () => [{ title: "支付通知 - 管理后台" }];

export async function loader({ url }: Route.LoaderArgs) {
  const q = (url.searchParams.get("q") ?? "").trim().slice(0, 64);
  const outcome = url.searchParams.get("outcome") === "refused" ? "refused" : "all";
  const list = await listPaymentNotifies({ query: q, outcome, page: parsePage(url.searchParams.get("page")) });
  return { ...list, q, outcome };
}

export default function PaymentNotifies({ loaderData }: Route.ComponentProps) {
  const { notifies, q, outcome, page, pageCount, total } = loaderData;
  const hrefFor = (p: number) => `/admin/payment-notifies?${new URLSearchParams({ q, outcome, page: String(p) })}`;
  return (
    <section className="admin-page">
      <h1>支付通知</h1>
      <p className="hint">支付网关发来的每一次通知及验签结果（保留90天）。签名只显示前8位。</p>
      <Form method="get" className="admin-card admin-filters">
        <label className="field">
          <span>订单号</span>
          <input name="q" defaultValue={q} maxLength={64} />
        </label>
        <label className="field">
          <span>结果</span>
          <select name="outcome" defaultValue={outcome}>
            <option value="all">全部</option>
            <option value="refused">仅被拒绝的</option>
          </select>
        </label>
        <button type="submit" className="btn">
          筛选
        </button>
      </Form>
      <p className="admin-muted">共 {total} 条</p>
      <NotifyTable notifies={notifies} showOrder />
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} />
    </section>
  );
}
