import { Form, redirect, useNavigation } from "react-router";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { getEconomySettings, saveEconomySettings } from "~/server/economy/economy-settings.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { adminActorOf } from "~/server/platform/audit.server";
import type { Route } from "./+types/economy";

/**
 * 稿酬与定价 (docs/product.md#paying-by-chapter): the default 千字价 and its range, the
 * author's share, 购买全部's discount and the smallest payout.
 */
export const meta: Route.MetaFunction = () => [{ title: "稿酬与定价 - 管理后台" }];

export async function loader() {
  return getEconomySettings();
}

const FIELDS = [
  ["pricePerThousand", "默认千字价（积分/千字）"],
  ["pricePerThousandMin", "千字价下限"],
  ["pricePerThousandMax", "千字价上限"],
  ["authorSharePercent", "作者分成（%）"],
  ["wholeBookDiscountPercent", "购买全部优惠（%）"],
  ["payoutMinimum", "最低提现金额（积分）"],
] as const;

export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  return replyOnDomainError(
    async () => {
      await saveEconomySettings(adminActorOf(context), Object.fromEntries(FIELDS.map(([name]) => [name, form.get(name)])) as never);
      return redirect("/admin/settings/economy?notice=saved");
    },
    (error) => ({ field: error.field ?? null, error: error.message }),
  );
}

export default function EconomySettings({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const error = actionData as { field: string | null; error: string } | undefined;
  return (
    <section className="admin-page">
      <h1>稿酬与定价</h1>
      <QueryNotice />
      <FormErrors errors={error ? [error.error] : undefined} />
      <Form method="post" className="admin-card" noValidate>
        {FIELDS.map(([name, label]) => (
          <label key={name} className="field">
            <span>{label}</span>
            <input name={name} inputMode="numeric" defaultValue={loaderData[name]} aria-invalid={error?.field === name} />
          </label>
        ))}
        <p className="hint">作者分成按每笔收入向下取整；购买全部的优惠从章节价格之和中扣除（向下取整）。</p>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? "保存中..." : "保存"}
        </button>
      </Form>
    </section>
  );
}
