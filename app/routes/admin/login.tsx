import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { FieldErrors, FormErrors } from "~/components/admin/ui";
import { AppLink } from "~/components/ui/app-link";
import { useSchemaForm } from "~/components/ui/schema-form";
import { adminLoginSchema } from "~/schemas/admin";
import { ADMIN_ACCOUNT_MESSAGES, adminLoginIntentSchema, totpLoginSchema } from "~/schemas/admin-accounts";
import { adminLogin, adminLoginCode } from "~/server/identity/admin-auth.server";
import { createAdminSession, destroyAdminSession, getAdmin, getPendingAdmin } from "~/server/identity/admin-session.server";
import { DomainError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { clientAddressOf } from "~/server/platform/request.server";
import { isUnder, safeRedirectPath } from "~/utils/redirect";
import type { Route } from "./+types/login";
import { SubmitButton } from "~/components/ui/submit-button";

export const meta: Route.MetaFunction = () => [{ title: "管理员登录 - 砚台" }, { name: "robots", content: "noindex" }];

function adminTarget(value: unknown): string {
  return safeRedirectPath(value, "/admin/dashboard", isUnder("/admin"));
}

export async function loader({ request, url }: Route.LoaderArgs) {
  const redirectTo = adminTarget(url.searchParams.get("redirectTo"));
  if (await getAdmin(request)) throw redirect(redirectTo);
  // The second step: the password was accepted, the authenticator's code is asked for.
  const pending = url.searchParams.get("step") === "code" ? await getPendingAdmin(request) : null;
  return { redirectTo, step: pending ? ("code" as const) : ("password" as const), expired: url.searchParams.get("step") === "code" && !pending };
}

const hide = { hideFields: ["password"] };

/**
 * docs/product.md D8: the password is checked on the server against the admins table; an
 * admin with an authenticator then enters its code (docs/decisions/134) on the same page.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const step = parseWithZod(form, { schema: adminLoginIntentSchema });
  if (step.status === "success" && step.value.intent === "code") return codeStep(request, form, clientAddressOf(context));
  const submission = parseWithZod(form, { schema: adminLoginSchema });
  if (submission.status !== "success") return data(submission.reply(hide), { status: 400 });
  return replyOnDomainError(
    async () => {
      const admin = await adminLogin(submission.value, clientAddressOf(context));
      const target = adminTarget(submission.value.redirectTo);
      if (admin.totpEnabled) {
        const cookie = await createAdminSession(request, admin.id, { secondFactorPending: true });
        return redirect(`/xbbadmin?${new URLSearchParams({ step: "code", redirectTo: target })}`, { headers: { "Set-Cookie": cookie } });
      }
      const cookie = await createAdminSession(request, admin.id);
      return redirect(target, { headers: { "Set-Cookie": cookie } });
    },
    (error) => submission.reply({ ...hide, formErrors: [error.message] }),
  );
}

async function codeStep(request: Request, form: FormData, address: string) {
  const submission = parseWithZod(form, { schema: totpLoginSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      const pending = await getPendingAdmin(request);
      if (!pending) throw new DomainError(ADMIN_ACCOUNT_MESSAGES.totpExpired, 400);
      await adminLoginCode(pending, submission.value.code, address);
      // The waiting session ends; a new one, with a new id, is the signed-in one.
      await destroyAdminSession(request);
      const cookie = await createAdminSession(request, pending.id);
      return redirect(adminTarget(submission.value.redirectTo), { headers: { "Set-Cookie": cookie } });
    },
    (error) => submission.reply({ formErrors: [error.message] }),
  );
}

function CodeForm({ redirectTo, lastResult }: { redirectTo: string; lastResult: Route.ComponentProps["actionData"] }) {
  const [form, fields] = useSchemaForm(totpLoginSchema, { id: "admin-login-code", lastResult: lastResult as never });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="code" />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <FormErrors form={form} />
      <p className="hint">请打开认证器应用，输入“砚台管理后台”显示的6位验证码。认证器不在身边时，可以输入一个恢复码（每个只能用一次）。</p>
      <label className="field">
        <span>验证码</span>
        <input {...getInputProps(fields.code, { type: "text" })} autoComplete="one-time-code" autoFocus maxLength={24} />
        <FieldErrors field={fields.code} />
      </label>
      <SubmitButton className="btn btn-primary btn-block" pendingLabel="验证中...">
        验证
      </SubmitButton>
      <p>
        <AppLink to="/xbbadmin">重新登录</AppLink>
      </p>
    </Form>
  );
}

export default function AdminLogin({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(adminLoginSchema, {
    id: "admin-login",
    lastResult: actionData as never,
    defaultValue: { redirectTo: loaderData.redirectTo },
  });
  if (loaderData.step === "code") {
    return (
      <main className="admin-login">
        <div className="admin-login-card">
          <h1>两步验证</h1>
          <CodeForm redirectTo={loaderData.redirectTo} lastResult={actionData} />
        </div>
      </main>
    );
  }
  return (
    <main className="admin-login">
      <div className="admin-login-card">
        <h1>管理员登录</h1>
        {loaderData.expired ? <FormErrors errors={[ADMIN_ACCOUNT_MESSAGES.totpExpired]} /> : null}
        <FormErrors form={form} />
        <Form method="post" {...getFormProps(form)}>
          <input {...getInputProps(fields.redirectTo, { type: "hidden" })} />
          <label className="field">
            <span>邮箱</span>
            <input {...getInputProps(fields.email, { type: "email" })} autoComplete="username" autoFocus />
            <FieldErrors field={fields.email} />
          </label>
          <label className="field">
            <span>密码</span>
            <input {...getInputProps(fields.password, { type: "password" })} autoComplete="current-password" />
            <FieldErrors field={fields.password} />
          </label>
          <SubmitButton className="btn btn-primary btn-block" pendingLabel="登录中...">
            登录
          </SubmitButton>
        </Form>
      </div>
    </main>
  );
}
