import type { Submission } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { loginSchema, registerSchema } from "~/schemas/auth";
import { safeRedirectPath } from "~/utils/redirect";
import { AuthError, authenticateLogin, register } from "./auth.server";
import { authEmailCookie } from "./auth-flash.server";
import { type DomainError, replyOnDomainError } from "./errors.server";
import { readForm } from "./form-data.server";
import { createUserSession, isSecureRequest } from "./session.server";

const hide = { hideFields: ["password"] };

/** The form's reply to a refusal: an AuthError's messages by field, any other DomainError's on the form. */
function authReply(submission: Submission<unknown>) {
  return (error: DomainError) =>
    error instanceof AuthError
      ? submission.reply({ ...hide, formErrors: error.message ? [error.message] : undefined, fieldErrors: error.fieldErrors })
      : submission.reply({ ...hide, formErrors: [error.message] });
}


/** POST /auth/login: a session and a redirect, or the form's errors. */
export async function loginAction(request: Request, clientAddress: string) {
  const form = await readForm(request.clone());
  const submission = parseWithZod(form, { schema: loginSchema });
  if (submission.status !== "success") return data(submission.reply(hide), { status: 400 });
  return replyOnDomainError(async () => {
    const user = await authenticateLogin(request, clientAddress);
    const cookie = await createUserSession(request, user.id);
    return redirect(safeRedirectPath(submission.value.redirectTo), { headers: { "Set-Cookie": cookie } });
  }, authReply(submission));
}

/**
 * POST /auth/register. With JavaScript the dialog switches to login itself; without it
 * the browser is sent to the login dialog with the e-mail remembered in a short cookie.
 */
export async function registerAction(request: Request, clientAddress: string) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: registerSchema });
  if (submission.status !== "success") return data(submission.reply(hide), { status: 400 });
  return replyOnDomainError(async () => {
    const user = await register(form, clientAddress);
    if (form.get("enhanced") === "1") return data({ registered: true as const, email: user.email });
    const redirectTo = safeRedirectPath(submission.value.redirectTo);
    const cookie = await authEmailCookie.serialize(user.email, { secure: isSecureRequest(request) });
    return redirect(`/?auth=login&registered=1&redirectTo=${encodeURIComponent(redirectTo)}`, {
      headers: { "Set-Cookie": cookie },
    });
  }, authReply(submission));
}
