import { getFormProps, getInputProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { FieldErrors, FormErrors, Notice, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { adminPasswordSchema } from "~/schemas/admin";
import { changeAdminPassword } from "~/server/identity/admin-auth.server";
import { formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm, replyToForm } from "~/server/platform/form-data.server";
import { adminContext } from "~/middleware/guards.server";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { mustEnrolSecondFactor } from "~/server/identity/admin-session.server";
import { confirmTotpEnrolment, disableTotp, pendingEnrolment, recoveryCodesLeft, regenerateRecoveryCodes, startTotpEnrolment } from "~/server/identity/totp.server";
import { ADMIN_ACCOUNT_MESSAGES, ADMIN_ROLE_LABELS, adminAccountIntentSchema, totpActionSchema, totpConfirmSchema, totpDisableSchema, totpRecoverySchema } from "~/schemas/admin-accounts";
import type { Route } from "./+types/account";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "我的账户 - 管理后台" }];

export async function loader({ context }: Route.LoaderArgs) {
  const admin = context.get(adminContext);
  return {
    email: admin.email,
    role: admin.role,
    totpEnabled: admin.totpEnabled,
    enrolment: admin.totpEnabled ? null : await pendingEnrolment(admin.id, admin.email),
    recoveryCodesLeft: admin.totpEnabled ? await recoveryCodesLeft(admin.id) : 0,
    totpRequired: mustEnrolSecondFactor(admin),
  };
}

const hide = { hideFields: ["currentPassword", "newPassword", "confirmPassword"] };

/**
 * The password form, and the two-factor forms (intent totp-start, totp-confirm,
 * totp-disable, totp-recovery-codes). Turning it on and asking for new recovery codes
 * answer the page itself with the ten codes: shown this once, never stored in the clear
 * (docs/decisions/167).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const admin = context.get(adminContext);
  const form = await readForm(request);
  const picked = parseWithZod(form, { schema: adminAccountIntentSchema });
  if (picked.status === "success" && picked.value.intent === "totp") return totpAction(form, context);
  return replyToForm(
    form,
    adminPasswordSchema,
    async (value) => {
      await changeAdminPassword(adminActorOf(context), admin.sessionId, value);
      return redirect("/admin/account?notice=password-changed");
    },
    hide,
  );
}

async function totpAction(form: FormData, context: Route.ActionArgs["context"]) {
  const submission = parseWithZod(form, { schema: totpActionSchema });
  if (submission.status !== "success") return data({ totp: submission.reply() }, { status: 400 });
  const actor = adminActorOf(context);
  return replyOnDomainError(
    async () => {
      const value = submission.value;
      if (value.intent === "totp-start") {
        await startTotpEnrolment(actor.admin.id);
        return redirect("/admin/account#totp");
      }
      if (value.intent === "totp-confirm") {
        const { recoveryCodes } = await confirmTotpEnrolment(actor, value.code);
        return { totp: submission.reply({ resetForm: true }), recoveryCodes, notice: "两步验证已开启" };
      }
      if (value.intent === "totp-recovery-codes") {
        const { recoveryCodes } = await regenerateRecoveryCodes(actor, value.code);
        return { totp: submission.reply({ resetForm: true }), recoveryCodes, notice: "已生成新的恢复码，旧的恢复码已失效" };
      }
      await disableTotp(actor, value.code);
      return redirect("/admin/account?notice=totp-disabled");
    },
    (error) => ({ totp: submission.reply(formErrorsOf(error)) }),
  );
}

/** The ten recovery codes just made: shown once, on the answer to the form that made them. */
function RecoveryCodes({ codes, notice }: { codes: string[]; notice: string }) {
  return (
    <>
      <Notice kind="success" testId="notice">
        {notice}
      </Notice>
      <div className="admin-card" data-testid="recovery-codes">
        <h2>恢复码</h2>
        <p className="hint">{ADMIN_ACCOUNT_MESSAGES.recoveryCodesShown}。认证器丢失时，在登录的两步验证中输入其中一个即可。</p>
        <ol className="admin-recovery-codes">
          {codes.map((code) => (
            <li key={code}>
              <code>{code}</code>
            </li>
          ))}
        </ol>
      </div>
    </>
  );
}

