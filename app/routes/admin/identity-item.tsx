import { getFormProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { ClaimForm, FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { adminContext } from "~/middleware/guards.server";
import { IDENTITY_DOCUMENT_LABELS, IDENTITY_NOTE_MAX, IDENTITY_STATUS_LABELS, identityDecisionSchema } from "~/schemas/identity";
import { claimIdentity, decideIdentity, identityItemView } from "~/server/admin/identity-queue.server";
import { formErrorsOf, orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/identity-item";

/**
 * One identity submission (docs/product.md#author-identity): masked values, 领取, and
 * 通过 / 退回 with a reason the author reads. A 超级管理员 also gets 查看完整信息.
 */
export const meta: Route.MetaFunction = () => [{ title: "实名审核 - 管理后台" }];

export async function loader({ params, context }: Route.LoaderArgs) {
  const { role } = context.get(adminContext);
  const item = await orRouteError(() => identityItemView(adminActorOf(context), Number(params.id)));
  return {
    item: { ...item, submittedAt: formatShanghai(item.submittedAt), decidedAt: item.decidedAt ? formatShanghai(item.decidedAt) : null },
    canReveal: role === "super",
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const id = Number(params.id);
  const submission = parseWithZod(await readForm(request), { schema: identityDecisionSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const value = submission.value;
  return replyOnDomainError(
    async () => {
      if (value.intent === "claim") {
        await claimIdentity(actor, id);
        return redirect(`/admin/identity/${id}?notice=identity-claimed`);
      }
      const outcome = await decideIdentity(actor, id, value.decision, value.note);
      return redirect(`/admin/identity?notice=identity-${outcome}`);
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function IdentityItem({ loaderData, actionData }: Route.ComponentProps) {
  const { item, canReveal } = loaderData;
  const [form, fields] = useSchemaForm(identityDecisionSchema, { id: "identity-decision", lastResult: actionData });
  const pending = item.status === "pending";
  const canDecide = pending && (item.claimedByMe || !item.claimedBy);
  return (
    <section className="admin-page">
      <p>
        <Link to="/admin/identity">← 返回实名审核</Link>
      </p>
      <h1>实名认证 #{item.id}</h1>
      <QueryNotice />
      <FormErrors form={form} />
      <dl className="admin-facts" data-testid="identity-facts">
        <dt>作者</dt>
        <dd className="admin-break">
          {item.author} · {item.email}
        </dd>
        <dt>状态</dt>
        <dd>{IDENTITY_STATUS_LABELS[item.status]}</dd>
        <dt>证件类型</dt>
        <dd>{IDENTITY_DOCUMENT_LABELS[item.documentType]}</dd>
        <dt>姓名</dt>
        <dd data-testid="identity-name">{item.nameMasked}</dd>
        <dt>证件号码</dt>
        <dd data-testid="identity-number">{item.numberMasked}</dd>
        <dt>提交时间</dt>
        <dd>{item.submittedAt}</dd>
        <dt>领取</dt>
        <dd>{item.claimedByMe ? "由你领取" : (item.claimedBy ?? "未领取")}</dd>
        {item.decidedAt ? (
          <>
            <dt>处理</dt>
            <dd>
              {item.decidedBy ?? item.verifier} · {item.decidedAt}
              {item.note ? `：${item.note}` : ""}
            </dd>
          </>
        ) : null}
      </dl>
      {canReveal ? (
        <p>
          <Link to={`/admin/identity/${item.id}/reveal`}>查看完整信息（需填写原因，将记入操作日志）</Link>
        </p>
      ) : null}
      {pending && !item.claimedByMe ? (
        <ClaimForm intent="claim" label="领取" />
      ) : null}
      {canDecide ? (
        <Form method="post" {...getFormProps(form)} className="admin-card">
          <input type="hidden" name="intent" value="decide" />
          <label className="field">
            <span>原因（退回时必填，作者会看到；不超过 {IDENTITY_NOTE_MAX} 字）</span>
            <textarea {...getTextareaProps(fields.note)} rows={3} maxLength={IDENTITY_NOTE_MAX} />
            <FieldErrors field={fields.note} />
          </label>
          <div className="admin-inline-form">
            <SubmitButton name="decision" value="approve" className="btn btn-primary">
              通过
            </SubmitButton>
            <SubmitButton name="decision" value="reject" className="btn btn-danger">
              退回
            </SubmitButton>
          </div>
        </Form>
      ) : null}
    </section>
  );
}
