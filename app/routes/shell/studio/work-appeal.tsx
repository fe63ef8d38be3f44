import { getFormProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { userContext } from "~/middleware/guards.server";
import { REVIEW_NOTE_MAX, reviewAppealSchema } from "~/schemas/review";
import { getOwnedWork } from "~/server/catalog/works.server";
import { asRouteError, formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { appealReview } from "~/server/studio/review.server";
import { authorsMeta, workReviewFacts } from "~/server/studio/work-review.server";
import type { Route } from "./+types/work-appeal";

/**
 * 申诉 of a work's information (docs/product.md#review, decision 239): the author asks a 总编辑
 * to look again at a 退回修改 or 拒绝 of their work's title, description, cover and tags, once
 * per decision, while the version sent back is unchanged. The same appeal as a chapter's
 * (appealReview), reached from the note beside the work.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: `申诉《${data?.work.title ?? ""}》的作品信息 - 砚台` }];

export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const review = (await workReviewFacts(user.id, [work.id])).get(work.id)?.sentBack ?? null;
  return { work: { id: work.id, title: authorsMeta(work).title }, review };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const submission = parseWithZod(await readForm(request), { schema: reviewAppealSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      await appealReview(user.id, workId, null, submission.value.note);
      return redirectWithFlash(request, `/works/${workId}/settings`, { kind: "success", text: "申诉已提交，总编辑会尽快处理" });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function WorkAppeal({ actionData }: Route.ComponentProps) {
  const { work, review } = useLoaderData<typeof loader>();
  const [form, fields] = useSchemaForm(reviewAppealSchema, { id: "work-appeal", lastResult: actionData });
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="settings" />
      <h2>申诉《{work.title}》作品信息的审核结果</h2>
      {review ? (
        <p className="chapter-review-note" role="note">
          {review.onAppeal ? "申诉已驳回" : review.status === "returned" ? "审核退回修改" : "审核未通过"}：{review.note}
        </p>
      ) : null}
      {review?.appeal === "open" ? (
        <Form method="post" {...getFormProps(form)} className="studio-form">
          <FormError form={form} />
          <p className="muted">申诉由总编辑处理，每次审核结果只能申诉一次。提交后请不要修改作品设置，保存设置会撤回申诉。</p>
          <label className="field">
            <span>申诉理由（不超过 {REVIEW_NOTE_MAX} 字）</span>
            <textarea {...getTextareaProps(fields.note)} rows={5} maxLength={REVIEW_NOTE_MAX} />
            <FieldError field={fields.note} />
          </label>
          <SubmitButton className="btn btn-primary" pendingLabel="提交中...">
            提交申诉
          </SubmitButton>
        </Form>
      ) : (
        <>
          <FormError form={form} />
          <p className="muted" data-testid="appeal-state">
            {review?.appeal === "pending" ? "申诉已提交，正在等待总编辑处理。" : "这部作品的信息现在没有可以申诉的审核结果。"}
          </p>
        </>
      )}
      <p>
        <Link to={`/works/${work.id}/settings`}>← 返回作品设置</Link>
      </p>
    </section>
  );
}
