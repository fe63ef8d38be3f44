import { getFormProps, getInputProps, getSelectProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData } from "react-router";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { userContext } from "~/middleware/guards.server";
import { PAYOUT_ACCOUNT_KIND_LABELS, payoutAccountFormSchema } from "~/schemas/payout-account";
import { identityEnabled, identityNeeded } from "~/server/identity/author-identity.server";
import { currentPayoutAccount, savePayoutAccount } from "~/server/identity/payout-accounts.server";
import { formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/payout-account";

/**
 * 收款账户 (docs/product.md#author-income, decision 210): the author's bank card or Alipay
 * account, shown masked; saving another replaces it for later payout requests. The holder
 * must be the verified legal name while 实名认证 is required.
 */
export const meta: Route.MetaFunction = () => [{ title: "收款账户 - 砚台" }];

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [account, needsIdentity, flash] = await Promise.all([currentPayoutAccount(user.id), identityNeeded(user.id), takeFlash(request, url)]);
  return data(
    {
      account: account ? { ...account, createdAt: formatShanghai(account.createdAt) } : null,
      enabled: identityEnabled(),
      needsIdentity,
      notice: flash.notice,
    },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: payoutAccountFormSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      const saved = await savePayoutAccount(user.id, submission.value);
      return redirectWithFlash(request, "/income/account", { kind: "success", text: `收款账户已保存：${saved.accountMasked}` });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function PayoutAccount({ actionData }: Route.ComponentProps) {
  const page = useLoaderData<typeof loader>();
  const [form, fields] = useSchemaForm(payoutAccountFormSchema, { id: "payout-account", lastResult: actionData, defaultValue: { kind: "bank" } });
  const busy = useIsPending();
  return (
    <section className="settings-page settings-subpage">
      <p className="settings-back">
        <Link to="/income">← 返回我的收入</Link>
      </p>
      <h1>收款账户</h1>
      <div className="settings-card">
        <FlashMessage notice={page.notice} />
        {page.needsIdentity ? (
          <p className="notice" data-testid="account-identity">
            提现前需要先完成<Link to="/settings/identity">实名认证</Link>，收款账户的户名须与认证姓名一致。
          </p>
        ) : null}
        {page.account ? (
          <dl className="identity-facts" data-testid="payout-account">
            <dt>收款方式</dt>
            <dd>{PAYOUT_ACCOUNT_KIND_LABELS[page.account.kind]}</dd>
            {page.account.bankName ? (
              <>
                <dt>开户银行</dt>
                <dd>{page.account.bankName}</dd>
              </>
            ) : null}
            <dt>账号</dt>
            <dd data-testid="payout-account-number">{page.account.accountMasked}</dd>
            <dt>户名</dt>
            <dd>{page.account.holderMasked}</dd>
            <dt>保存时间</dt>
            <dd>{page.account.createdAt}</dd>
          </dl>
        ) : (
          <p className="muted">尚未添加收款账户，提现前请先添加。</p>
        )}
        {page.enabled ? (
          <Form method="post" {...getFormProps(form)}>
            <h2>{page.account ? "更换收款账户" : "添加收款账户"}</h2>
            <p className="muted">账号加密保存，页面上只显示部分数字；更换后，之后的提现申请付到新账户。</p>
            <label className="field">
              <span>收款方式</span>
              <select {...getSelectProps(fields.kind)} key={fields.kind.key}>
                <option value="bank">银行卡</option>
                <option value="alipay">支付宝</option>
              </select>
              <FieldError field={fields.kind} alert />
            </label>
            <label className="field">
              <span>银行卡号或支付宝账号（手机号或邮箱）</span>
              <input {...getInputProps(fields.account, { type: "text" })} key={fields.account.key} maxLength={254} autoComplete="off" spellCheck={false} />
              <FieldError field={fields.account} alert />
            </label>
            <label className="field">
              <span>开户银行（银行卡必填，如“招商银行北京分行”）</span>
              <input {...getInputProps(fields.bankName, { type: "text" })} key={fields.bankName.key} maxLength={30} />
              <FieldError field={fields.bankName} alert />
            </label>
            <label className="field">
              <span>户名（收款人姓名）</span>
              <input {...getInputProps(fields.holderName, { type: "text" })} key={fields.holderName.key} maxLength={50} autoComplete="name" />
              <FieldError field={fields.holderName} alert />
            </label>
            <FormError form={form} />
            <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="保存中...">
              保存收款账户
            </SubmitButton>
          </Form>
        ) : (
          <p className="notice" data-testid="account-off">
            本站未开启加密存储，暂不能添加收款账户，请联系运营。
          </p>
        )}
      </div>
    </section>
  );
}
