import { data, Form, Link, redirect } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { CREDITED_VIA_LABELS, orderStatusLabel } from "~/utils/order-labels";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { NotifyTable } from "~/components/admin/notify-table";
import { creditOrderByHand, getPaymentOrderForAdmin, queryGatewayOrder, refundOrder, type OrderActionResult } from "~/server/admin/payments.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { orderActionSchema } from "~/schemas/admin";
import { parseWithZod } from "@conform-to/zod/v4";
import { adminActorOf } from "~/middleware/admin-actor.server";
import type { Route } from "./+types/order";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * One payment order (decision 136): its facts, the notifies that named it with what was
 * decided, and the repairs: 查单 asks the gateway and credits when it says paid, 补单 credits
 * by hand with a reason, 退款 takes back the order's credits while unspent. Crediting goes
 * through the notify's own path, so a notify before or after credits nothing more.
 */
export const meta: Route.MetaFunction = () => [{ title: "订单详情 - 管理后台" }];

export async function loader({ params }: Route.LoaderArgs) {
  return orRouteError(() => getPaymentOrderForAdmin(params.outTradeNo));
}

function noticeOf(result: OrderActionResult): string | null {
  if (result.status === "credited") return "order-credited";
  if (result.status === "already-paid") return "order-already-paid";
  if (result.status === "unpaid") return "order-unpaid";
  return null;
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const submission = parseWithZod(await readForm(request), { schema: orderActionSchema });
  const intent = String(submission.payload.intent ?? "");
  const back = `/admin/orders/${encodeURIComponent(params.outTradeNo)}`;
  return replyOnDomainError(
    async () => {
      if (submission.status !== "success") return data({ intent, error: "未知操作" }, { status: 400 });
      const { reason, tradeNo } = submission.value;
      if (submission.value.intent === "refund") {
        await refundOrder(actor, params.outTradeNo, reason);
        return redirect(`${back}?notice=order-refunded`);
      }
      const result =
        submission.value.intent === "query" ? await queryGatewayOrder(actor, params.outTradeNo) : await creditOrderByHand(actor, params.outTradeNo, reason, tradeNo);
      const notice = noticeOf(result);
      if (notice) return redirect(`${back}?notice=${notice}`);
      return data({ intent, error: `网关显示已支付，但金额（¥${result.status === "mismatch" ? result.money : ""}）与订单不符，未入账` }, { status: 409 });
    },
    (error) => ({ intent, error: error.message }),
  );
}

export default function Order({ loaderData: { order, notifies }, actionData }: Route.ComponentProps) {
  const busy = useIsPending();
  const errorFor = (intent: string) => (actionData?.intent === intent ? [actionData.error] : undefined);
  return (
    <section className="admin-page">
      <p>
        <Link to="/admin/orders">← 返回订单列表</Link>
      </p>
      <h1>订单详情</h1>
      <QueryNotice />
      <dl className="admin-facts" data-testid="order-facts">
        <dt>订单号</dt>
        <dd>{order.outTradeNo}</dd>
        <dt>用户</dt>
        <dd>
          <Link to={`/admin/users/${order.userId}`}>{order.nickname}</Link>（{order.email}）
        </dd>
        <dt>金额</dt>
        <dd>¥{order.amount}（{order.amount} 积分）</dd>
        <dt>状态</dt>
        <dd data-testid="order-status">
          {orderStatusLabel(order)}
          {order.status === "paid" && order.creditedVia ? `（${CREDITED_VIA_LABELS[order.creditedVia] ?? order.creditedVia}入账）` : ""}
        </dd>
        {order.creditNote ? (
          <>
            <dt>补单原因</dt>
            <dd>{order.creditNote}</dd>
          </>
        ) : null}
        <dt>网关流水号</dt>
        <dd>{order.tradeNo ?? "—"}</dd>
        <dt>创建时间</dt>
        <dd>{formatShanghaiSeconds(order.createdAt)}</dd>
        <dt>支付时间</dt>
        <dd>{formatShanghaiSeconds(order.paidAt) || "—"}</dd>
        {order.refundedAt ? (
          <>
            <dt>退款</dt>
            <dd>
              {formatShanghaiSeconds(order.refundedAt)}，{order.refundReason}
            </dd>
          </>
        ) : null}
      </dl>

      {order.status === "pending" ? (
        <>
          <div className="admin-card">
            <h2>查单</h2>
            <p className="hint">向支付网关查询这笔订单；网关显示已支付且金额相符时自动入账（与支付通知走同一入账流程，不会重复入账）。</p>
            <FormErrors errors={errorFor("query")} />
            <Form method="post">
              <input type="hidden" name="intent" value="query" />
              <SubmitButton className="btn btn-primary" pending={busy}>
                查单
              </SubmitButton>
            </Form>
          </div>
          <div className="admin-card">
            <h2>补单</h2>
            <p className="hint">确认用户已付款但积分未到账时，手动入账。请先在网关后台核实收款。</p>
            <FormErrors errors={errorFor("credit")} />
            <Form method="post">
              <input type="hidden" name="intent" value="credit" />
              <label className="field">
                <span>补单原因（必填）</span>
                <input name="reason" required maxLength={200} />
              </label>
              <label className="field">
                <span>网关流水号（可选）</span>
                <input name="tradeNo" maxLength={128} />
              </label>
              <SubmitButton className="btn btn-primary" pending={busy}>
                补单入账
              </SubmitButton>
            </Form>
          </div>
        </>
      ) : null}

      {order.status === "paid" && !order.refundedAt ? (
        <div className="admin-card">
          <h2>退款</h2>
          <p className="hint">退回这笔充值的积分（用户余额须仍有这些积分）；钱款请在支付网关后台原路退回。</p>
          <FormErrors errors={errorFor("refund")} />
          <Form method="post">
            <input type="hidden" name="intent" value="refund" />
            <label className="field">
              <span>退款原因（必填）</span>
              <input name="reason" required maxLength={200} />
            </label>
            <SubmitButton className="btn btn-danger" pending={busy}>
              退回积分
            </SubmitButton>
          </Form>
        </div>
      ) : null}

      <div className="admin-card">
        <h2>支付通知记录</h2>
        <NotifyTable notifies={notifies} />
      </div>
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
