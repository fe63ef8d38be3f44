import { data, Form, redirect } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { SubmitButton } from "~/components/ui/submit-button";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { getMinorSettings, saveMinorSettings } from "~/server/identity/minor-mode.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { minorSettingsFormSchema } from "~/schemas/minor-mode";
import type { Route } from "./+types/minors";

/**
 * 青少年模式 (docs/product.md#minor-mode, decision 218): the caps per payment and per
 * China-time month, and the optional hours chapters cannot be read. Saved whole or not at
 * all; audited as settings.minors.
 */
export const meta: Route.MetaFunction = () => [{ title: "青少年模式 - 管理后台" }];

export async function loader() {
  return { settings: await getMinorSettings() };
}

type Sent = { perPayment: string; perMonth: string; hours: string; hoursFrom: string; hoursTo: string };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = parseWithZod(await readForm(request), { schema: minorSettingsFormSchema });
  if (submission.status !== "success") return data({ error: "未知操作", field: null as string | null, sent: null as Sent | null }, { status: 400 });
  const sent = submission.value;
  return replyOnDomainError(
    async () => {
      await saveMinorSettings(adminActorOf(context), sent);
      return redirect("/admin/settings/minors?notice=saved");
    },
    (error) => ({ error: error.message, field: error.field ?? null, sent }),
  );
}

export default function MinorSettings({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as { error: string; field: string | null; sent: Sent | null } | undefined;
  const s = loaderData.settings;
  const v = answer?.sent ?? { perPayment: String(s.perPayment), perMonth: String(s.perMonth), hours: s.hours ? "on" : "", hoursFrom: s.hoursFrom, hoursTo: s.hoursTo };
  const invalid = (name: string) => answer?.field === name || undefined;
  return (
    <section className="admin-page">
      <h1>青少年模式</h1>
      <QueryNotice />
      <FormErrors errors={answer ? [answer.error] : undefined} />
      <Form method="post" className="admin-card" noValidate>
        <label className="field">
          <span>单笔上限（元 / 积分）</span>
          <input name="perPayment" inputMode="numeric" defaultValue={v.perPayment} aria-invalid={invalid("perPayment")} />
        </label>
        <label className="field">
          <span>每月上限（元 / 积分，北京时间自然月）</span>
          <input name="perMonth" inputMode="numeric" defaultValue={v.perMonth} aria-invalid={invalid("perMonth")} />
        </label>
        <p className="hint">
          充值按订单金额（元）计，消费按花掉的积分计（购买作品、订阅章节、购买全部、打赏），两者各自不超过每月上限。0 表示不允许。
        </p>
        <label className="checkbox">
          <input type="checkbox" name="hours" value="on" defaultChecked={v.hours === "on"} /> 限制阅读时段
        </label>
        <label className="field">
          <span>不可阅读开始（北京时间，HH:MM）</span>
          <input name="hoursFrom" defaultValue={v.hoursFrom} aria-invalid={invalid("hoursFrom")} />
        </label>
        <label className="field">
          <span>不可阅读结束（北京时间，HH:MM）</span>
          <input name="hoursTo" defaultValue={v.hoursTo} aria-invalid={invalid("hoursTo")} />
        </label>
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
    </section>
  );
}
