import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { PayoutStatement } from "~/components/payouts/payout-statement";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { payoutReturnSchema } from "~/schemas/admin";
import { payoutStatement, returnPaidPayout } from "~/server/economy/payout-statements.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import type { Route } from "./+types/payout";

/**
 * 提现结算单 in the back office (docs/product.md#author-income, decision 209): the same
 * statement the author sees, with the author, and 款项退回 for a paid payout whose money came
 * back (the amount returns to the author's income, the tax withheld is reversed this month).
 */
export const meta: Route.MetaFunction = ({ params }) => [{ title: `提现结算单 #${params.id} - 管理后台` }];

const idOf = (value: string) => (/^\d{1,15}$/.test(value) ? Number(value) : 0);

export async function loader({ params }: Route.LoaderArgs) {
  return { payout: await orRouteError(() => payoutStatement(idOf(params.id))) };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const submission = parseWithZod(await readForm(request), { schema: payoutReturnSchema });
  if (submission.status !== "success") return data({ error: "未知操作" }, { status: 400 });
  return replyOnDomainError(
    async () => {
      await returnPaidPayout(adminActorOf(context), idOf(params.id), submission.value.reason);
      return redirect(`/admin/payouts/${idOf(params.id)}?notice=payout-returned`);
    },
    (error) => ({ error: error.message }),
  );
}

export default function AdminPayout({ loaderData, actionData }: Route.ComponentProps) {
  const { payout } = loaderData;
  const busy = useIsPending();
  return (
    <section className="admin-page">
      <p>
        <Link to="/admin/payouts?status=all">← 提现申请</Link>
      </p>
      <h1>提现结算单 #{payout.id}</h1>
      <QueryNotice />
      <FormErrors errors={actionData && "error" in actionData ? [actionData.error] : undefined} />
      <p>
        作者：<Link to={`/admin/users/${payout.userId}`}>{payout.nickname}</Link>（{payout.email}）
      </p>
      <PayoutStatement payout={payout} />
      {payout.status === "paid" ? (
        <Form method="post" className="admin-card">
          <h2>款项退回</h2>
          <p className="hint">打款被退回（如账户已注销）时登记：金额退回作者的收入余额，本笔代扣的个税在本月作为负数冲回。</p>
          <label className="field">
            <span>退回原因</span>
            <input name="reason" required maxLength={200} />
          </label>
          <SubmitButton className="btn" pending={busy}>
            登记款项退回
          </SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}
