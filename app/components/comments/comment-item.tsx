import { useEffect, useRef } from "react";
import { Form, useFetcher } from "react-router";
import { FieldError, FormTokenField } from "~/components/ui/forms";
import { ItemAction, ReportDetails } from "./thread-parts";
import { COMMENT_MAX_CHARS, REPORT_MAX_CHARS } from "~/schemas/comment-rules";
import type { CommentView } from "~/types/comments";
import { formatShanghai } from "~/utils/shanghai-time";
import { useIsPending } from "~/components/ui/use-is-pending";

/** A comment as the thread loader gives it. */
export type CommentItemData = CommentView;

/** What the comments action answers: an error for one comment (or the post form), or success in a dialog. */
export interface CommentAnswer {
  error?: string;
  comment?: number | null;
  ok?: boolean;
  intent?: string;
}

/**
 * One comment with its actions (赞, 回复, 举报, and the author's 隐藏 and 禁言), each a plain
 * form to the thread's address. On the thread page they post and redirect; inside the
 * reader's thread dialog (`inDialog`) each posts through its own fetcher with
 * `enhanced=1`, gets data back, and the dialog's thread reloads (decision 101). The reply
 * form carries its one-time token (`replyToken`, decision 077), new with each load.
 */
function CommentItem({
  c,
  signedIn,
  isOwner,
  action,
  answer,
  replyToken,
  reply = false,
  inDialog = false,
  mayReply = true,
}: {
  c: CommentItemData;
  signedIn: boolean;
  /** False while the reader must bind a phone first (decision 235): no reply box. */
  mayReply?: boolean;
  isOwner: boolean;
  action: string;
  answer?: CommentAnswer;
  replyToken?: string;
  reply?: boolean;
  inDialog?: boolean;
}) {
  const fetcher = useFetcher<CommentAnswer>();
  const F = inDialog ? fetcher.Form : Form;
  const own = inDialog ? fetcher.data : answer?.comment === c.id ? answer : undefined;
  const error = own?.error;
  // Each form's hidden fields: what to do, to which comment, on or off; `enhanced` in the dialog.
  const fields = (intent: string, on?: boolean) => (
    <>
      {inDialog ? <input type="hidden" name="enhanced" value="1" /> : null}
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="comment" value={c.id} />
      {on === undefined ? null : <input type="hidden" name="on" value={on ? "1" : "0"} />}
    </>
  );
  const busy = useIsPending({ fetcher, state: "non-idle" });
  // A reply sent from the dialog clears its box (the page's own form is a new page).
  const replyForm = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok && fetcher.data.intent === "reply") replyForm.current?.reset();
  }, [fetcher.state, fetcher.data]);
  return (
    <article id={`c-${c.id}`} className={`comment${c.hidden ? " comment-hidden" : ""}${c.tipAmount ? " comment-tip" : ""}`} data-testid="comment">
      <header className="comment-head">
        <span className="comment-author">{c.author.nickname}</span>
        {c.byWorkAuthor ? <span className="badge comment-author-badge">作者</span> : null}
        {c.fanLevel ? (
          <span className="badge comment-fan-level" data-testid="comment-fan-level" title="粉丝等级">
            {c.fanLevel}
          </span>
        ) : null}
        {c.tipAmount ? <span className="badge comment-tip-badge">打赏</span> : null}
        {c.hidden ? <span className="badge">已隐藏</span> : null}
        {c.held ? (
          <span className="badge" data-testid="comment-held">
            {c.held === "pending" ? "审核中，仅自己可见" : "未通过审核，仅自己可见"}
          </span>
        ) : null}
        <time dateTime={c.createdAt} className="muted">
          {formatShanghai(c.createdAt)}
        </time>
      </header>
      {c.quote ? (
        <blockquote className="comment-quote comment-quote-small" title="这段文字已被作者修改">
          {c.quote}
        </blockquote>
      ) : null}
      {c.tipAmount ? (
        <p className="comment-body" data-testid="tip-notice">
          <strong>打赏了 {c.tipAmount} 积分</strong>
          {c.body ? `：${c.body}` : ""}
        </p>
      ) : (
        <p className="comment-body">{c.body}</p>
      )}
      <div className="comment-actions">
        {signedIn ? (
          <ItemAction form={F} action={action} fields={fields("like", !c.liked)} busy={busy} pressed={c.liked}>
            赞 {c.likeCount}
          </ItemAction>
        ) : (
          <span className="muted">赞 {c.likeCount}</span>
        )}
        {signedIn && mayReply && !reply && !c.hidden && !c.held ? (
          <details className="comment-more">
            <summary className="btn btn-small">回复{c.replyCount > 0 ? ` ${c.replyCount}` : ""}</summary>
            <F method="post" action={action} className="comment-form" ref={replyForm}>
              {fields("reply")}
              {replyToken ? <FormTokenField token={replyToken} /> : null}
              <label>
                <span className="sr-only">回复内容</span>
                <textarea name="body" rows={2} maxLength={COMMENT_MAX_CHARS} required placeholder={`回复 ${c.author.nickname}`} />
              </label>
              <button type="submit" className="btn btn-small btn-primary" disabled={busy}>
                回复
              </button>
            </F>
          </details>
        ) : null}
        {signedIn && !c.mine ? (
          <ReportDetails form={F} action={action} fields={fields("report")} maxLength={REPORT_MAX_CHARS} busy={busy} />
        ) : null}
        {isOwner && !c.held ? (
          <>
            <ItemAction form={F} action={action} fields={fields("hide", !c.hidden)} busy={busy}>
              {c.hidden ? "取消隐藏" : "隐藏"}
            </ItemAction>
            {!c.mine ? (
              <ItemAction form={F} action={action} fields={fields("mute", true)} busy={busy}>
                禁言此用户
              </ItemAction>
            ) : null}
          </>
        ) : null}
      </div>
      {inDialog && own?.ok && own.intent === "report" ? (
        <p role="status" className="notice">
          举报已收到，我们会尽快处理。
        </p>
      ) : null}
      {inDialog && own?.ok && own.intent === "mute" ? (
        <p role="status" className="notice">
          已禁言该用户，可在“评论禁言”中解除。
        </p>
      ) : null}
      <FieldError errors={error} alert as="p" />
    </article>
  );
}

/** A thread's comments with their replies (楼中楼), one level deep. */
export function CommentList(props: {
  comments: CommentItemData[];
  signedIn: boolean;
  mayReply?: boolean;
  isOwner: boolean;
  action: string;
  answer?: CommentAnswer;
  /** The reply forms' one-time tokens, by comment id. */
  replyTokens?: Record<number, string>;
  inDialog?: boolean;
}) {
  const { comments, replyTokens, ...rest } = props;
  return (
    <ol className="comment-list" data-testid="comment-list">
      {comments.map((c) => (
        <li key={c.id}>
          <CommentItem c={c} {...rest} replyToken={replyTokens?.[c.id]} />
          {c.replies.length > 0 ? (
            <ol className="comment-replies" aria-label="回复">
              {c.replies.map((r) => (
                <li key={r.id}>
                  <CommentItem c={r} {...rest} reply />
                </li>
              ))}
            </ol>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
