import { data, Form, redirect } from "react-router";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { getEconomySettings, payoutTaxRule, saveEconomySettings, savePayoutTaxRule } from "~/server/economy/economy-settings.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { economySettingsFormSchema, payoutTaxRuleSchema } from "~/schemas/admin";
import { identityPolicySchema } from "~/schemas/identity";
import { identityEnabled, identityPolicy, saveIdentityPolicy } from "~/server/identity/author-identity.server";
import { attendanceSettings, saveAttendanceSettings } from "~/server/economy/attendance.server";
import { parseWithZod } from "@conform-to/zod/v4";
import { adminActorOf } from "~/middleware/admin-actor.server";
import type { Route } from "./+types/economy";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * 稿酬与定价 (docs/product.md#paying-by-chapter): the default 千字价 and its range, the
 * author's share, 购买全部's discount and the smallest payout; 提现代扣个税's rule (decision 209);
 * 实名认证's switches (decision 205); 全勤奖's rule (decision 236).
 */
export const meta: Route.MetaFunction = () => [{ title: "稿酬与定价 - 管理后台" }];

export async function loader() {
  const [settings, identity, taxRule, attendance] = await Promise.all([getEconomySettings(), identityPolicy(), payoutTaxRule(), attendanceSettings()]);
  return { ...settings, identity, identityEnabled: identityEnabled(), taxRule, attendance };
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
  // 实名认证's two switches (decision 205): their own form on this page.
  if (form.get("intent") === "identity") {
    const sent = parseWithZod(form, { schema: identityPolicySchema });
    if (sent.status !== "success") return data({ field: null, error: "未知操作" }, { status: 400 });
    await saveIdentityPolicy(adminActorOf(context), { required: sent.value.required, sellWithoutKey: sent.value.sellWithoutKey });
    return redirect("/admin/settings/economy?notice=saved");
  }
  // 全勤奖 (decision 236): its own form on this page.
  if (form.get("intent") === "attendance") {
    return replyOnDomainError(
      async () => {
        await saveAttendanceSettings(adminActorOf(context), { minWords: form.get("minWords"), bonus: form.get("bonus") });
        return redirect("/admin/settings/economy?notice=saved");
      },
      (error) => ({ field: error.field ?? null, error: error.message }),
    );
  }
  // 提现代扣个税 (decision 209): its own form on this page.
  if (form.get("intent") === "tax") {
    const sent = parseWithZod(form, { schema: payoutTaxRuleSchema });
    if (sent.status !== "success") return data({ field: null, error: "未知操作" }, { status: 400 });
    return replyOnDomainError(
      async () => {
        await savePayoutTaxRule(adminActorOf(context), sent.value.taxRule);
        return redirect("/admin/settings/economy?notice=saved");
      },
      (error) => ({ field: error.field ?? null, error: error.message }),
    );
  }
  const submission = parseWithZod(form, { schema: economySettingsFormSchema });
  if (submission.status !== "success") return data({ field: null, error: "未知操作" }, { status: 400 });
  const sent = submission.value;
  return replyOnDomainError(
    async () => {
      // Each field as sent (undefined when left empty); saveEconomySettings checks every one.
      await saveEconomySettings(adminActorOf(context), sent as Record<(typeof FIELDS)[number][0], unknown>);
      return redirect("/admin/settings/economy?notice=saved");
    },
    (error) => ({ field: error.field ?? null, error: error.message }),
  );
}

export default function EconomySettings({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useIsPending();
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
        <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
      <h2>全勤奖</h2>
      <Form method="post" className="admin-card" noValidate>
        <input type="hidden" name="intent" value="attendance" />
        <label className="field">
          <span>每日发布字数不少于（字）</span>
          <input name="minWords" inputMode="numeric" defaultValue={loaderData.attendance.minWords} aria-invalid={error?.field === "minWords"} />
        </label>
        <label className="field">
          <span>全勤奖金额（积分，计入作者收入；0 表示不发放）</span>
          <input name="bonus" inputMode="numeric" defaultValue={loaderData.attendance.bonus} aria-invalid={error?.field === "bonus"} />
        </label>
        <p className="hint">签约或买断作者在一个自然月（北京时间）的每一天都发布了不少于上述字数的正文章节（请假条、作品相关不计），次月初自动发放一次。修改只影响之后发放的月份。</p>
        <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
      <h2>提现代扣个税</h2>
      <Form method="post" className="admin-card" noValidate>
        <input type="hidden" name="intent" value="tax" />
        <label className="field">
          <span>计税方式</span>
          <select name="taxRule" defaultValue={loaderData.taxRule}>
            <option value="labor">劳务报酬所得（20%/30%/40% 三级，减除费用后计税）</option>
            <option value="royalty">稿酬所得（减除费用后 × 70% × 20%）</option>
          </select>
        </label>
        <p className="hint">
          按作者每个自然月（北京时间）累计提现计税：本笔代扣 = 本月累计应纳税额 − 本月已代扣；收入不超过 4,000 元减除 800 元，超过的减除 20%；四舍五入到分。修改只影响之后支付的提现。
        </p>
        <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
      <h2>实名认证</h2>
      <Form method="post" className="admin-card" noValidate>
        <input type="hidden" name="intent" value="identity" />
        <p className="hint" data-testid="identity-key-state">
          {loaderData.identityEnabled ? "实名认证已开启（已配置 IDENTITY_KEY）。" : "实名认证未开启：服务器未配置 IDENTITY_KEY，作者无法提交实名认证。"}
        </p>
        <label className="checkbox">
          <input type="checkbox" name="required" defaultChecked={loaderData.identity.required} />
          开通 VIP 章节和申请提现前须通过实名认证（提现收款人姓名须与认证姓名一致）
        </label>
        <label className="checkbox">
          <input type="checkbox" name="sellWithoutKey" defaultChecked={loaderData.identity.sellWithoutKey} />
          实名认证未开启时，仍允许开通 VIP 章节和申请提现
        </label>
        <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
    </section>
  );
}
