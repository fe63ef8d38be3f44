import { getFormProps, getInputProps, getSelectProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData } from "react-router";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { userContext } from "~/middleware/guards.server";
import {
  IDENTITY_DOCUMENT_LABELS,
  IDENTITY_DOCUMENTS,
  IDENTITY_MIN_AGE,
  IDENTITY_STATUS_LABELS,
  identitySubmitSchema,
  LEGAL_NAME_MAX,
} from "~/schemas/identity";
import { authorIdentity, submitIdentity } from "~/server/identity/author-identity.server";
import { formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { FlashMessage } from "~/components/ui/flash-message";
import { readForm } from "~/server/platform/form-data.server";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/identity";

/**
 * 实名认证 (docs/product.md#author-identity, decision 204): the author's status (未提交,
 * 审核中, 已通过, 已退回 with the reason), the form while none waits or passed, and the
 * masked values after a submission. Without IDENTITY_KEY the page says the feature is off.
 */
export const meta: Route.MetaFunction = () => [{ title: "实名认证 - 砚台" }];

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [identity, flash] = await Promise.all([authorIdentity(user.id), takeFlash(request, url)]);
  return data(
    {
      ...identity,
      submittedAt: identity.submittedAt ? formatShanghai(identity.submittedAt) : null,
      decidedAt: identity.decidedAt ? formatShanghai(identity.decidedAt) : null,
      notice: flash.notice,
    },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: identitySubmitSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      const status = await submitIdentity(user.id, submission.value);
      const text = status === "approved" ? "实名认证已通过" : status === "rejected" ? "实名认证未通过" : "实名认证已提交，等待审核";
      return redirectWithFlash(request, "/settings/identity", { kind: "success", text });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function Identity({ actionData }: Route.ComponentProps) {
  const identity = useLoaderData<typeof loader>();
  const [form, fields] = useSchemaForm(identitySubmitSchema, { id: "identity", lastResult: actionData, defaultValue: { documentType: "resident_id" } });
  const busy = useIsPending();
  const canSubmit = identity.enabled && (identity.status === "none" || identity.status === "rejected");
  return (
    <SettingsSubPage title="实名认证">
      <FlashMessage notice={identity.notice} />
      {!identity.enabled ? (
        <p className="notice" data-testid="identity-off">
          实名认证未开启。
        </p>
      ) : null}
      <dl className="identity-facts" data-testid="identity-status">
        <dt>状态</dt>
        <dd>{IDENTITY_STATUS_LABELS[identity.status]}</dd>
        {identity.status !== "none" ? (
          <>
            <dt>证件类型</dt>
            <dd>{identity.documentType ? IDENTITY_DOCUMENT_LABELS[identity.documentType] : ""}</dd>
            <dt>姓名</dt>
            <dd data-testid="identity-name">{identity.nameMasked}</dd>
            <dt>证件号码</dt>
            <dd data-testid="identity-number">{identity.numberMasked}</dd>
            <dt>提交时间</dt>
            <dd>{identity.submittedAt}</dd>
          </>
        ) : null}
        {identity.status === "rejected" ? (
          <>
            <dt>退回原因</dt>
            <dd data-testid="identity-note">{identity.note}</dd>
          </>
        ) : null}
      </dl>
      {canSubmit ? (
        <Form method="post" {...getFormProps(form)}>
          <p className="muted">
            开通 VIP 章节和申请提现前需要完成实名认证。作者须年满 {IDENTITY_MIN_AGE} 周岁；证件信息加密保存，页面上只显示部分字符。
          </p>
          <label className="field">
            <span>证件类型</span>
            <select {...getSelectProps(fields.documentType)} key={fields.documentType.key}>
              {IDENTITY_DOCUMENTS.map((d) => (
                <option key={d} value={d}>
                  {IDENTITY_DOCUMENT_LABELS[d]}
                </option>
              ))}
            </select>
            <FieldError field={fields.documentType} alert />
          </label>
          <label className="field">
            <span>真实姓名</span>
            <input {...getInputProps(fields.legalName, { type: "text" })} key={fields.legalName.key} maxLength={LEGAL_NAME_MAX} autoComplete="name" />
            <FieldError field={fields.legalName} alert />
          </label>
          <label className="field">
            <span>证件号码</span>
            <input {...getInputProps(fields.documentNumber, { type: "text" })} key={fields.documentNumber.key} maxLength={30} autoComplete="off" spellCheck={false} />
            <FieldError field={fields.documentNumber} alert />
          </label>
          <label className="field">
            <span>出生日期（护照、通行证必填）</span>
            <input {...getInputProps(fields.birthDate, { type: "date" })} key={fields.birthDate.key} />
            <FieldError field={fields.birthDate} alert />
          </label>
          <FormError form={form} />
          <div className="form-actions">
            <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="提交中...">
              提交认证
            </SubmitButton>
            <Link className="btn" to="/settings">
              取消
            </Link>
          </div>
        </Form>
      ) : null}
    </SettingsSubPage>
  );
}
