import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { Link, useFetcher, useLocation } from "react-router";
import { loginSchema, PASSWORD_MIN_LENGTH, registerSchema } from "~/schemas/auth";
import { authHref, stripAuth } from "./shell/auth-links";
import { Dialog } from "./ui/dialog";
import { FieldError, FormError } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";

export type AuthMode = "login" | "register";

type AuthResult = SubmissionResult<string[]>;

/**
 * The login / register dialog. The server renders it from ?auth=login|register, so it
 * works without JavaScript; with JavaScript it submits in place over the current page.
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
  lastResult?: SubmissionResult<string[]>;
}) {
  const location = useLocation();
  const fetcher = useFetcher<AuthResult>({ key: `auth-${mode}` });

  const schema = mode === "login" ? loginSchema : registerSchema;
  const result = fetcher.data ?? lastResult;

  const [form, fields] = useForm({
    id: `auth-${mode}`,
    lastResult: result,
    constraint: getZodConstraint(schema),
    defaultValue: { email: prefillEmail, redirectTo },
    // Not on blur: an error appearing as the e-mail field (focused on open) loses focus
    // grows the centred dialog and moves the close and switch links from under the
    // pointer, so the click that caused the blur is lost.
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate({ formData }) {
      return parseWithZod(formData, { schema });
    },
  });

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
      <fetcher.Form method="post" action={`/auth/${mode}`} {...getFormProps(form)}>
        <input {...getInputProps(fields.redirectTo, { type: "hidden" })} />
        <label className="field">
          <span>邮箱</span>
          <input
            {...getInputProps(fields.email, { type: "email" })}
            key={fields.email.key}
            autoComplete="email"
            placeholder="you@example.com"
            autoFocus={!fields.email.initialValue}
          />
          <FieldError field={fields.email} />
        </label>
        <label className="field">
          <span>密码</span>
          <input
            {...getInputProps(fields.password, { type: "password" })}
            key={fields.password.key}
            autoComplete={mode === "login" ? "current-password" : "new-password"}
            placeholder={mode === "register" ? `至少 ${PASSWORD_MIN_LENGTH} 个字符` : ""}
            autoFocus={Boolean(fields.email.initialValue)}
          />
          <FieldError field={fields.password} />
        </label>
        {mode === "login" ? (
          <p className="auth-forgot">
            <Link to="/auth/forgot-password">忘记密码？</Link>
          </p>
        ) : null}
        <FormError form={form} />
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
