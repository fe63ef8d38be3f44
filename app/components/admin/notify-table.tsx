import { Link } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { AdminTable } from "~/components/admin/admin-table";

/** Notifies as they arrived, with what was decided (decision 136); the signature is already cut short. */
export interface NotifyRow {
  id: number;
  receivedAt: Date | string;
  outTradeNo: string | null;
  method: string;
  outcome: string;
  label: string;
  params: Record<string, string>;
  address: string | null;
}

export function NotifyTable({ notifies, showOrder }: { notifies: NotifyRow[]; showOrder?: boolean }) {
  if (notifies.length === 0) return <p className="admin-muted">暂无支付通知</p>;
  return (
    <AdminTable label="支付通知" testId="notify-table" head={["收到时间", showOrder ? "订单号" : null, "结果", "来源", "参数"]}>
      {notifies.map((n) => (
        <tr key={n.id} className={n.outcome === "credited" || n.outcome === "already-paid" ? undefined : "admin-row-warn"}>
          <td>{formatShanghaiSeconds(n.receivedAt)}</td>
          {showOrder ? (
            <td>{n.outTradeNo ? <Link to={`/admin/orders/${encodeURIComponent(n.outTradeNo)}`}>{n.outTradeNo}</Link> : "—"}</td>
          ) : null}
          <td>{n.label}</td>
          <td>
            {n.method} {n.address ?? ""}
          </td>
          <td>
            <code className="admin-params">
              {Object.entries(n.params)
                .map(([k, v]) => `${k}=${v}`)
                .join("&")}
            </code>
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}
