import { Form } from "react-router";
import { ItemAction, ReportDetails } from "~/components/comments/thread-parts";
import { FieldError } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";
import { REVIEW_MAX_CHARS, REVIEW_MIN_CHARS, REVIEW_REPLY_MAX_CHARS, REVIEW_REPORT_MAX_CHARS } from "~/schemas/book-review-rules";
import type { BookReviewView, RatingSummary } from "~/types/book-reviews";
import { formatShanghai } from "~/utils/shanghai-time";

/** What the 书评区's action answers on a refusal: the message, and the review it was about (null: the write form). */
export interface ReviewAnswer {
  error: string;
  review: number | null;
}

/** 评分 8.6（12 人评分）, or 评分人数不足 below the minimum (decision 211). */
export function RatingLine({ summary }: { summary: RatingSummary }) {
  return (
    <p className="review-summary" data-testid="rating-summary">
      {summary.average !== null ? (
        <>
          评分 <strong className="review-average">{summary.average.toFixed(1)}</strong>
          <span className="muted">（{summary.count} 人评分）</span>
        </>
      ) : (
        <>
          评分人数不足<span className="muted">（{summary.count} 人评分，满 {summary.min} 人显示平均分）</span>
        </>
      )}
    </p>
  );
}

/** The rating and text fields of 写书评 and 修改书评: a select of 1-10 works on every phone without JavaScript. */
export function ReviewFields({ rating, body }: { rating?: number; body?: string }) {
  return (
    <>
      <label>
        评分
        <select name="rating" required defaultValue={rating ? String(rating) : ""}>
          <option value="" disabled>
            请选择 1-10 分
          </option>
          {Array.from({ length: 10 }, (_, i) => 10 - i).map((n) => (
            <option key={n} value={n}>
              {n} 分
            </option>
          ))}
        </select>
      </label>
      <label>
        书评内容
        <textarea
          name="body"
          rows={6}
          minLength={REVIEW_MIN_CHARS}
          maxLength={REVIEW_MAX_CHARS}
          required
          defaultValue={body}
          placeholder={`说说你对这部作品的看法（${REVIEW_MIN_CHARS}-${REVIEW_MAX_CHARS} 字）`}
        />
      </label>
    </>
  );
}

/**
 * One review with its actions, each a plain form to the 书评区's address (POST, redirect,
 * GET): 赞 and 举报 for readers; 精华, 置顶 and 回复 for the work's author.
 */
export function ReviewItem({
  r,
  signedIn,
  isOwner,
  action,
  answer,
  anchor = `r-${r.id}`,
}: {
  r: BookReviewView;
  signedIn: boolean;
  isOwner: boolean;
  action: string;
  answer?: ReviewAnswer;
  /** The element's id: the list's `r-<id>`, or another for the reader's own copy above it. */
  anchor?: string;
}) {
  const busy = useIsPending();
  const fields = (intent: string, on?: boolean) => (
    <>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="review" value={r.id} />
      {on === undefined ? null : <input type="hidden" name="on" value={on ? "1" : "0"} />}
    </>
  );
  const error = answer?.review === r.id ? answer.error : undefined;
  return (
    <article id={anchor} className={`comment book-review${r.hidden ? " comment-hidden" : ""}`} data-testid="book-review">
      <header className="comment-head">
        <span className="comment-author">{r.author.nickname}</span>
        <span className="review-rating">
          <span className="sr-only">评分 </span>
          {r.rating} 分
        </span>
        {r.pinned ? <span className="badge">置顶</span> : null}
        {r.featured ? <span className="badge badge-featured">精华</span> : null}
        {r.hidden ? <span className="badge">已被隐藏，仅自己可见</span> : null}
        <time dateTime={r.createdAt} className="muted">
          {formatShanghai(r.createdAt)}
          {r.edited ? "（已修改）" : ""}
        </time>
      </header>
      <p className="comment-body">{r.body}</p>
      {r.authorReply ? (
        <blockquote className="comment-quote review-reply" data-testid="author-reply">
          <strong>作者回复：</strong>
          {r.authorReply.body}
        </blockquote>
      ) : null}
      <div className="comment-actions">
        {signedIn && !r.hidden ? (
          <ItemAction form={Form} action={action} fields={fields("like", !r.liked)} busy={busy} pressed={r.liked}>
            赞 {r.likeCount}
          </ItemAction>
        ) : (
          <span className="muted">赞 {r.likeCount}</span>
        )}
        {signedIn && !r.mine && !r.hidden ? (
          <ReportDetails form={Form} action={action} fields={fields("report")} maxLength={REVIEW_REPORT_MAX_CHARS} busy={busy} />
        ) : null}
        {isOwner && !r.hidden ? (
          <>
            <ItemAction form={Form} action={action} fields={fields("feature", !r.featured)} busy={busy}>
              {r.featured ? "取消精华" : "设为精华"}
            </ItemAction>
            <ItemAction form={Form} action={action} fields={fields("pin", !r.pinned)} busy={busy}>
              {r.pinned ? "取消置顶" : "置顶"}
            </ItemAction>
            <details className="comment-more" open={Boolean(error)}>
              <summary className="btn btn-small">{r.authorReply ? "编辑回复" : "回复"}</summary>
              <Form method="post" action={action} className="comment-form">
                {fields("reply")}
                <label>
                  <span className="sr-only">回复内容</span>
                  <textarea name="body" rows={3} maxLength={REVIEW_REPLY_MAX_CHARS} required defaultValue={r.authorReply?.body} placeholder="作者的回复，每条书评一条" />
                </label>
                <button type="submit" className="btn btn-small btn-primary" disabled={busy}>
                  {r.authorReply ? "保存回复" : "发表回复"}
                </button>
              </Form>
            </details>
          </>
        ) : null}
      </div>
      <FieldError errors={error} alert as="p" />
    </article>
  );
}
