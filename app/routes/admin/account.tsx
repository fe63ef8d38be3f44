import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect, useNavigation } from "react-router";
import { AdminErrorBox, FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/forms";
import { adminPasswordSchema } from "~/schemas/admin";
import { changeAdminPassword } from "~/server/admin/auth.server";
import { formErrorsOf, replyOnDomainError } from "~/server/errors.server";
import { readForm } from "~/server/form-data.server";
import { adminContext } from "~/server/guards.server";
import { adminActorOf } from "~/server/admin/audit.server";
import type { Route } from "./+types/account";

export const meta: Route.MetaFunction = () => [{ title: "修改密码 - 管理后台" }];

export async function loader({ context }: Route.LoaderArgs) {
  const admin = context.get(adminContext);
  return { email: admin.email };
}

const hide = { hideFields: ["currentPassword", "newPassword", "confirmPassword"] };

export async function action({ request, context }: Route.ActionArgs) {
  const admin = context.get(adminContext);
  const submission = parseWithZod(await readForm(request), { schema: adminPasswordSchema });
  if (submission.status !== "success") return data(submission.reply(hide), { status: 400 });
  return replyOnDomainError(
    async () => {
      await changeAdminPassword(adminActorOf(context), admin.sessionId, submission.value);
      return redirect("/admin/account?notice=password-changed");
    },
    (error) => submission.reply({ ...hide, ...formErrorsOf(error) }),
  );
}

export default function Account({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(adminPasswordSchema, { id: "admin-password", lastResult: actionData });
  return (
    <section className="admin-page">
      <h1>修改密码</h1>
      <p className="hint">当前管理员：{loaderData.email}。修改后，此管理员在其他设备上的登录将失效。</p>
      <QueryNotice ms={5000} />
      <FormErrors form={form} />
      <Form method="post" {...getFormProps(form)} className="admin-card">
        <label className="field">
          <span>当前密码</span>
          <input {...getInputProps(fields.currentPassword, { type: "password" })} autoComplete="current-password" />
          <FieldErrors field={fields.currentPassword} />
        </label>
        <label className="field">
          <span>新密码</span>
          <input {...getInputProps(fields.newPassword, { type: "password" })} autoComplete="new-password" />
          <FieldErrors field={fields.newPassword} />
        </label>
        <label className="field">
          <span>确认新密码</span>
          <input {...getInputProps(fields.confirmPassword, { type: "password" })} autoComplete="new-password" />
          <FieldErrors field={fields.confirmPassword} />
        </label>
        <button type="submit" className="btn btn-primary" disabled={navigation.state === "submitting"}>
          {navigation.state === "submitting" ? "保存中..." : "修改密码"}
        </button>
      </Form>
    </section>
  );
}

export function ErrorBoundary() {
  return <AdminErrorBox />;
}
