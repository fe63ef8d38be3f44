import { data, Form } from "react-router";
import { moneyByRange, moneyTotals } from "~/server/admin/payments.server";
import { adminContext } from "~/middleware/guards.server";
import { FINANCE_MAX_DAYS, FINANCE_REPORT_LABELS, FINANCE_REPORTS, lastDays, parseFinanceRange } from "~/schemas/finance-export";
import { formatFen, formatNumber } from "~/utils/format";
import { shanghaiDate } from "~/utils/shanghai-time";
import type { Route } from "./+types/money";
import { AdminTable } from "~/components/admin/admin-table";

/**
 * 资金报表 (decisions 136, 226): by day in China time for a range (the last 30 days unless
 * chosen): top-ups (paid orders), refunds, purchases and tips (what buyers paid), the
 * authors' share of them, payouts paid less payouts returned, and the tax withheld. Below,
 * for 超级管理员, the finance exports of the same range (/exports/finance, plain GET form).
 */
export const meta: Route.MetaFunction = () => [{ title: "资金报表 - 管理后台" }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams;
  const asked = params.has("from") || params.has("to") ? parseFinanceRange(params.get("from"), params.get("to")) : null;
  const range = asked?.ok ? asked.value : lastDays(shanghaiDate(new Date()), 30);
  const days = await moneyByRange(range.from, range.to);
  const canExport = context.get(adminContext).role === "super";
  const body = { days, totals: moneyTotals(days), range, error: asked && !asked.ok ? asked.message : null, canExport };
  return data(body, { status: asked && !asked.ok ? 400 : 200 });
}

export default function Money({ loaderData: { days, totals, range, error, canExport } }: Route.ComponentProps) {
  return (
    <section className="admin-page">
      <h1>资金报表</h1>
      <Form method="get" className="admin-card admin-filters" aria-label="日期范围">
        <label className="field">
          <span>开始日期</span>
          <input type="date" name="from" defaultValue={range.from} required />
        </label>
        <label className="field">
          <span>结束日期</span>
          <input type="date" name="to" defaultValue={range.to} required />
        </label>
        <button type="submit" className="btn">
          查看
        </button>
      </Form>
      {error ? (
        <p className="form-error" role="alert">
          {error}（下面是最近30天）
        </p>
      ) : null}
      <p className="hint">
        {range.from} 至 {range.to}，按北京时间的日期，最长{FINANCE_MAX_DAYS}天。充值、退款与提现单位为元，提现为已支付减去款项退回；代扣个税为代扣减去退回冲销；购买、打赏与作者收入单位为积分（1元 = 1积分）。
      </p>
      {canExport ? (
        <form method="get" action="/exports/finance" className="admin-card admin-filters" aria-label="财务导出">
          <input type="hidden" name="from" value={range.from} />
          <input type="hidden" name="to" value={range.to} />
          <label className="field">
            <span>导出报表</span>
            <select name="report" defaultValue="orders">
              {FINANCE_REPORTS.map((r) => (
                <option key={r} value={r}>
                  {FINANCE_REPORT_LABELS[r]}
                </option>
              ))}
            </select>
          </label>
          <fieldset className="admin-fieldset">
            <legend>格式</legend>
            <label>
              <input type="radio" name="format" value="xlsx" defaultChecked /> Excel（xlsx）
            </label>
            <label>
              <input type="radio" name="format" value="csv" /> CSV
            </label>
          </fieldset>
          <button type="submit" className="btn">
            导出
          </button>
        </form>
      ) : null}
      <AdminTable label="资金报表" testId="money-table" head={["日期", "充值", "退款", "购买", "打赏", "作者收入", "提现", "代扣个税"]}>
        <tr className="admin-row-total">
          <th scope="row">合计</th>
          <td>{formatNumber(totals.topUps)}</td>
          <td>{formatNumber(totals.refunds)}</td>
          <td>{formatNumber(totals.purchases)}</td>
          <td>{formatNumber(totals.tips)}</td>
          <td>{formatNumber(totals.authorIncome)}</td>
          <td>{formatNumber(totals.payouts)}</td>
          <td>{formatFen(totals.taxFen)}</td>
        </tr>
        {days.map((d) => (
          <tr key={d.day}>
            <th scope="row">{d.day}</th>
            <td>
              {formatNumber(d.topUps)}
              {d.topUpOrders ? <small className="admin-muted">（{d.topUpOrders} 笔）</small> : null}
            </td>
            <td>{formatNumber(d.refunds)}</td>
            <td>{formatNumber(d.purchases)}</td>
            <td>{formatNumber(d.tips)}</td>
            <td>{formatNumber(d.authorIncome)}</td>
            <td>{formatNumber(d.payouts)}</td>
            <td>{formatFen(d.taxFen)}</td>
          </tr>
        ))}
      </AdminTable>
    </section>
  );
}
