import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { NewPasswordFields } from "~/components/settings/new-password-fields";
import { passwordResetSchema } from "~/schemas/password-reset";
import { PASSWORD_RESET_MESSAGES } from "~/schemas/password-reset-rules";
import { authEmailCookie, isSecureRequest } from "~/server/platform/cookies.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { resetLinkMessage, resetLinkState, resetPassword } from "~/server/identity/password-reset.server";
import { destroyUserSession } from "~/server/identity/session.server";
import type { Route } from "./+types/auth-reset-password";
import { FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "重置密码 - 砚台" }];

// The page carries a live token in its URL and form: never kept by a cache.
export function headers(): HeadersInit {
  return { "Cache-Control": "no-store" };
}

const HIDE = { hideFields: ["newPassword", "confirmPassword"] };
/** The form holds a token and two passwords; anything much larger is not from it. */
const RESET_FORM_MAX_BYTES = 16 * 1024;

/** Reads the link's state only; the token is taken by the POST. */
export async function loader({ request, url }: Route.LoaderArgs) {
  const token = url.searchParams.get("token") ?? "";
  if (!token) return { token: "", problem: PASSWORD_RESET_MESSAGES.linkMissing };
  const state = await resetLinkState(token);
  if (state === "valid") return { token, problem: null };
  return { token: "", problem: resetLinkMessage(state) };
}

/**
 * docs/product.md: Accounts: the new password is set, every session of the user ends,
 * and this browser goes to the login dialog with the e-mail filled in and a notice.
 */
export async function action({ request }: Route.ActionArgs) {
  const form = await readForm(request, RESET_FORM_MAX_BYTES);
  const submission = parseWithZod(form, { schema: passwordResetSchema });
  if (submission.status !== "success") return data(submission.reply(HIDE), { status: 400 });
  return replyOnDomainError(
    async () => {
      const { email } = await resetPassword(submission.value.token, submission.value.newPassword);
      const headers = new Headers();
      // Whoever was signed in on this browser is signed out too: the dialog must open.
      headers.append("Set-Cookie", await destroyUserSession(request));
      headers.append("Set-Cookie", await authEmailCookie.serialize(email, { secure: isSecureRequest(request) }));
      return redirect("/?auth=login&reset=1", { headers });
    },
    (error) => submission.reply({ ...HIDE, formErrors: [error.message] }),
  );
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(passwordResetSchema, { id: "reset-password", lastResult: actionData });
  if (loaderData.problem) {
    return (
      <section className="auth-page">
        <h1>重置密码</h1>
        <p className="notice notice-error" role="alert">
          {loaderData.problem}
        </p>
        <Link className="btn btn-primary btn-block" to="/auth/forgot-password">
          重新申请重置链接
        </Link>
      </section>
    );
  }
  const busy = useIsPending();
  return (
    <section className="auth-page">
      <h1>重置密码</h1>
      <p className="muted">设置新密码后，所有设备上的登录都会失效，需要用新密码重新登录。</p>
      <Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="token" value={loaderData.token} />
        <NewPasswordFields newPassword={fields.newPassword} confirmPassword={fields.confirmPassword} autoFocus />
        <FormError form={form} />
        <SubmitButton className="btn btn-primary btn-block" pending={busy} pendingLabel="保存中...">
          重置密码
        </SubmitButton>
      </Form>
    </section>
  );
}
