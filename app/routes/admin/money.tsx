import { moneyByDay } from "~/server/admin/payments.server";
import { formatNumber } from "~/utils/format";
import type { Route } from "./+types/money";
import { TableScroll } from "~/components/ui/table-scroll";

/**
 * 资金报表 (decision 136): by day in China time, the last 30 days: top-ups (paid orders),
 * refunds, purchases (what buyers paid), the authors' share of them, and payouts paid.
 */
export const meta: Route.MetaFunction = () => [{ title: "资金报表 - 管理后台" }];

export async function loader() {
  const days = await moneyByDay(30);
  const sum = (key: "topUps" | "refunds" | "purchases" | "authorIncome" | "payouts") => days.reduce((n, d) => n + d[key], 0);
  return {
    days,
    totals: { topUps: sum("topUps"), refunds: sum("refunds"), purchases: sum("purchases"), authorIncome: sum("authorIncome"), payouts: sum("payouts") },
  };
}

export default function Money({ loaderData: { days, totals } }: Route.ComponentProps) {
  return (
    <section className="admin-page">
      <h1>资金报表</h1>
      <p className="hint">最近30天，按北京时间的日期。充值、退款与提现单位为元；购买与作者收入单位为积分（1元 = 1积分）。</p>
      <TableScroll label="资金报表">
        <table className="admin-table" data-testid="money-table">
          <thead>
            <tr>
              <th>日期</th>
              <th>充值</th>
              <th>退款</th>
              <th>购买</th>
              <th>作者收入</th>
              <th>提现已支付</th>
            </tr>
          </thead>
          <tbody>
            <tr className="admin-row-total">
              <th scope="row">合计</th>
              <td>{formatNumber(totals.topUps)}</td>
              <td>{formatNumber(totals.refunds)}</td>
              <td>{formatNumber(totals.purchases)}</td>
              <td>{formatNumber(totals.authorIncome)}</td>
              <td>{formatNumber(totals.payouts)}</td>
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
                <td>{formatNumber(d.authorIncome)}</td>
                <td>{formatNumber(d.payouts)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}
