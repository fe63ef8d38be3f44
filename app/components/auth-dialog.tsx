import { Link, useFetcher, useLocation } from "react-router";
import { PASSWORD_MIN_LENGTH } from "~/schemas/password-rules";
import { authHref, stripAuth } from "./shell/auth-links";
import { Dialog } from "./ui/dialog";
import { FieldError, FormError } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";

export type AuthMode = "login" | "register";

/**
 * What /auth/login and /auth/register answer a refused form with: Conform's reply
 * (app/routes/public/auth-actions.server.ts), read here without Conform: messages by field,
 * the form's own under "", and what was typed (the password never comes back).
 */
export type AuthResult = {
  initialValue?: Record<string, unknown> | null;
  error?: Record<string, string[] | null | undefined> | null;
};

/**
 * The login / register dialog. The server renders it from ?auth=login|register, so it
 * works without JavaScript; with JavaScript it submits in place over the current page.
 * The server checks the form and its messages come back by field: the dialog sits in the
 * layout of every page, so it ships no form kit or schema (docs/decisions/243).
 */
export function AuthDialog({
  mode,
  redirectTo,
  notice = null,
  prefillEmail = "",
  lastResult,
}: {
  mode: AuthMode;
  redirectTo: string;
  /** A success to show above the login form (密码已重置…). */
  notice?: string | null;
  prefillEmail?: string;
  lastResult?: AuthResult;
}) {
  const location = useLocation();
  const fetcher = useFetcher<AuthResult>({ key: `auth-${mode}` });
  const result = fetcher.data ?? lastResult;
  const errors = result?.error ?? {};
  const typed = result?.initialValue?.email;
  const email = typeof typed === "string" ? typed : prefillEmail;
  const formId = `auth-${mode}`;
  const ids = { email: `${formId}-email`, password: `${formId}-password`, form: `${formId}-error` };
  const invalid = (name: "email" | "password") =>
    errors[name]?.length ? { "aria-invalid": true as const, "aria-describedby": `${ids[name]}-error` } : {};

  const closeHref = location.pathname.startsWith("/auth/")
    ? "/"
    : location.pathname + stripAuth(location.search);

  const busy = useIsPending({ fetcher, state: "non-idle" });
  const title = mode === "login" ? "登录" : "注册";
  return (
    <Dialog title={mode === "login" ? "登录砚台" : "注册砚台账号"} closeHref={closeHref} className="auth-dialog">
      {mode === "login" && notice ? (
        <p className="notice notice-success" role="status">
          {notice}
        </p>
      ) : null}
      <fetcher.Form
        method="post"
        action={`/auth/${mode}`}
        id={formId}
        noValidate
        aria-describedby={errors[""]?.length ? ids.form : undefined}
      >
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <label className="field">
          <span>邮箱</span>
          <input
            type="email"
            name="email"
            id={ids.email}
            // A new answer puts what the server read back into the field.
            key={`email-${email}`}
            defaultValue={email}
            required
            maxLength={254}
            autoComplete="email"
            placeholder="you@example.com"
            autoFocus={!email}
            {...invalid("email")}
          />
          <FieldError errors={errors.email} id={`${ids.email}-error`} />
        </label>
        <label className="field">
          <span>密码</span>
          <input
            type="password"
            name="password"
            id={ids.password}
            required
            minLength={mode === "register" ? PASSWORD_MIN_LENGTH : undefined}
            autoComplete={mode === "login" ? "current-password" : "new-password"}
            placeholder={mode === "register" ? `至少 ${PASSWORD_MIN_LENGTH} 个字符` : ""}
            autoFocus={Boolean(email)}
            {...invalid("password")}
          />
          <FieldError errors={errors.password} id={`${ids.password}-error`} />
        </label>
        {mode === "login" ? (
          <p className="auth-forgot">
            <Link to="/auth/forgot-password">忘记密码？</Link>
          </p>
        ) : null}
        <FormError errors={errors[""]} form={{ errorId: ids.form }} />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? `${title}中...` : title}
        </button>
      </fetcher.Form>
      <p className="auth-switch">
        {mode === "login" ? (
          <>
            还没有账号？<Link to={authHref(location, "register", redirectTo)} replace>立即注册</Link>
          </>
        ) : (
          <>
            已有账号？<Link to={authHref(location, "login", redirectTo)} replace>去登录</Link>
          </>
        )}
      </p>
    </Dialog>
  );
}
