import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { NewPasswordFields } from "~/components/settings/new-password-fields";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { passwordChangeSchema } from "~/schemas/settings";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { changePassword } from "~/server/identity/profile.server";
import { destroyUserSession } from "~/server/identity/session.server";
import type { Route } from "./+types/password";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SaveOrCancel } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "修改密码 - 砚台" }];

const HIDE = { hideFields: ["currentPassword", "newPassword", "confirmPassword"] };

// No data, but a loader: a client-side navigation then asks the server, whose
// signed-in guard runs (server middleware runs only when the server is asked).
export async function loader() {
  return null;
}

/**
 * docs/product.md: States and actions: after a password change every session of the user ends (in
 * changePassword's transaction) and this browser is sent to the login dialog.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: passwordChangeSchema });
  if (submission.status !== "success") return data(submission.reply(HIDE), { status: 400 });
  return replyOnDomainError(
    async () => {
      await changePassword(user.id, submission.value.currentPassword, submission.value.newPassword);
      return redirect(`/?auth=login&redirectTo=${encodeURIComponent("/settings")}`, {
        headers: { "Set-Cookie": await destroyUserSession(request) },
      });
    },
    (error) => submission.reply({ ...HIDE, fieldErrors: { [error.field ?? "currentPassword"]: [error.message] } }),
  );
}

export default function Password({ actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(passwordChangeSchema, { id: "password", lastResult: actionData });
  const busy = useIsPending();
  return (
    <SettingsSubPage title="修改密码">
      <p className="muted">修改成功后，所有设备上的登录都会失效，需要用新密码重新登录。</p>
      <Form method="post" {...getFormProps(form)}>
        <label className="field">
          <span>当前密码</span>
          <input {...getInputProps(fields.currentPassword, { type: "password" })} key={fields.currentPassword.key} required={false} autoComplete="current-password" autoFocus />
          <FieldError field={fields.currentPassword} alert />
        </label>
        <NewPasswordFields newPassword={fields.newPassword} confirmPassword={fields.confirmPassword} />
        <FormError form={form} />
        <SaveOrCancel cancelHref="/settings" pending={busy}>
          修改密码
        </SaveOrCancel>
      </Form>
    </SettingsSubPage>
  );
}
