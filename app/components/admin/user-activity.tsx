import type { ReactNode } from "react";
import { Link } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { formatNumber, formatTokens } from "~/utils/format";
import { TableScroll } from "~/components/ui/table-scroll";
import { AdminTable } from "~/components/admin/admin-table";

/** The user page's ledgers, purchases, orders and works (decision 137): plain tables that scroll inside their card. */

interface LedgerRow {
  id: number;
  amount: number;
  type: string;
  description: string;
  createdAt: Date | string;
}

interface Activity {
  creditRows: LedgerRow[];
  tokenRows: LedgerRow[];
  incomeRows: LedgerRow[];
  income: { balance: number; held: number };
  purchases: { workId: number; title: string | null; price: number; createdAt: Date | string }[];
  chapterBuys: { workId: number; title: string | null; chapters: number; credits: number; lastAt: Date | string }[];
  orders: { outTradeNo: string; amount: number; status: string; createdAt: Date | string; paidAt: Date | string | null; refundedAt: Date | string | null }[];
  works: { id: number; title: string; visibility: string; chapterCount: number; createdAt: Date | string }[];
}

const VISIBILITY: Record<string, string> = { public: "免费", "public-vip": "付费", private: "未公开" };

function Card({ title, testId, empty, children }: { title: string; testId: string; empty: boolean; children: ReactNode }) {
  return (
    <div className="admin-card" data-testid={testId}>
      <h2>{title}</h2>
      {empty ? <p className="admin-muted">暂无记录</p> : <TableScroll label={title}>{children}</TableScroll>}
    </div>
  );
}

function Ledger({ rows, tokens }: { rows: LedgerRow[]; tokens?: boolean }) {
  return (
    <AdminTable head={["时间", "变动", "说明"]}>
      {rows.map((r) => {
        // Credits ledger rows store a positive amount with a type; the others are signed.
        const signed = r.type === "consume" ? -Math.abs(r.amount) : r.type === "recharge" ? Math.abs(r.amount) : r.amount;
        const text = tokens ? formatTokens(Math.abs(signed)) : formatNumber(Math.abs(signed));
        return (
          <tr key={r.id}>
            <td>{formatShanghaiSeconds(r.createdAt)}</td>
            <td>{signed < 0 ? `-${text}` : `+${text}`}</td>
            <td>{r.description}</td>
          </tr>
        );
      })}
    </AdminTable>
  );
}

export function UserActivity({ activity }: { activity: Activity }) {
  const a = activity;
  return (
    <>
      <Card title="积分流水（最近50条）" testId="user-credit-ledger" empty={a.creditRows.length === 0}>
        <Ledger rows={a.creditRows} />
      </Card>
      <Card title="Tokens流水（最近50条）" testId="user-token-ledger" empty={a.tokenRows.length === 0}>
        <Ledger rows={a.tokenRows} tokens />
      </Card>
      <Card
        title={`收入流水（可提现 ${formatNumber(a.income.balance)}，提现中 ${formatNumber(a.income.held)}）`}
        testId="user-income-ledger"
        empty={a.incomeRows.length === 0}
      >
        <Ledger rows={a.incomeRows} />
      </Card>
      <Card title="购买记录" testId="user-purchases" empty={a.purchases.length === 0 && a.chapterBuys.length === 0}>
        <AdminTable head={["作品", "购买", "积分", "时间"]}>
          {a.purchases.map((p) => (
            <tr key={`w${p.workId}`}>
              <td>
                {p.title ?? "（已删除）"}
              </td>
              <td>整本</td>
              <td>{formatNumber(p.price)}</td>
              <td>{formatShanghaiSeconds(p.createdAt)}</td>
            </tr>
          ))}
          {a.chapterBuys.map((p) => (
            <tr key={`c${p.workId}`}>
              <td>{p.title ?? "（已删除）"}</td>
              <td>{p.chapters} 章</td>
              <td>{formatNumber(p.credits)}</td>
              <td>{formatShanghaiSeconds(p.lastAt)}</td>
            </tr>
          ))}
        </AdminTable>
      </Card>
      <Card title="充值订单" testId="user-orders" empty={a.orders.length === 0}>
        <AdminTable head={["订单号", "金额", "状态", "创建时间"]}>
          {a.orders.map((o) => (
            <tr key={o.outTradeNo}>
              <td>
                <Link to={`/admin/orders/${o.outTradeNo}`}>{o.outTradeNo}</Link>
              </td>
              <td>¥{o.amount}</td>
              <td>{o.refundedAt ? "已退款" : o.status === "paid" ? "已支付" : "待支付"}</td>
              <td>{formatShanghaiSeconds(o.createdAt)}</td>
            </tr>
          ))}
        </AdminTable>
      </Card>
      <Card title="作品" testId="user-works" empty={a.works.length === 0}>
        <AdminTable head={["标题", "可见性", "章节", "创建时间"]}>
          {a.works.map((w) => (
            <tr key={w.id}>
              <td>{w.title}</td>
              <td>{VISIBILITY[w.visibility] ?? w.visibility}</td>
              <td>{w.chapterCount}</td>
              <td>{formatShanghaiSeconds(w.createdAt)}</td>
            </tr>
          ))}
        </AdminTable>
      </Card>
    </>
  );
}
