import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { ADMIN_MESSAGES, paymentApiSchema } from "~/schemas/admin";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { getPaymentApiSettings, savePaymentApiSettings } from "~/server/admin/site-settings.server";
import { readForm } from "~/server/platform/form-data.server";
import type { Route } from "./+types/payment-api";
import { orRouteError } from "~/server/platform/errors.server";
import { SubmitButton } from "~/components/ui/submit-button";

export const meta: Route.MetaFunction = () => [{ title: "支付接口配置 - 管理后台" }];

/** The merchant key never reaches the browser: only whether it is set, and its last 4 characters. */
export async function loader() {
  return { settings: await getPaymentApiSettings() };
}

export async function action({ request, context }: Route.ActionArgs) {
  // A write the database refuses for lack of space is 存储空间不足 (503), not 出错了.
  return orRouteError(async () => {
    const hide = { hideFields: ["merchantKey"] };
    const submission = parseWithZod(await readForm(request), { schema: paymentApiSchema });
    if (submission.status !== "success") return data(submission.reply(hide), { status: 400 });
    const current = await getPaymentApiSettings();
    if (!submission.value.merchantKey && !current.merchantKeySet) {
      return data(submission.reply({ ...hide, fieldErrors: { merchantKey: [ADMIN_MESSAGES.merchantKey] } }), { status: 400 });
    }
    await savePaymentApiSettings(adminActorOf(context), submission.value);
    return redirect("/admin/settings/payment-api?notice=saved");
  });
}

export default function PaymentApiSettings({ loaderData: { settings }, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(paymentApiSchema, {
    id: "payment-api",
    lastResult: actionData,
    defaultValue: { gatewayUrl: settings.gatewayUrl, merchantPid: settings.merchantPid },
  });
  return (
    <section className="admin-page">
      <h1>支付接口配置</h1>
      <QueryNotice />
      <FormErrors form={form} />
      <Form method="post" {...getFormProps(form)} className="admin-card">
        <label className="field">
          <span>支付网关地址</span>
          <input {...getInputProps(fields.gatewayUrl, { type: "url" })} placeholder="https://pay.example.com/submit.php" />
          <FieldErrors field={fields.gatewayUrl} />
        </label>
        <label className="field">
          <span>商户PID</span>
          <input {...getInputProps(fields.merchantPid, { type: "text" })} />
          <FieldErrors field={fields.merchantPid} />
        </label>
        <label className="field">
          <span>商户密钥</span>
          <input {...getInputProps(fields.merchantKey, { type: "password" })} defaultValue="" autoComplete="off" placeholder={settings.merchantKeySet ? "已设置（留空则保持不变）" : "请输入商户密钥"} />
          <span className="hint" data-testid="merchant-key-state">
            {settings.merchantKeySet ? `已设置${settings.merchantKeyLast4 ? `，末四位 ${settings.merchantKeyLast4}` : ""}` : "未设置"}
          </span>
          <FieldErrors field={fields.merchantKey} />
        </label>
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
    </section>
  );
}
