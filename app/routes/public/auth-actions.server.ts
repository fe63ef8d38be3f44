import type { Submission } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { loginSchema, registerSchema } from "~/schemas/auth";
import { safeRedirectPath } from "~/utils/redirect";
import { AuthError, authenticateLogin, register } from "~/server/identity/auth.server";
import { type DomainError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { createUserSession } from "~/server/identity/session.server";

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
 * POST /auth/register: creates the account, signs it in as a login does and continues to
 * the remembered page, with or without JavaScript (the dialog's fetcher follows the redirect).
 */
export async function registerAction(request: Request, clientAddress: string) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: registerSchema });
  if (submission.status !== "success") return data(submission.reply(hide), { status: 400 });
  return replyOnDomainError(async () => {
    const user = await register(form, clientAddress);
    const cookie = await createUserSession(request, user.id);
    return redirect(safeRedirectPath(submission.value.redirectTo), { headers: { "Set-Cookie": cookie } });
  }, authReply(submission));
}
