import { useEffect, useRef, useState } from "react";
import { Link, useFetcher, useLocation } from "react-router";
import { PhoneNeeded } from "./phone-needed";
import { authHref } from "~/components/shell/auth-links";
import { Dialog } from "~/components/ui/dialog";
import { FieldError, FormTokenField } from "~/components/ui/forms";
import { COMMENT_MAX_CHARS } from "~/schemas/comment-rules";
import type { ThreadDialogData } from "~/types/comments";
import { CommentList, type CommentAnswer } from "./comment-item";
import { threadHref } from "./comment-links";
import { announceCommentsChanged, useCommentsChanged } from "./live-comments";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * A paragraph's 段评 in the one dialog (decision 050), opened from its bubble in the
 * reader with JavaScript (`?thread=<index>` on the chapter's address, decision 101): the
 * paragraph quoted, the thread loaded through a fetcher from the thread page's loader,
 * posting and replying through fetchers to the thread page's action, so the chapter
 * behind stays as it was. It reloads when the chapter's comments change (live events).
 * Without JavaScript the bubble opens the thread page instead.
 */
export function ThreadDialog({
  workId,
  order,
  chapterId,
  paragraph,
  closeHref,
}: {
  workId: number;
  order: number;
  chapterId: number;
  paragraph: number;
  closeHref: string;
}) {
  const location = useLocation();
  const [sort, setSort] = useState<"hot" | "new">("hot");
  const pageHref = threadHref(workId, order, paragraph);
  const href = threadHref(workId, order, paragraph, sort === "new" ? { sort, dialog: "1" } : { dialog: "1" });
  const thread = useFetcher<ThreadDialogData>();
  const post = useFetcher<CommentAnswer>();
  const posting = useIsPending({ fetcher: post, state: "non-idle" });
  const load = useRef(thread.load);
  load.current = thread.load;

  useEffect(() => {
    void load.current(href);
  }, [href]);
  useCommentsChanged(chapterId, () => {
    if (thread.state === "idle") void load.current(href);
  });

  // A post that went through clears the box and updates the bubbles at once.
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (post.state !== "idle" || !post.data?.ok) return;
    form.current?.reset();
    announceCommentsChanged({ chapterId, paragraph });
  }, [post.state, post.data, chapterId, paragraph]);

  const t = thread.data;
  // Focus goes in once the thread is there: to the box to write in, else the dialog itself.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const focused = useRef(false);
  useEffect(() => {
    if (!t || focused.current) return;
    focused.current = true;
    const box = document.getElementById("thread-dialog-body");
    const dialog = document.querySelector<HTMLElement>("dialog.thread-dialog");
    if (box) box.focus();
    else if (dialog && !dialog.contains(document.activeElement)) dialog.focus();
  }, [t]);
  const title = `第 ${paragraph + 1} 段的段评`;
  return (
    <Dialog title={title} closeHref={closeHref} className="thread-dialog">
      {!t ? (
        <p role="status" className="muted">
          加载中…{hydrated ? null : <Link to={pageHref}>打开段评页面</Link>}
        </p>
      ) : "dialogError" in t ? (
        <p role="alert">{t.dialogError}</p>
      ) : (
        <>
          {t.paragraph ? (
            <blockquote className="comment-quote" data-testid="quoted-paragraph">
              {t.paragraph.text}
            </blockquote>
          ) : null}
          {t.signedIn && t.phoneNeeded ? (
            <PhoneNeeded />
          ) : t.signedIn ? (
            <post.Form method="post" action={href} className="comment-form" aria-label="写段评" ref={form}>
              <input type="hidden" name="enhanced" value="1" />
              <input type="hidden" name="intent" value="post" />
              {t.formTokens ? <FormTokenField token={t.formTokens.post} /> : null}
              <label htmlFor="thread-dialog-body" className="sr-only">
                评论内容
              </label>
              <textarea
                id="thread-dialog-body"
                name="body"
                rows={3}
                maxLength={COMMENT_MAX_CHARS}
                required
                placeholder="说说你对这一段的看法"
              />
              <FieldError errors={post.data?.error} alert as="p" />
              <SubmitButton className="btn btn-primary" pending={posting} pendingLabel="发表中...">
                发表
              </SubmitButton>
            </post.Form>
          ) : (
            <p className="comment-login">
              <Link to={authHref(location, "login")}>登录</Link>后发表评论
            </p>
          )}
          <div className="comment-sort" role="group" aria-label="排序">
            <button type="button" className="btn btn-small" aria-pressed={sort === "hot"} onClick={() => setSort("hot")}>
              热门
            </button>
            <button type="button" className="btn btn-small" aria-pressed={sort === "new"} onClick={() => setSort("new")}>
              最新
            </button>
            <span className="muted">共 {t.total} 条</span>
          </div>
          {t.comments.length === 0 ? <p className="muted">还没有评论。</p> : null}
          <CommentList comments={t.comments} signedIn={t.signedIn} mayReply={!t.phoneNeeded} isOwner={t.isOwner} action={href} replyTokens={t.formTokens?.replies} inDialog />
          {t.pageCount > 1 ? (
            <p>
              <Link to={pageHref}>查看全部 {t.total} 条</Link>
            </p>
          ) : null}
        </>
      )}
    </Dialog>
  );
}
