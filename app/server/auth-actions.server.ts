import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { loginSchema, registerSchema } from "~/schemas/auth";
import { safeRedirectPath } from "~/utils/redirect";
import { AUTH_MESSAGES, AuthError, authenticateLogin, register } from "./auth.server";
import { authEmailCookie } from "./auth-flash.server";
import { createUserSession, isSecureRequest } from "./session.server";
import { readForm } from "./form-data.server";

const hide = { hideFields: ["password"] };


/** POST /auth/login: a session and a redirect, or the form's errors. */
export async function loginAction(request: Request, clientAddress: string) {
  const form = await readForm(request.clone());
  const submission = parseWithZod(form, { schema: loginSchema });
  if (submission.status !== "success") return data(submission.reply(hide), { status: 400 });
  try {
    const user = await authenticateLogin(request, clientAddress);
    const cookie = await createUserSession(request, user.id);
    return redirect(safeRedirectPath(submission.value.redirectTo), { headers: { "Set-Cookie": cookie } });
  } catch (error) {
    if (error instanceof AuthError) {
      return data(
        submission.reply({ ...hide, formErrors: error.message ? [error.message] : undefined, fieldErrors: error.fieldErrors }),
        { status: error.status },
      );
    }
    console.error("login failed", error);
    return data(submission.reply({ ...hide, formErrors: [AUTH_MESSAGES.loginFailed] }), { status: 500 });
  }
}

/**
 * POST /auth/register. With JavaScript the dialog switches to login itself; without it
 * the browser is sent to the login dialog with the e-mail remembered in a short cookie.
 */
export async function registerAction(request: Request, clientAddress: string) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: registerSchema });
  if (submission.status !== "success") return data(submission.reply(hide), { status: 400 });
  try {
    const user = await register(form, clientAddress);
    if (form.get("enhanced") === "1") return data({ registered: true as const, email: user.email });
    const redirectTo = safeRedirectPath(submission.value.redirectTo);
    const cookie = await authEmailCookie.serialize(user.email, { secure: isSecureRequest(request) });
    return redirect(`/?auth=login&registered=1&redirectTo=${encodeURIComponent(redirectTo)}`, {
      headers: { "Set-Cookie": cookie },
    });
  } catch (error) {
    if (error instanceof AuthError) {
      return data(
        submission.reply({ ...hide, formErrors: error.message ? [error.message] : undefined, fieldErrors: error.fieldErrors }),
        { status: error.status },
      );
    }
    console.error("register failed", error);
    return data(submission.reply({ ...hide, formErrors: [AUTH_MESSAGES.registerFailed] }), { status: 500 });
  }
}
