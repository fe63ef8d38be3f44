import { getFormProps, getInputProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import { formatDateTime } from "~/components/admin/format";
import { formatNumber, formatTokens } from "~/utils/format";
import { AdminErrorBox, FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/forms";
import { balanceSchema, nicknameSchema, resetPasswordSchema, userActionSchema, userMessageSchema } from "~/schemas/admin";
import { getUserForAdmin, resetUserPassword, updateUserNickname } from "~/server/admin/users.server";
import { orRouteError, replyOnDomainError } from "~/server/errors.server";
import { readForm } from "~/server/form-data.server";
import { adminContext } from "~/server/guards.server";
import { adjustCreditBalance } from "~/server/ledger.server";
import { sendAdminMessage } from "~/server/notifications.server";
import type { Route } from "./+types/user-edit";

export const meta: Route.MetaFunction = () => [{ title: "编辑用户 - 管理后台" }];

export async function loader({ params }: Route.LoaderArgs) {
  return orRouteError(async () => ({ user: await getUserForAdmin(params.id) }));
}

/** Nickname, credits balance (with its 管理员调整 ledger row), password reset, a message to the user. */
export async function action({ request, params, context }: Route.ActionArgs) {
  const admin = context.get(adminContext);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: userActionSchema });
  const intent = String(form.get("intent") ?? "");
  if (submission.status !== "success") {
    return data({ intent, result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
  }
  const value = submission.value;
  return replyOnDomainError(
    async () => {
      await getUserForAdmin(params.id);
      if (value.intent === "nickname") {
        await updateUserNickname(params.id, value.nickname);
        return redirect(`/admin/users/${params.id}?notice=nickname-set`);
      }
      if (value.intent === "balance") {
        await adjustCreditBalance(admin.id, params.id, value.balance);
        return redirect(`/admin/users/${params.id}?notice=balance-set`);
      }
      if (value.intent === "message") {
        await sendAdminMessage(params.id, value.body);
        return redirect(`/admin/users/${params.id}?notice=message-sent`);
      }
      await resetUserPassword(params.id, value.password);
      return redirect(`/admin/users/${params.id}?notice=password-reset`);
    },
    (error) => ({ intent, result: submission.reply({ formErrors: [error.message], hideFields: ["password"] }) }),
  );
}

export default function UserEdit({ loaderData: { user }, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const resultFor = (intent: string) => (actionData?.intent === intent ? actionData.result : undefined);
  const [nicknameForm, nicknameFields] = useSchemaForm(nicknameSchema, {
    id: "user-nickname",
    lastResult: resultFor("nickname"),
    defaultValue: { intent: "nickname", nickname: user.nickname },
  });
  const [balanceForm, balanceFields] = useSchemaForm(balanceSchema, {
    id: "user-balance",
    lastResult: resultFor("balance"),
    defaultValue: { intent: "balance", balance: String(user.credits) },
  });
  const [passwordForm, passwordFields] = useSchemaForm(resetPasswordSchema, {
    id: "user-password",
    lastResult: resultFor("password"),
    defaultValue: { intent: "password" },
  });
  const [messageForm, messageFields] = useSchemaForm(userMessageSchema, {
    id: "user-message",
    lastResult: resultFor("message"),
    defaultValue: { intent: "message" },
  });
  const nf = nicknameFields;
  const bf = balanceFields;
  const pf = passwordFields;
  return (
    <section className="admin-page">
      <p>
        <Link to="/admin/users">← 返回用户列表</Link>
      </p>
      <h1>编辑用户</h1>
      <QueryNotice />
      <dl className="admin-facts">
        <dt>邮箱</dt>
        <dd>{user.email}</dd>
        <dt>积分余额</dt>
        <dd data-testid="user-credits">{formatNumber(user.credits)}</dd>
        <dt>Tokens</dt>
        <dd title={String(user.tokens)}>{formatTokens(user.tokens)}</dd>
        <dt>注册时间</dt>
        <dd>{formatDateTime(user.createdAt)}</dd>
      </dl>

      <div className="admin-card">
        <h2>修改昵称</h2>
        <FormErrors form={nicknameForm} />
        <Form method="post" {...getFormProps(nicknameForm)}>
          <input type="hidden" name="intent" value="nickname" />
          <label className="field">
            <span>昵称</span>
            <input {...getInputProps(nf.nickname, { type: "text" })} maxLength={30} />
            <FieldErrors field={nf.nickname} />
          </label>
          <button type="submit" className="btn btn-primary" disabled={busy}>保存昵称</button>
        </Form>
      </div>

      <div className="admin-card">
        <h2>设置积分余额</h2>
        <p className="hint">将记录一条“管理员调整”的积分流水，金额为新旧余额之差。</p>
        <FormErrors form={balanceForm} />
        <Form method="post" {...getFormProps(balanceForm)}>
          <input type="hidden" name="intent" value="balance" />
          <label className="field">
            <span>新的积分余额</span>
            <input {...getInputProps(bf.balance, { type: "text" })} inputMode="numeric" />
            <FieldErrors field={bf.balance} />
          </label>
          <button type="submit" className="btn btn-primary" disabled={busy}>保存余额</button>
        </Form>
      </div>

      <div className="admin-card">
        <h2>重置密码</h2>
        <p className="hint">重置后该用户在所有设备上的登录都会失效。</p>
        <FormErrors form={passwordForm} />
        <Form method="post" {...getFormProps(passwordForm)}>
          <input type="hidden" name="intent" value="password" />
          <label className="field">
            <span>新密码</span>
            <input {...getInputProps(pf.password, { type: "password" })} autoComplete="new-password" />
            <FieldErrors field={pf.password} />
          </label>
          <button type="submit" className="btn btn-primary" disabled={busy}>重置密码</button>
        </Form>
      </div>

      <div className="admin-card">
        <h2>发送消息</h2>
        <p className="hint">消息会出现在该用户的“消息通知”里。</p>
        <FormErrors form={messageForm} />
        <Form method="post" {...getFormProps(messageForm)}>
          <input type="hidden" name="intent" value="message" />
          <label className="field">
            <span>消息内容</span>
            <textarea {...getTextareaProps(messageFields.body)} rows={4} maxLength={2000} />
            <FieldErrors field={messageFields.body} />
          </label>
          <button type="submit" className="btn btn-primary" disabled={busy}>发送消息</button>
        </Form>
      </div>
    </section>
  );
}

export function ErrorBoundary() {
  return <AdminErrorBox />;
}
