import { Link } from "react-router";
import { PayoutStatement } from "~/components/payouts/payout-statement";
import { userContext } from "~/middleware/guards.server";
import { payoutStatement } from "~/server/economy/payout-statements.server";
import { orRouteError } from "~/server/platform/errors.server";
import type { Route } from "./+types/payout-statement";

/** 提现结算单 (docs/product.md#author-income, decision 209): one of the author's own payouts; another's is 404. */
export const meta: Route.MetaFunction = ({ params }) => [{ title: `提现结算单 #${params.id} - 砚台` }];

export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : 0;
  const { userId: _u, email: _e, nickname: _n, ...payout } = await orRouteError(() => payoutStatement(id, user.id));
  return { payout };
}

export default function PayoutStatementPage({ loaderData }: Route.ComponentProps) {
  return (
    <section className="income-page">
      <p className="settings-back">
        <Link to="/income">← 返回我的收入</Link>
      </p>
      <h1>提现结算单 #{loaderData.payout.id}</h1>
      <PayoutStatement payout={loaderData.payout} />
    </section>
  );
}
