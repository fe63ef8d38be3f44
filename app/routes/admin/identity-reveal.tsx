import { getFormProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link } from "react-router";
import { FieldErrors, FormErrors } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { adminContext } from "~/middleware/guards.server";
import { IDENTITY_DOCUMENT_LABELS, identityRevealSchema, REVEAL_REASON_MAX } from "~/schemas/identity";
import { identityItemView, revealIdentity } from "~/server/admin/identity-queue.server";
import { formErrorsOf, orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import type { Route } from "./+types/identity-reveal";

/**
 * 查看完整信息 (decision 204): a 超级管理员 (this page sits under the super-only layout)
 * gives a reason, the audit log records who, when and why, and the full legal name and
 * document number show once, in the answer to that post (never in a loader, never cached).
 */
export const meta: Route.MetaFunction = () => [{ title: "查看完整实名信息 - 管理后台" }];

export async function loader({ params, context }: Route.LoaderArgs) {
  const item = await orRouteError(() => identityItemView(adminActorOf(context), Number(params.id)));
  return { id: item.id, author: item.author, email: item.email, documentType: item.documentType, nameMasked: item.nameMasked, numberMasked: item.numberMasked };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const { role } = context.get(adminContext);
  const submission = parseWithZod(await readForm(request), { schema: identityRevealSchema });
  if (submission.status !== "success") return data({ reply: submission.reply(), revealed: null }, { status: 400 });
  return replyOnDomainError(
    async () => {
      const revealed = await revealIdentity(adminActorOf(context), role, Number(params.id), submission.value.reason);
      return data({ reply: submission.reply({ resetForm: true }), revealed }, { headers: { "Cache-Control": "no-store" } });
    },
    (error) => ({ reply: submission.reply(formErrorsOf(error)), revealed: null }),
  );
}

export default function IdentityReveal({ loaderData, actionData }: Route.ComponentProps) {
  const item = loaderData;
  const [form, fields] = useSchemaForm(identityRevealSchema, { id: "identity-reveal", lastResult: actionData?.reply });
  const revealed = actionData?.revealed;
  return (
    <section className="admin-page">
      <p>
        <Link to={`/admin/identity/${item.id}`}>← 返回实名认证 #{item.id}</Link>
      </p>
      <h1>查看完整实名信息</h1>
      <FormErrors form={form} />
      <dl className="admin-facts">
        <dt>作者</dt>
        <dd className="admin-break">
          {item.author} · {item.email}
        </dd>
        <dt>证件类型</dt>
        <dd>{IDENTITY_DOCUMENT_LABELS[item.documentType]}</dd>
        <dt>姓名</dt>
        <dd data-testid="reveal-name">{revealed ? revealed.legalName : item.nameMasked}</dd>
        <dt>证件号码</dt>
        <dd data-testid="reveal-number">{revealed ? revealed.documentNumber : item.numberMasked}</dd>
      </dl>
      {revealed ? (
        <p className="hint">完整信息仅本次显示，本次查看已记入操作日志。</p>
      ) : (
        <Form method="post" {...getFormProps(form)} className="admin-card">
          <label className="field">
            <span>查看原因（必填，将记入操作日志；不超过 {REVEAL_REASON_MAX} 字）</span>
            <textarea {...getTextareaProps(fields.reason)} rows={3} maxLength={REVEAL_REASON_MAX} />
            <FieldErrors field={fields.reason} />
          </label>
          <SubmitButton className="btn btn-primary">查看完整信息</SubmitButton>
        </Form>
      )}
    </section>
  );
}
