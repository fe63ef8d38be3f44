import { data, Link, useLoaderData } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { userContext } from "~/middleware/guards.server";
import { METERING_LABELS } from "~/components/credits/history";
import type { Route } from "./+types/receipt";
import { getGenerationReceipt } from "./credits.server";

export const meta: Route.MetaFunction = () => [{ title: "生成回执 - 砚台" }];

/** How a generation ended (plot_versions.end_reason), in the user's words. */
const END_REASONS: Record<string, string> = {
  complete: "生成完成",
  aborted: "中途停止（只按已送达的内容计费）",
  "tokens-exhausted": "Tokens 用完后停止",
  "daily-cap": "达到每日上限后停止",
  limit: "达到本次生成的长度上限",
};

/** One generation's receipt in the user's token history (docs/product.md D15). */
export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const row = /^\d{1,15}$/.test(params.id) ? await getGenerationReceipt(user.id, Number(params.id)) : null;
  if (!row) throw data("回执不存在", { status: 404 });
  // A generation that produced nothing (or failed) was never settled: its row keeps the
  // reservation and a refund row gave all of it back, so nothing was charged.
  const refunded = row.metering === null;
  const reserved = -Number(row.amount);
  const charged = refunded ? 0 : reserved;
  const billed = row.metering ? Number(row.inputTokens) + Number(row.outputTokens) : null;
  return {
    id: row.id,
    time: formatShanghaiSeconds(row.createdAt),
    description: row.description,
    model: row.model,
    promptChars: row.promptChars ?? 0,
    outputChars: row.outputChars ?? 0,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    metering: row.metering,
    refunded,
    reserved,
    charged,
    // What the balance (or the daily cap) could not cover of the count, and was not charged.
    uncovered: billed !== null && billed > charged ? billed - charged : 0,
    ended: row.endReason ? (END_REASONS[row.endReason] ?? row.endReason) : null,
  };
}

export default function Receipt() {
  const r = useLoaderData<typeof loader>();
  return (
    <section className="receipt-page">
      <h1>生成回执</h1>
      <dl className="receipt" data-testid="receipt">
        <dt>时间</dt>
        <dd>{r.time}</dd>
        <dt>说明</dt>
        <dd>{r.description}</dd>
        <dt>模型</dt>
        <dd>{r.model ?? "—"}</dd>
        {r.metering ? (
          <>
            <dt>计量方式</dt>
            <dd data-testid="receipt-metering">{METERING_LABELS[r.metering]}</dd>
            <dt>输入 Tokens</dt>
            <dd data-testid="receipt-input">{r.inputTokens}</dd>
            <dt>输出 Tokens</dt>
            <dd data-testid="receipt-output">{r.outputTokens}</dd>
          </>
        ) : (
          <>
            <dt>状态</dt>
            <dd data-testid="receipt-status">生成失败或未产生内容，预扣的 {r.reserved} Tokens 已全部退还</dd>
          </>
        )}
        <dt>{r.refunded ? "实际扣除" : "本次扣除"}</dt>
        <dd data-testid="receipt-charged">{r.charged} Tokens</dd>
        <dt>字数</dt>
        <dd>
          提示词 {r.promptChars} 字，生成 {r.outputChars} 字
        </dd>
        {r.ended ? (
          <>
            <dt>结束方式</dt>
            <dd>{r.ended}</dd>
          </>
        ) : null}
      </dl>
      {r.uncovered > 0 ? (
        <p className="notice">余额或每日上限不足以支付全部用量，未扣除的 {r.uncovered} Tokens 不再收取。</p>
      ) : null}
      <p className="muted">
        实际用量：按 AI 服务商报告的 Tokens 数计费；估算：服务商未报告用量（或生成中途停止）时，按每 4 个字 1 Tokens 计费。
      </p>
      <Link className="btn" to="/credits?tab=tokens">
        返回 Tokens 记录
      </Link>
    </section>
  );
}
