import { Link } from "react-router";
import { formatTokens } from "~/utils/format";

/** What a generation's charge rests on (docs/product.md D15): 实际 or 估算. */
export const METERING_LABELS = { actual: "实际用量（服务商报告）", estimate: "估算（每4字1 Tokens）" } as const;
const METERING_TAGS = { actual: "实际", estimate: "估算" } as const;

interface CreditRow {
  id: number;
  amount: number;
  type: "recharge" | "consume";
  description: string;
  time: string;
}

interface TokenRow {
  id: number;
  amount: number;
  type: "grant" | "exchange" | "generation" | "refund" | "admin";
  description: string;
  promptChars: number | null;
  outputChars: number | null;
  model: string | null;
  metering: "actual" | "estimate" | null;
  time: string;
}

const TOKEN_TYPE_LABELS: Record<TokenRow["type"], string> = {
  grant: "赠送",
  exchange: "积分兑换",
  generation: "AI 生成",
  refund: "退还",
  admin: "管理员调整",
};

/** docs/product.md: Screens: recharge rows green with +, consume rows red with -. */
export function CreditHistory({ rows }: { rows: CreditRow[] }) {
  if (rows.length === 0) return <p className="empty-state">暂无积分记录</p>;
  return (
    <table className="ledger-table" data-testid="credit-history">
      <thead>
        <tr>
          <th scope="col">时间</th>
          <th scope="col">说明</th>
          <th scope="col" className="ledger-amount">积分</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            <td className="ledger-time">{row.time}</td>
            <td>{row.description}</td>
            <td className={`ledger-amount ${row.type === "recharge" ? "ledger-in" : "ledger-out"}`}>
              {row.type === "recharge" ? "+" : "-"}
              {row.amount}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Where tokens came from and went (docs/product.md D6): grants, exchanges, each generation. */
export function TokenHistory({ rows }: { rows: TokenRow[] }) {
  if (rows.length === 0) return <p className="empty-state">暂无 Tokens 记录</p>;
  return (
    <table className="ledger-table" data-testid="token-history">
      <thead>
        <tr>
          <th scope="col">时间</th>
          <th scope="col">类型</th>
          <th scope="col">说明</th>
          <th scope="col" className="ledger-amount">Tokens</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            <td className="ledger-time">{row.time}</td>
            <td>{TOKEN_TYPE_LABELS[row.type]}</td>
            <td>
              {row.description}
              {row.type === "generation" && row.metering ? (
                <span className="badge badge-metering" data-metering={row.metering}>{METERING_TAGS[row.metering]}</span>
              ) : null}
              {row.type === "generation" && row.promptChars !== null ? (
                <small className="muted ledger-detail">
                  提示词 {row.promptChars} 字，生成 {row.outputChars ?? 0} 字{row.model ? `，模型 ${row.model}` : ""}{" "}
                  <Link to={`/credits/receipts/${row.id}`}>回执</Link>
                </small>
              ) : null}
            </td>
            <td className={`ledger-amount ${row.amount > 0 ? "ledger-in" : "ledger-out"}`} title={`${row.amount}`}>
              {row.amount > 0 ? "+" : "-"}
              {formatTokens(Math.abs(row.amount))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
