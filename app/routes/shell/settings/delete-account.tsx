import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, useLoaderData } from "react-router";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { userContext } from "~/middleware/guards.server";
import { ACCOUNT_DELETION_DAYS, ACCOUNT_DELETION_MESSAGES, accountDeletionSchema, DELETED_NICKNAME, deletionRequestSchema } from "~/schemas/account-deletion";
import { cancelAccountDeletion, getAccountDeletionPage, requestAccountDeletion } from "~/server/identity/account-deletion.server";
import { asRouteError, formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { clientAddressOf } from "~/server/platform/request.server";
import { formatNumber } from "~/utils/format";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/delete-account";

/**
 * 注销账号 (docs/product.md#account-deletion, decision 231): the request (password, what
 * becomes of the works, the consequences confirmed) starts a 15-day cool-off; 撤销 here or
 * in every page's banner ends it. Refusals (wrong password, a second request, a pending
 * payout, 撤销 of nothing) come back as messages, nothing written.
 */
export const meta: Route.MetaFunction = () => [{ title: "注销账号 - 砚台" }];

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [page, flash] = await Promise.all([getAccountDeletionPage(user.id).catch(asRouteError), takeFlash(request, url)]);
  const pending = page.pending && { dueAt: formatShanghai(page.pending.dueAt), requestedAt: formatShanghai(page.pending.requestedAt), works: page.pending.works };
  return data({ ...page, pending, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

const HIDE = { hideFields: ["password"] };

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: accountDeletionSchema });
  if (submission.status !== "success") return data(submission.reply(HIDE), { status: 400 });
  const value = submission.value;
  const address = clientAddressOf(context);
  const back = "/settings/delete-account";
  return replyOnDomainError(
    async () => {
      if (value.intent === "cancel") {
        await cancelAccountDeletion(user.id, address);
        return redirectWithFlash(request, back, { kind: "success", text: ACCOUNT_DELETION_MESSAGES.cancelled });
      }
      const { dueAt } = await requestAccountDeletion(user.id, { password: value.password, works: value.works }, address);
      return redirectWithFlash(request, back, { kind: "success", text: ACCOUNT_DELETION_MESSAGES.requested(formatShanghai(dueAt)) });
    },
    (error) => submission.reply({ ...HIDE, ...formErrorsOf(error) }),
  );
}

type Page = ReturnType<typeof useLoaderData<typeof loader>>;

function RequestForm({ page, lastResult }: { page: Page; lastResult: Route.ComponentProps["actionData"] }) {
  const [form, fields] = useSchemaForm(deletionRequestSchema, { id: "account-deletion", lastResult });
  const busy = useIsPending();
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="request" />
      <fieldset className="field deletion-works">
        <legend>注销后，你的作品</legend>
        {page.workCount > 0 ? <p className="hint">你共有 {formatNumber(page.workCount)} 部作品。</p> : <p className="hint">你还没有作品，任选其一即可。</p>}
        <label className="radio-field">
          <input {...getInputProps(fields.works, { type: "radio", value: "take_down" })} key={`${fields.works.key}-down`} required={false} />
          <span>下架：所有读者（包括已购买的读者）都将无法再阅读</span>
        </label>
        <label className="radio-field">
          <input {...getInputProps(fields.works, { type: "radio", value: "keep" })} key={`${fields.works.key}-keep`} required={false} />
          <span>保留：作品继续展示，作者名显示为“{DELETED_NICKNAME}”</span>
        </label>
        <FieldError field={fields.works} alert />
      </fieldset>
      <label className="field">
        <span>当前密码</span>
        <input {...getInputProps(fields.password, { type: "password" })} key={fields.password.key} required={false} autoComplete="current-password" />
        <FieldError field={fields.password} alert />
      </label>
      <label className="checkbox-field">
        <input {...getInputProps(fields.confirm, { type: "checkbox" })} key={fields.confirm.key} required={false} />
        <span>我已了解注销的后果，剩余积分与 Tokens 将作废且无法恢复</span>
      </label>
      <FieldError field={fields.confirm} alert />
      <FormError form={form} />
      <div className="form-actions">
        <SubmitButton className="btn btn-danger" pending={busy} pendingLabel="提交中...">
          申请注销账号
        </SubmitButton>
      </div>
    </Form>
  );
}

export default function DeleteAccount({ actionData }: Route.ComponentProps) {
  const page = useLoaderData<typeof loader>();
  const busy = useIsPending();
  return (
    <SettingsSubPage title="注销账号">
      <FlashMessage notice={page.notice} />
      {page.pending ? (
        <>
          <p className="notice notice-warning" data-testid="deletion-status">
            你于 {page.pending.requestedAt} 申请了注销，账号将于 <strong>{page.pending.dueAt}</strong> 删除；作品将
            {page.pending.works === "take_down" ? "下架" : `保留，作者名显示为“${DELETED_NICKNAME}”`}。在此之前账号照常可用，可随时撤销。
          </p>
          <Form method="post">
            <input type="hidden" name="intent" value="cancel" />
            <div className="form-actions">
              <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="撤销中...">
                撤销注销申请
              </SubmitButton>
            </div>
          </Form>
        </>
      ) : (
        <>
          <p>申请后有 {ACCOUNT_DELETION_DAYS} 天冷静期，期间账号照常可用，可随时撤销。冷静期满后：</p>
          <ul className="deletion-consequences">
            <li>邮箱、密码、昵称、头像、实名认证、收款账户、登录状态、阅读App令牌、书架、关注、阅读记录、书签和划线、消息通知将被删除，账号无法再登录；</li>
            <li>你发表的评论和书评保留，署名改为“{DELETED_NICKNAME}”；</li>
            <li>
              剩余 {formatNumber(page.credits)} 积分和 {formatNumber(page.tokens)} Tokens 将作废；
              {page.income > 0 ? `未提现的 ${formatNumber(page.income)} 稿酬将无法再提现，请先申请提现；` : null}
            </li>
            <li>订单、积分流水、稿酬与提现、代扣个税等记录依法保留，但不再与你的个人信息关联。</li>
          </ul>
          <p className="hint">
            注销前可以先 <a href="/exports/my-data.zip" download>导出我的数据</a>。
          </p>
          {page.payoutPending ? (
            <p className="notice notice-error" role="alert">
              {ACCOUNT_DELETION_MESSAGES.payoutPending}
            </p>
          ) : (
            <RequestForm page={page} lastResult={actionData} />
          )}
        </>
      )}
      {page.pending ? <FormError errors={actionData?.error?.[""]} /> : null}
    </SettingsSubPage>
  );
}
