import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { reviewPolicySchema } from "~/schemas/review";
import { saveReviewPolicy } from "~/server/admin/review-queue.server";
import { orRouteError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { readReviewPolicy } from "~/server/studio/review.server";
import type { Route } from "./+types/review";

/** 审核规则 (先审后发, docs/product.md#review): 总编辑 and 超级管理员 (routes/admin/chief-only.tsx). */
export const meta: Route.MetaFunction = () => [{ title: "审核规则 - 管理后台" }];

export async function loader() {
  const policy = await readReviewPolicy();
  return {
    newAuthors: policy.newAuthors,
    trustedAfter: String(policy.trustedAfter),
    aiWorks: policy.aiWorks,
    unsignedAuthors: policy.unsignedAuthors,
    samplePercent: String(policy.samplePercent),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  return orRouteError(async () => {
    const submission = parseWithZod(await readForm(request), { schema: reviewPolicySchema });
    if (submission.status !== "success") return data(submission.reply(), { status: 400 });
    await saveReviewPolicy(adminActorOf(context), submission.value);
    return redirect("/admin/settings/review?notice=saved");
  });
}

export default function ReviewPolicySettings({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(reviewPolicySchema, {
    id: "review-policy",
    lastResult: actionData,
    defaultValue: {
      newAuthors: loaderData.newAuthors ? "on" : undefined,
      trustedAfter: loaderData.trustedAfter,
      aiWorks: loaderData.aiWorks ? "on" : undefined,
      unsignedAuthors: loaderData.unsignedAuthors ? "on" : undefined,
      samplePercent: loaderData.samplePercent,
    },
  });
  return (
    <section className="admin-page">
      <p>
        <Link to="/admin/review">← 返回审核队列</Link>
      </p>
      <h1>审核规则</h1>
      <QueryNotice />
      <FormErrors form={form} />
      <Form method="post" {...getFormProps(form)} className="admin-card">
        <label className="checkbox-field">
          <input {...getInputProps(fields.newAuthors, { type: "checkbox" })} />
          <span>新作者先审后发：已发布章节少于下面数量的作者，章节须审核通过后才对读者可见</span>
        </label>
        <label className="field">
          <span>免审所需的已发布章节数（0 表示不按章节数审核）</span>
          <input {...getInputProps(fields.trustedAfter, { type: "text" })} inputMode="numeric" />
          <FieldErrors field={fields.trustedAfter} />
        </label>
        <label className="checkbox-field">
          <input {...getInputProps(fields.aiWorks, { type: "checkbox" })} />
          <span>标注 AI 的作品一律先审后发</span>
        </label>
        <label className="checkbox-field">
          <input {...getInputProps(fields.unsignedAuthors, { type: "checkbox" })} />
          <span>未签约作者先审后发：签约状态为“未签约”的作者，无论已发布多少章节，章节都须审核通过（签约在用户详情中设置）</span>
        </label>
        <label className="field">
          <span>跟踪审读抽样比例（%）：免审作者发布的章节按此比例抽入审核队列，含词库词语的章节一律抽入</span>
          <input {...getInputProps(fields.samplePercent, { type: "text" })} inputMode="numeric" />
          <FieldErrors field={fields.samplePercent} />
        </label>
        <p className="admin-muted">运营可在用户详情中把个别作者加入先审名单，无论其已发布多少章节。</p>
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
    </section>
  );
}
