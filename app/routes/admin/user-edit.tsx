import { getFormProps, getInputProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { formatNumber, formatTokens } from "~/utils/format";
import { FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { FormTokenField } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { UserActivity } from "~/components/admin/user-activity";
import { balanceSchema, banSchema, nicknameSchema, resetPasswordSchema, userActionSchema, userMessageSchema } from "~/schemas/admin";
import { sentIntentSchema } from "~/schemas/form-fields";
import { adminActorOf } from "~/middleware/admin-actor.server";
import {
  adjustUserCredits,
  banUser,
  endUserSessions,
  getUserActivity,
  getUserForAdmin,
  messageUser,
  resetUserPassword,
  unbanUser,
  setReviewRequired,
  updateUserNickname,
} from "~/server/admin/users.server";
import { setContract } from "~/server/economy/attendance.server";
import { CONTRACT_LABELS } from "~/types/contracts";
import { DomainError, orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { FORM_TOKEN_MESSAGES, formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import type { Route } from "./+types/user-edit";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "用户详情 - 管理后台" }];

/**
 * 调整积分 and 发送消息 apply once per one-time token (decision 172;
 * tests/integration/creating-forms.test.ts): a replayed adjustment would move money twice.
 */
export const handle = { creates: ["credits-adjustment", "user-message"] };

export async function loader({ params }: Route.LoaderArgs) {
  return orRouteError(async () => {
    const user = await getUserForAdmin(params.id);
    return { user, activity: await getUserActivity(user.id), formTokens: { balance: newFormToken(), message: newFormToken() } };
  });
}

/**
 * Nickname, a credits change with its reason (ledger row 管理员调整：reason), password reset,
 * a message to the user, ban / unban and ending every session (decision 137).
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: userActionSchema });
  const sent = parseWithZod(form, { schema: sentIntentSchema });
  const intent = sent.status === "success" ? sent.value.intent : "";
  if (submission.status !== "success") {
    return data({ intent, result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
  }
  const value = submission.value;
  // A token is this page's: one recorded on another user's page is not for this one.
  const sameUser = (target: string) => {
    if (target !== params.id) throw new DomainError(FORM_TOKEN_MESSAGES.usedElsewhere, 409);
  };
  return replyOnDomainError(
    async () => {
      await getUserForAdmin(params.id);
      if (value.intent === "nickname") {
        await updateUserNickname(actor, params.id, value.nickname);
        return redirect(`/admin/users/${params.id}?notice=nickname-set`);
      }
      // The same form sent twice (a double click, 重新提交) adjusts or sends once: the token
      // is recorded in the ledger row's (the message's) transaction.
      if (value.intent === "balance") {
        await oncePerFormToken(
          { adminId: actor.admin.id },
          "credits-adjustment",
          formTokenOf(form),
          async (record) => {
            await adjustUserCredits(actor, params.id, value.change, value.reason, record);
          },
          async (target) => sameUser(target),
        );
        return redirect(`/admin/users/${params.id}?notice=balance-set`);
      }
      if (value.intent === "message") {
        await oncePerFormToken(
          { adminId: actor.admin.id },
          "user-message",
          formTokenOf(form),
          (record) => messageUser(actor, params.id, value.body, record),
          async (target) => sameUser(target),
        );
        return redirect(`/admin/users/${params.id}?notice=message-sent`);
      }
      if (value.intent === "ban") {
        await banUser(actor, params.id, value.reason, value.until);
        return redirect(`/admin/users/${params.id}?notice=banned`);
      }
      if (value.intent === "unban") {
        await unbanUser(actor, params.id);
        return redirect(`/admin/users/${params.id}?notice=unbanned`);
      }
      if (value.intent === "review-required") {
        await setReviewRequired(actor, params.id, value.required);
        return redirect(`/admin/users/${params.id}?notice=review-required`);
      }
      if (value.intent === "contract") {
        await setContract(actor, params.id, value.contract);
        return redirect(`/admin/users/${params.id}?notice=contract`);
      }
      if (value.intent === "end-sessions") {
        await endUserSessions(actor, params.id);
        return redirect(`/admin/users/${params.id}?notice=sessions-ended`);
      }
      await resetUserPassword(actor, params.id, value.password);
      return redirect(`/admin/users/${params.id}?notice=password-reset`);
    },
    (error) => ({ intent, result: submission.reply({ formErrors: [error.message], hideFields: ["password"] }) }),
  );
}

export default function UserEdit({ loaderData: { user, activity, formTokens }, actionData }: Route.ComponentProps) {
  const busy = useIsPending();
  const resultFor = (intent: string) => (actionData?.intent === intent ? actionData.result : undefined);
  const [nicknameForm, nicknameFields] = useSchemaForm(nicknameSchema, {
    id: "user-nickname",
    lastResult: resultFor("nickname"),
    defaultValue: { intent: "nickname", nickname: user.nickname },
  });
  const [balanceForm, balanceFields] = useSchemaForm(balanceSchema, {
    id: "user-balance",
    lastResult: resultFor("balance"),
    defaultValue: { intent: "balance" },
  });
  const [banForm, banFields] = useSchemaForm(banSchema, {
    id: "user-ban",
    lastResult: resultFor("ban"),
    defaultValue: { intent: "ban" },
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
      <h1>用户详情</h1>
      <QueryNotice />
      <FormErrors errors={actionData && ["unban", "end-sessions", "review-required", "contract"].includes(actionData.intent) ? (actionData.result.error?.[""] ?? undefined) : undefined} />
      <dl className="admin-facts">
        <dt>邮箱</dt>
        <dd>{user.email}</dd>
        <dt>积分余额</dt>
        <dd data-testid="user-credits">{formatNumber(user.credits)}</dd>
        <dt>Tokens</dt>
        <dd title={String(user.tokens)}>{formatTokens(user.tokens)}</dd>
        <dt>注册时间</dt>
        <dd>{formatShanghaiSeconds(user.createdAt)}</dd>
        <dt>最近登录</dt>
        <dd>{formatShanghaiSeconds(user.lastSignInAt) || "—"}（当前有效登录 {activity.sessions} 个）</dd>
        <dt>状态</dt>
        <dd data-testid="user-ban-state">
          {user.banned
            ? `已封禁${user.bannedUntil ? `至 ${formatShanghaiSeconds(user.bannedUntil)}` : "（无期限）"}，原因：${user.banReason}`
            : "正常"}
        </dd>
        <dt>注销</dt>
        <dd data-testid="user-deletion-state">
          {user.deletedAt
            ? `已于 ${formatShanghaiSeconds(user.deletedAt)} 注销：个人信息已删除，账号无法登录，交易记录保留`
            : user.deletionDueAt
              ? `用户已申请注销，冷静期至 ${formatShanghaiSeconds(user.deletionDueAt)}，届时自动删除个人信息`
              : "未申请"}
        </dd>
        <dt>先审</dt>
        <dd data-testid="user-review-required">{user.reviewRequired ? "在先审名单中：章节须审核通过后发布" : "按审核规则"}</dd>
        <dt>签约</dt>
        <dd data-testid="user-contract">{CONTRACT_LABELS[user.contract]}</dd>
      </dl>

      <div className="admin-card">
        <h2>签约状态</h2>
        <p className="hint">签约和买断作者可获全勤奖（规则见“稿酬与定价”）；作者在“我的收入”中看到自己的签约状态。</p>
        <Form method="post" className="admin-inline-form">
          <input type="hidden" name="intent" value="contract" />
          <label className="field">
            <span>签约状态</span>
            <select name="contract" defaultValue={user.contract}>
              {Object.entries(CONTRACT_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <SubmitButton className="btn" pending={busy}>
            保存签约状态
          </SubmitButton>
        </Form>
      </div>

      <div className="admin-card">
        <h2>先审名单</h2>
        <p className="hint">在名单中的作者，每一章都须审核通过后才对读者可见，无论已发布多少章节。</p>
        <Form method="post">
          <input type="hidden" name="intent" value="review-required" />
          <input type="hidden" name="required" value={user.reviewRequired ? "0" : "1"} />
          <SubmitButton className="btn" pending={busy}>{user.reviewRequired ? "移出先审名单" : "加入先审名单"}</SubmitButton>
        </Form>
      </div>

      <div className="admin-card">
        <h2>{user.banned ? "封禁与登录" : "封禁用户"}</h2>
        <p className="hint">封禁后该用户无法登录、所有登录立即失效，其评论对所有人隐藏；到期自动解封。</p>
        <FormErrors form={banForm} />
        <Form method="post" {...getFormProps(banForm)}>
          <input type="hidden" name="intent" value="ban" />
          <label className="field">
            <span>封禁原因（会在该用户登录时显示）</span>
            <input {...getInputProps(banFields.reason, { type: "text" })} maxLength={200} />
            <FieldErrors field={banFields.reason} />
          </label>
          <label className="field">
            <span>解封日期（可选，北京时间当日零点解封；留空为无期限）</span>
            <input {...getInputProps(banFields.until, { type: "date" })} />
            <FieldErrors field={banFields.until} />
          </label>
          <SubmitButton className="btn btn-danger" pending={busy}>{user.banned ? "更新封禁" : "封禁"}</SubmitButton>
        </Form>
        <div className="admin-inline-form">
          {user.banned ? (
            <Form method="post">
              <input type="hidden" name="intent" value="unban" />
              <SubmitButton className="btn" pending={busy}>解除封禁</SubmitButton>
            </Form>
          ) : null}
          <Form method="post">
            <input type="hidden" name="intent" value="end-sessions" />
            <SubmitButton className="btn" pending={busy}>结束所有登录</SubmitButton>
          </Form>
        </div>
      </div>

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
          <SubmitButton className="btn btn-primary" pending={busy}>保存昵称</SubmitButton>
        </Form>
      </div>

      <div className="admin-card">
        <h2>调整积分</h2>
        <p className="hint">填写增减的数量（如 +100 或 -50）和原因，将记录一条“管理员调整：原因”的积分流水；余额不能低于0。</p>
        <FormErrors form={balanceForm} />
        <Form method="post" {...getFormProps(balanceForm)}>
          <input type="hidden" name="intent" value="balance" />
          <FormTokenField token={formTokens.balance} />
          <label className="field">
            <span>增减数量</span>
            <input {...getInputProps(bf.change, { type: "text" })} placeholder="+100 或 -50" />
            <FieldErrors field={bf.change} />
          </label>
          <label className="field">
            <span>原因</span>
            <input {...getInputProps(bf.reason, { type: "text" })} maxLength={200} />
            <FieldErrors field={bf.reason} />
          </label>
          <SubmitButton className="btn btn-primary" pending={busy}>调整积分</SubmitButton>
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
          <SubmitButton className="btn btn-primary" pending={busy}>重置密码</SubmitButton>
        </Form>
      </div>

      <div className="admin-card">
        <h2>发送消息</h2>
        <p className="hint">消息会出现在该用户的“消息通知”里。</p>
        <FormErrors form={messageForm} />
        <Form method="post" {...getFormProps(messageForm)}>
          <input type="hidden" name="intent" value="message" />
          <FormTokenField token={formTokens.message} />
          <label className="field">
            <span>消息内容</span>
            <textarea {...getTextareaProps(messageFields.body)} rows={4} maxLength={2000} />
            <FieldErrors field={messageFields.body} />
          </label>
          <SubmitButton className="btn btn-primary" pending={busy}>发送消息</SubmitButton>
        </Form>
      </div>

      <UserActivity activity={activity} />
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
