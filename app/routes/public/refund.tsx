import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { Link } from "react-router";
import type { Route } from "./+types/refund";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

export const meta: Route.MetaFunction = () => [{ title: "退款政策 - 砚台" }];

export default function RefundPolicy() {
  return (
    <article className="prose">
      <h1>退款政策</h1>
      <p>我们希望你在砚台的每一笔充值都物有所值。如需退款，请阅读以下说明。</p>
      <h2>可退款范围</h2>
      <p>充值后 <strong>7 天内</strong>、尚未使用的充值积分，可以申请退款。已用于购买作品或兑换 Tokens 的积分不予退还。</p>
      <h2>处理时间</h2>
      <ul>
        <li>退款申请的审核需要 <strong>1-3 个工作日</strong>；</li>
        <li>审核通过后，款项将在 <strong>3-7 个工作日</strong>内原路退回。</li>
      </ul>
      <h2>如何申请</h2>
      <p>请通过站内公布的联系方式提交申请，并附上订单号和注册邮箱。</p>
      <p>
        <Link to="/credits">查看我的积分</Link>
      </p>
    </article>
  );
}
