import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { tokensSchema } from "~/schemas/admin";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { saveSiteSettings } from "~/server/admin/site-settings.server";
import { readForm } from "~/server/platform/form-data.server";
import { DAILY_TOKEN_CAP_KEY } from "~/server/economy/ledger.server";
import { getSiteConfig } from "~/server/platform/site-config.server";
import type { Route } from "./+types/tokens";
import { orRouteError } from "~/server/platform/errors.server";
import { SubmitButton } from "~/components/ui/submit-button";

export const meta: Route.MetaFunction = () => [{ title: "Tokens配置 - 管理后台" }];

export async function loader() {
  const config = await getSiteConfig(["credits_to_tokens_ratio", "initial_tokens", DAILY_TOKEN_CAP_KEY] as const);
  return {
    ratio: config.credits_to_tokens_ratio || "100",
    initialTokens: config.initial_tokens || "0",
    dailyTokenCap: config[DAILY_TOKEN_CAP_KEY] || "0",
  };
}

/** docs/product.md: Back office: ratio an integer > 0, initial tokens an integer >= 0, with their messages. */
export async function action({ request, context }: Route.ActionArgs) {
  // A write the database refuses for lack of space is 存储空间不足 (503), not 出错了.
  return orRouteError(async () => {
    const submission = parseWithZod(await readForm(request), { schema: tokensSchema });
    if (submission.status !== "success") return data(submission.reply(), { status: 400 });
    await saveSiteSettings(adminActorOf(context), "settings.tokens", {
      credits_to_tokens_ratio: String(submission.value.ratio),
      initial_tokens: String(submission.value.initialTokens),
      [DAILY_TOKEN_CAP_KEY]: String(submission.value.dailyTokenCap),
    });
    return redirect("/admin/settings/tokens?notice=saved");
  });
}

export default function TokensSettings({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(tokensSchema, { id: "tokens", lastResult: actionData, defaultValue: loaderData });
  return (
    <section className="admin-page">
      <h1>Tokens配置</h1>
      <QueryNotice />
      <FormErrors form={form} />
      <Form method="post" {...getFormProps(form)} className="admin-card">
        <label className="field">
          <span>积分兑换比例（1 积分可兑换的 Tokens 数）</span>
          <input {...getInputProps(fields.ratio, { type: "text" })} inputMode="numeric" />
          <FieldErrors field={fields.ratio} />
        </label>
        <label className="field">
          <span>新用户初始 Tokens</span>
          <input {...getInputProps(fields.initialTokens, { type: "text" })} inputMode="numeric" />
          <FieldErrors field={fields.initialTokens} />
        </label>
        <label className="field">
          <span>每位用户每日 AI 生成 Tokens 上限（0 表示不限，按北京时间计日）</span>
          <input {...getInputProps(fields.dailyTokenCap, { type: "text" })} inputMode="numeric" />
          <FieldErrors field={fields.dailyTokenCap} />
        </label>
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
    </section>
  );
}
