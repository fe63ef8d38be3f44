import { getFormProps, getTextareaProps, type SubmissionResult } from "@conform-to/react";
import { Form, Link } from "react-router";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { REVIEW_NOTE_MAX, reviewAppealSchema } from "~/schemas/review";
import type { ReviewNoteFacts } from "~/types/studio";

/**
 * The body of a 申诉 page (docs/product.md#review): a chapter's (decision 206) or a work's
 * information (decision 239). The decision appealed, then the reason's form while it may be
 * appealed once, or where the appeal stands; the way back.
 */
export function ReviewAppeal(props: {
  formId: string;
  heading: string;
  /** The decision sent back, if any; `decidedAt` as the one formatter wrote it. */
  review: (Pick<ReviewNoteFacts, "status" | "note" | "onAppeal" | "appeal"> & { decidedAt?: string }) | null;
  /** What the author must leave unchanged while the appeal waits. */
  keepUnchanged: string;
  /** When there is nothing to appeal. */
  nothingToAppeal: string;
  back: { href: string; label: string };
  lastResult?: SubmissionResult<string[]> | null;
}) {
  const { review } = props;
  const [form, fields] = useSchemaForm(reviewAppealSchema, { id: props.formId, lastResult: props.lastResult });
  return (
    <>
      <h2>{props.heading}</h2>
      {review ? (
        <p className="chapter-review-note" role="note">
          {review.onAppeal ? "申诉已驳回" : review.status === "returned" ? "审核退回修改" : "审核未通过"}
          {review.decidedAt ? `（${review.decidedAt}）` : ""}：{review.note}
        </p>
      ) : null}
      {review?.appeal === "open" ? (
        <Form method="post" {...getFormProps(form)} className="studio-form">
          <FormError form={form} />
          <p className="muted">申诉由总编辑处理，每次审核结果只能申诉一次。{props.keepUnchanged}</p>
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
            {review?.appeal === "pending" ? "申诉已提交，正在等待总编辑处理。" : props.nothingToAppeal}
          </p>
        </>
      )}
      <p>
        <Link to={props.back.href}>{props.back.label}</Link>
      </p>
    </>
  );
}
