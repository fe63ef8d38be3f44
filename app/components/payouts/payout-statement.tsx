import type { PayoutStatementPageView } from "~/types/payouts";
import { PAYOUT_STATUS_LABELS, TAX_RULE_NAMES } from "~/types/payouts";
import { formatFen } from "~/utils/format";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";

/**
 * 提现结算单 (docs/product.md#author-income): the request, then gross, tax withheld and net
 * in yuan, the month it counts in and the month's totals, and a reversal when the money came
 * back. The author's page and the back office's show the same table.
 */
export function PayoutStatement({ payout }: { payout: PayoutStatementPageView }) {
  const w = payout.withholding;
  const v = payout.reversal;
  return (
    <div className="payout-statement" data-testid="payout-statement">
      <dl className="identity-facts">
        <dt>提现编号</dt>
        <dd>#{payout.id}</dd>
        <dt>状态</dt>
        <dd data-testid="statement-status">{PAYOUT_STATUS_LABELS[payout.status]}</dd>
        <dt>申请金额</dt>
        <dd>{payout.amount} 积分（1 积分 = 1 元）</dd>
        <dt>收款账户</dt>
        <dd>
          {payout.payee}
          {payout.payeeName ? `（${payout.payeeName}）` : ""}
        </dd>
        <dt>申请时间</dt>
        <dd>{formatShanghaiSeconds(payout.createdAt)}</dd>
        {payout.settledAt ? (
          <>
            <dt>处理时间</dt>
            <dd>{formatShanghaiSeconds(payout.settledAt)}</dd>
          </>
        ) : null}
        {payout.reference ? (
          <>
            <dt>{payout.status === "refused" ? "拒绝理由" : "付款凭证"}</dt>
            <dd>{payout.reference}</dd>
          </>
        ) : null}
      </dl>
      {w ? (
        <table className="data-table" data-testid="statement-figures">
          <caption>结算明细（元）</caption>
          <tbody>
            <tr>
              <th scope="row">应发金额</th>
              <td data-testid="statement-gross">{formatFen(w.grossFen)}</td>
            </tr>
            <tr>
              <th scope="row">代扣个人所得税（{TAX_RULE_NAMES[w.rule]}）</th>
              <td data-testid="statement-tax">{formatFen(w.taxFen)}</td>
            </tr>
            <tr>
              <th scope="row">实发金额</th>
              <td data-testid="statement-net">{formatFen(w.netFen)}</td>
            </tr>
            <tr>
              <th scope="row">计税月份（北京时间）</th>
              <td>{w.month}</td>
            </tr>
            <tr>
              <th scope="row">本月累计应发（含本笔）</th>
              <td>{formatFen(w.monthGrossFen)}</td>
            </tr>
            <tr>
              <th scope="row">本月累计代扣（含本笔）</th>
              <td>{formatFen(w.monthTaxFen)}</td>
            </tr>
            {v ? (
              <tr data-testid="statement-reversal">
                <th scope="row">款项退回冲回（{v.month}）</th>
                <td>
                  应发 {formatFen(v.grossFen)}，个税 {formatFen(v.taxFen)}，实发 {formatFen(v.netFen)}
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      ) : (
        <p className="muted">{payout.status === "pending" ? "支付后生成结算明细（应发、代扣个税、实发）。" : "本笔提现没有结算明细。"}</p>
      )}
      <p className="muted">
        个税按本月（北京时间）累计提现计算：本笔代扣 = 本月累计应发的应纳税额 − 本月此前已代扣。每次收入不超过 4,000 元减除 800 元，超过的减除 20%。
      </p>
    </div>
  );
}
