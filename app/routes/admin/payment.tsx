import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { data, Form, redirect } from "react-router";
import { FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { paymentMethodSchema } from "~/schemas/admin";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { saveSiteSettings } from "~/server/admin/site-settings.server";
import { readForm } from "~/server/platform/form-data.server";
import { getSiteConfig } from "~/server/platform/site-config.server";
import type { Route } from "./+types/payment";
import { orRouteError } from "~/server/platform/errors.server";
import { SubmitButton } from "~/components/ui/submit-button";

export const meta: Route.MetaFunction = () => [{ title: "支付配置 - 管理后台" }];

export async function loader() {
  const config = await getSiteConfig(["payment_method_v2", "store_url_v2"] as const);
  return { method: config.payment_method_v2 === "payment_api" ? "payment_api" : "redeem_code", storeUrl: config.store_url_v2 };
}

/** docs/product.md: Back office: redeem codes (with a store link to buy them) or the payment API. */
export async function action({ request, context }: Route.ActionArgs) {
  // A write the database refuses for lack of space is 存储空间不足 (503), not 出错了.
  return orRouteError(async () => {
    const form = await readForm(request);
    const submission = parseWithZod(form, { schema: paymentMethodSchema });
    if (submission.status !== "success") return data(submission.reply(), { status: 400 });
    // The store link is saved whichever method is chosen (it is used while 兑换码 is on):
    // the page shows it in both, so what the operator typed is what is kept.
    const values: Record<string, string> = { payment_method_v2: submission.value.method };
    if (form.has("storeUrl")) values.store_url_v2 = submission.value.storeUrl;
    await saveSiteSettings(adminActorOf(context), "settings.payment", values);
    return redirect("/admin/payment?notice=saved");
  });
}

export default function PaymentSettings({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(paymentMethodSchema, { id: "payment-method", lastResult: actionData, defaultValue: loaderData });
  const [method, setMethod] = useState(loaderData.method);
  return (
    <section className="admin-page">
      <h1>支付配置</h1>
      <QueryNotice />
      <FormErrors form={form} />
      <Form method="post" {...getFormProps(form)} className="admin-card">
        <fieldset className="admin-fieldset">
          <legend>支付方式</legend>
          <label className="checkbox">
            <input type="radio" name={fields.method.name} value="redeem_code" defaultChecked={loaderData.method === "redeem_code"} onChange={() => setMethod("redeem_code")} />
            兑换码
          </label>
          <label className="checkbox">
            <input type="radio" name={fields.method.name} value="payment_api" defaultChecked={loaderData.method === "payment_api"} onChange={() => setMethod("payment_api")} />
            支付接口（易支付）
          </label>
          <FieldErrors field={fields.method} />
        </fieldset>
        {/* Saved with either method; used only while 兑换码 is chosen. */}
        <label className={method === "redeem_code" ? "field" : "field admin-muted"}>
          <span>兑换码购买链接</span>
          <input {...getInputProps(fields.storeUrl, { type: "url" })} placeholder="https://" />
          <span className="hint">用户在充值页点击“购买兑换码”时打开的商店地址。选择支付接口时也会保存，切换回兑换码后生效。</span>
          <FieldErrors field={fields.storeUrl} />
        </label>
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
    </section>
  );
}
