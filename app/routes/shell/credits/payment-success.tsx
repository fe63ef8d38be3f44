import { Link, useLoaderData } from "react-router";
import { userContext } from "~/middleware/guards.server";
import { getOwnPaymentOrder } from "~/server/economy/payment-orders.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { paymentReturnCookie, paymentReturnPath } from "~/server/platform/return-to.server";
import { isSecureRequest } from "~/server/platform/cookies.server";
import type { Route } from "./+types/payment-success";

export const meta: Route.MetaFunction = () => [{ title: "支付结果 - 砚台" }];

/**
 * The gateway's return page. Its query string proves nothing: the order's state is
 * read from the database, where only the verified notify marks it paid. A reader who came
 * from 去充值 (a purchase short of credits) goes straight back there once the order is
 * paid, with the notice (充值成功) shown on that page; the page waits (refreshing itself)
 * while the notify has not arrived.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const outTradeNo = url.searchParams.get("out_trade_no") ?? "";
  const [order, returnTo] = await Promise.all([getOwnPaymentOrder(user.id, outTradeNo), paymentReturnPath(request)]);
  if (order?.status === "paid" && returnTo) {
    const forget = await paymentReturnCookie.serialize("", { maxAge: 0, expires: new Date(0), secure: isSecureRequest(request) });
    throw await redirectWithFlash(request, returnTo, { kind: "success", text: paidNotice(order.outTradeNo, order.amount) }, { "Set-Cookie": forget });
  }
  return { order: order && { outTradeNo: order.outTradeNo, amount: order.amount, status: order.status }, returnTo };
}

/** 充值成功's words, on this page and on the page the reader goes back to. */
const paidNotice = (outTradeNo: string, amount: number) => `充值成功：订单 ${outTradeNo}，${amount} 积分已到账`;

export default function PaymentSuccess() {
  const { order, returnTo } = useLoaderData<typeof loader>();
  if (!order) {
    return (
      <section className="result-page">
        <h1>未找到订单</h1>
        <p>没有找到这笔订单，请到积分页查看余额和充值记录。</p>
        <Link className="btn btn-primary" to="/credits">返回积分页</Link>
      </section>
    );
  }
  if (order.status === "pending") {
    return (
      <section className="result-page">
        <meta httpEquiv="refresh" content="3" />
        <h1>正在确认支付结果...</h1>
        <p>订单 {order.outTradeNo}（{order.amount} 元）尚未收到支付平台的到账通知，本页会自动刷新。</p>
        <Link className="btn" to="/credits">返回积分页</Link>
      </section>
    );
  }
  return (
    <section className="result-page">
      <h1>支付成功，积分已到账</h1>
      <p>订单 {order.outTradeNo}：{order.amount} 积分已充入你的账户。</p>
      {returnTo ? (
        <Link className="btn btn-primary" to={returnTo}>返回刚才的页面</Link>
      ) : null}
      <Link className={returnTo ? "btn" : "btn btn-primary"} to="/credits">返回积分页</Link>
    </section>
  );
}
