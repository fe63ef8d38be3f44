import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { passwordResetRequestSchema } from "~/schemas/password-reset";
import { PASSWORD_RESET_MESSAGES } from "~/schemas/password-reset-rules";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { mailLinkOrigin, requestPasswordReset } from "~/server/identity/password-reset.server";
import { clientAddressOf } from "~/server/platform/request.server";
import type { Route } from "./+types/auth-forgot-password";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "忘记密码 - 砚台" }];

/** The form holds one e-mail; anything much larger is not from it. */
const RESET_FORM_MAX_BYTES = 16 * 1024;

export function loader({ url }: Route.LoaderArgs) {
  // Without SITE_URL no mail can carry a link (decision 166): the page says so first.
  return { sent: url.searchParams.get("sent") === "1", mailAvailable: mailLinkOrigin() !== null };
}

/**
 * docs/product.md: Accounts: the answer is the same whether or not the e-mail has an
 * account (POST, redirect, GET to ?sent=1); only the rate limit, counted alike for every
 * e-mail, can refuse.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request, RESET_FORM_MAX_BYTES);
  const submission = parseWithZod(form, { schema: passwordResetRequestSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      await requestPasswordReset(submission.value.email, clientAddressOf(context));
      return redirect("/auth/forgot-password?sent=1");
    },
    (error) => submission.reply({ formErrors: [error.message] }),
  );
}

export default function ForgotPassword({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(passwordResetRequestSchema, { id: "forgot-password", lastResult: actionData });
  const busy = useIsPending();
  if (!loaderData.mailAvailable) {
    return (
      <section className="auth-page">
        <h1>忘记密码</h1>
        <p className="notice notice-error" role="alert">
          {PASSWORD_RESET_MESSAGES.mailUnavailable}
        </p>
        <p className="auth-switch">
          想起密码了？<Link to="/?auth=login">去登录</Link>
        </p>
      </section>
    );
  }
  return (
    <section className="auth-page">
      <h1>忘记密码</h1>
      {loaderData.sent && !actionData ? (
        <p className="notice notice-success" role="status">
          {PASSWORD_RESET_MESSAGES.requestSent}
        </p>
      ) : (
        <p className="muted">输入注册时使用的邮箱，我们会给你发送一封重置密码的邮件。</p>
      )}
      <Form method="post" action="/auth/forgot-password" {...getFormProps(form)}>
        <label className="field">
          <span>邮箱</span>
          <input
            {...getInputProps(fields.email, { type: "email" })}
            key={fields.email.key}
            autoComplete="email"
            placeholder="you@example.com"
            autoFocus={!loaderData.sent}
          />
          <FieldError field={fields.email} />
        </label>
        <FormError form={form} />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? "发送中..." : loaderData.sent ? "重新发送" : "发送重置链接"}
        </button>
      </Form>
      <p className="auth-switch">
        想起密码了？<Link to="/?auth=login">去登录</Link>
      </p>
    </section>
  );
}