function TwoFactor({ loaderData, lastResult }: { loaderData: Route.ComponentProps["loaderData"]; lastResult?: SubmissionResult<string[]> }) {
  const busy = useIsPending();
  const { totpEnabled, enrolment, recoveryCodesLeft } = loaderData;
  // With two-factor on, the code may be a recovery code; while enrolling, only the authenticator's.
  const [form, fields] = useSchemaForm(totpEnabled ? totpDisableSchema : totpConfirmSchema, { id: "admin-totp", lastResult });
  const [recoveryForm, recoveryFields] = useSchemaForm(totpRecoverySchema, { id: "admin-totp-recovery" });
  return (
    <div className="admin-card" id="totp">
      <h2>两步验证</h2>
      {totpEnabled ? (
        <>
          <p data-testid="totp-state">已开启：登录时需要输入认证器上的验证码（或一个恢复码）。</p>
          <p className="hint" data-testid="recovery-codes-left">
            剩余恢复码：{recoveryCodesLeft} 个。
          </p>
          <FormErrors form={form} />
          <Form method="post" {...getFormProps(recoveryForm)} className="admin-inline-form">
            <input type="hidden" name="intent" value="totp-recovery-codes" />
            <label className="field">
              <span>生成新的恢复码需要当前验证码</span>
              <input {...getInputProps(recoveryFields.code, { type: "text" })} autoComplete="one-time-code" maxLength={24} />
            </label>
            <SubmitButton className="btn" pending={busy}>生成新的恢复码</SubmitButton>
          </Form>
          <Form method="post" {...getFormProps(form)} className="admin-inline-form">
            <input type="hidden" name="intent" value="totp-disable" />
            <label className="field">
              <span>关闭需要当前验证码或一个恢复码</span>
              <input {...getInputProps(fields.code, { type: "text" })} autoComplete="one-time-code" maxLength={24} />
              <FieldErrors field={fields.code} />
            </label>
            <SubmitButton className="btn btn-danger" pending={busy}>关闭两步验证</SubmitButton>
          </Form>
        </>
      ) : enrolment ? (
        <>
          <p>用认证器应用（如 Google Authenticator、Microsoft Authenticator）扫描二维码，或手动输入密钥，然后填写显示的6位验证码。</p>
          <div className="totp-enrol">
            {/* The SVG is made on the server from the otpauth:// address (uqr), no user text in it. */}
            <div className="totp-qr" role="img" aria-label="两步验证二维码" dangerouslySetInnerHTML={{ __html: enrolment.qrSvg }} />
            <div>
              <p className="hint">密钥（手动输入）</p>
              <code className="admin-token" data-testid="totp-secret">{enrolment.secret}</code>
            </div>
          </div>
          <FormErrors form={form} />
          <Form method="post" {...getFormProps(form)} className="admin-inline-form">
            <input type="hidden" name="intent" value="totp-confirm" />
            <label className="field">
              <span>验证码</span>
              <input {...getInputProps(fields.code, { type: "text" })} inputMode="numeric" autoComplete="one-time-code" maxLength={12} />
              <FieldErrors field={fields.code} />
            </label>
            <SubmitButton className="btn btn-primary" pending={busy}>确认开启</SubmitButton>
          </Form>
        </>
      ) : (
        <>
          <p data-testid="totp-state">未开启。开启后，登录时除密码外还需要输入认证器上的验证码。</p>
          <FormErrors form={form} />
          <Form method="post">
            <input type="hidden" name="intent" value="totp-start" />
            <SubmitButton className="btn btn-primary" pending={busy}>开启两步验证</SubmitButton>
          </Form>
        </>
      )}
    </div>
  );
}

export default function Account({ loaderData, actionData }: Route.ComponentProps) {
  const passwordResult = actionData && !("totp" in actionData) ? actionData : undefined;
  const totpResult = actionData && "totp" in actionData ? actionData.totp : undefined;
  const shown = actionData && "recoveryCodes" in actionData ? actionData : null;
  const [form, fields] = useSchemaForm(adminPasswordSchema, { id: "admin-password", lastResult: passwordResult });
  return (
    <section className="admin-page">
      <h1>我的账户</h1>
      <p className="hint">
        当前管理员：{loaderData.email}（{ADMIN_ROLE_LABELS[loaderData.role]}）。
      </p>
      {loaderData.totpRequired ? <FormErrors errors={["本站要求超级管理员开启两步验证：开启之前，后台的其他页面暂不可用。"]} /> : null}
      <QueryNotice ms={5000} />
      {shown ? <RecoveryCodes codes={shown.recoveryCodes} notice={shown.notice} /> : null}
      <TwoFactor loaderData={loaderData} lastResult={totpResult} />
      <h2>修改密码</h2>
      <p className="hint">修改后，此管理员在其他设备上的登录将失效。</p>
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
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          修改密码
        </SubmitButton>
      </Form>
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
