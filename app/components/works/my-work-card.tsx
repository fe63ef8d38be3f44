import { Form, Link, useSubmit } from "react-router";
import { WorkCard, type WorkCardData } from "~/components/work-card";
import { FieldError } from "~/components/ui/forms";
import { WorkReviewNote } from "~/components/studio/review-note";
import type { WorkReviewFacts } from "~/types/studio";

/**
 * Where the owner's forms post: the page they are on (a /my-works page with its tab,
 * search and page, or the work's reader page), so a refused action is answered there,
 * by the work, with or without JavaScript.
 */
function actionFor(back: string): string {
  return back.startsWith("/my-works") || /^\/works\/\d+$/.test(back) ? back : "/my-works";
}

function ActionButton({ workId, intent, back, label }: { workId: number; intent: string; back: string; label: string }) {
  return (
    <Form method="post" action={actionFor(back)} className="inline-form">
      <input type="hidden" name="workId" value={workId} />
      <input type="hidden" name="back" value={back} />
      <button type="submit" name="intent" value={intent} className="btn btn-small">
        {label}
      </button>
    </Form>
  );
}

/** The owner's controls on a work (docs/product.md D3), each a plain form. */
export function OwnerControls({
  work,
  back,
  error,
  review,
}: {
  work: WorkCardData & { status: string; takedownReason?: string | null };
  back: string;
  error?: string;
  /** Its title, description, cover and tags under review (decision 214). */
  review?: WorkReviewFacts | null;
}) {
  const submit = useSubmit();
  const paid = work.visibility === "public-vip";
  // A work sold by chapter has no whole price: its pricing page changes it, so the quick
  // whole-price form does not turn it back into 全本 by accident.
  const byChapter = paid && work.price <= 0;
  return (
    <div className="owner-controls">
      {work.takedownReason ? (
        // decision 138: the owner alone sees why; only an administrator can restore it.
        <p className="form-error" role="status" data-testid="takedown-notice">
          {`已被管理员下架：${work.takedownReason}`}
        </p>
      ) : null}
      {review ? <WorkReviewNote review={review} workId={work.id} /> : null}
      {review?.newWork ? null : byChapter ? (
        <Link className="btn btn-small" to={`/works/${work.id}/pricing`}>
          按章定价
        </Link>
      ) : work.visibility !== "private" ? (
        <details className="price-editor" open={Boolean(error)}>
          <summary className="btn btn-small">{paid ? "修改价格" : "设为付费"}</summary>
          {/* noValidate: the browser's own bubble would block 0 or 1.5 with a generic text;
              the server answers with the price rule's message, with or without JavaScript. */}
          <Form method="post" action={actionFor(back)} className="price-form" noValidate>
            <input type="hidden" name="workId" value={work.id} />
            <input type="hidden" name="back" value={back} />
            <label>
              价格（积分）
              <input type="number" name="price" min={1} step={1} defaultValue={paid ? work.price : ""} required inputMode="numeric" />
            </label>
            <button type="submit" name="intent" value="set-price" className="btn btn-primary btn-small">
              确定
            </button>
          </Form>
        </details>
      ) : null}
      {paid ? <ActionButton workId={work.id} intent="make-free" back={back} label="改为免费" /> : null}
      {/* A new work under review goes on its listing when approved (decision 214). */}
      {review?.newWork ? null : work.visibility !== "private" ? (
        <ActionButton workId={work.id} intent="take-down" back={back} label="下架" />
      ) : work.takedownReason ? null : (
        // Taken down by an administrator: only they can restore it (decision 138).
        <ActionButton workId={work.id} intent="put-on-shelf" back={back} label="上架" />
      )}
      {work.type === "series" ? (
        // The author's page of the day for a serial (decision 261).
        <Link className="btn btn-small" to={`/works/${work.id}/desk`}>
          写作台
        </Link>
      ) : null}
      <Link className="btn btn-small" to={`/works/${work.id}/settings`}>
        作品设置
      </Link>
      {work.type === "single_chapter" ? (
        <Link className="btn btn-small" to={`/works/${work.id}/edit`}>
          编辑
        </Link>
      ) : (
        <Link className="btn btn-small" to={`/works/${work.id}/chapters`}>
          章节管理
        </Link>
      )}
      {work.type === "series" && work.status === "ongoing" ? (
        <Link className="btn btn-small" to={`/works/${work.id}/new-chapter`}>
          添加章节
        </Link>
      ) : null}
      <Link
        className="btn btn-small btn-danger"
        to={`/works/${work.id}/delete?back=${encodeURIComponent(back)}`}
        onClick={(event) => {
          event.preventDefault();
          if (window.confirm(`确定要删除《${work.title}》吗？删除后无法恢复。`)) {
            submit({ intent: "delete", workId: String(work.id), back }, { method: "post", action: actionFor(back) });
          }
        }}
      >
        删除
      </Link>
      <FieldError errors={error} alert as="p" />
    </div>
  );
}

export function MyWorkCard({
  work,
  defaultCoverUrl,
  back,
  error,
  review,
}: {
  work: WorkCardData & { takedownReason?: string | null };
  defaultCoverUrl?: string;
  back: string;
  error?: string;
  review?: WorkReviewFacts | null;
}) {
  return (
    <div className="my-work-card">
      {/* Under /my-works' h1. */}
      <WorkCard work={work} defaultCoverUrl={defaultCoverUrl} headingLevel={2} />
      <OwnerControls work={work} back={back} error={error} review={review} />
    </div>
  );
}
