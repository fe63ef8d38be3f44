import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect, useNavigation } from "react-router";
import { FieldErrors, FormErrors } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/forms";
import { adminLoginSchema } from "~/schemas/admin";
import { adminLogin } from "~/server/admin/auth.server";
import { createAdminSession, getAdmin } from "~/server/admin/session.server";
import { replyOnDomainError } from "~/server/errors.server";
import { readForm } from "~/server/form-data.server";
import { clientAddressOf } from "~/server/request.server";
import { isUnder, safeRedirectPath } from "~/utils/redirect";
import type { Route } from "./+types/login";

export const meta: Route.MetaFunction = () => [{ title: "管理员登录 - 砚台" }, { name: "robots", content: "noindex" }];

function adminTarget(value: unknown): string {
  return safeRedirectPath(value, "/admin/dashboard", isUnder("/admin"));
}

export async function loader({ request, url }: Route.LoaderArgs) {
  const redirectTo = adminTarget(url.searchParams.get("redirectTo"));
  if (await getAdmin(request)) throw redirect(redirectTo);
  return { redirectTo };
}

const hide = { hideFields: ["password"] };

/** docs/product.md D8: the password is checked on the server against the admins table. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: adminLoginSchema });
  if (submission.status !== "success") return data(submission.reply(hide), { status: 400 });
  return replyOnDomainError(
    async () => {
      const admin = await adminLogin(submission.value, clientAddressOf(context));
      const cookie = await createAdminSession(request, admin.id);
      return redirect(adminTarget(submission.value.redirectTo), { headers: { "Set-Cookie": cookie } });
    },
    (error) => submission.reply({ ...hide, formErrors: [error.message] }),
  );
}

export default function AdminLogin({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(adminLoginSchema, {
    id: "admin-login",
    lastResult: actionData,
    defaultValue: { redirectTo: loaderData.redirectTo },
  });
  return (
    <main className="admin-login">
      <div className="admin-login-card">
        <h1>管理员登录</h1>
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
          <button type="submit" className="btn btn-primary btn-block" disabled={navigation.state === "submitting"}>
            {navigation.state === "submitting" ? "登录中..." : "登录"}
          </button>
        </Form>
      </div>
    </main>
  );
}
