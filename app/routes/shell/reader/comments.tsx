import { data, Form, isRouteErrorResponse, Link, redirect, useLocation } from "react-router";
import { threadHref } from "~/components/comments/comment-links";
import { authHref } from "~/components/shell/auth-links";
import { FieldError } from "~/components/ui/forms";
import { COMMENT_MAX_CHARS, REPORT_MAX_CHARS } from "~/schemas/comments";
import {
  COMMENT_MESSAGES,
  listComments,
  parseCommentId,
  parseParagraph,
  parseSort,
  postComment,
  reportComment,
  setHidden,
  setLike,
  setMuted,
  type CommentView,
} from "~/server/comments.server";
import { asRouteError, replyOnDomainError } from "~/server/errors.server";
import { readForm } from "~/server/form-data.server";
import { parseChapterOrder } from "~/server/reading.server";
import { getSessionUser, loginRedirectUrl } from "~/server/session.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/comments";

/**
 * `/works/:id/comments?chapter=<order>[&p=<paragraph>]`: a chapter's 本章说, or one
 * paragraph's 段评 with the paragraph quoted; posting, replying, liking, reporting and
 * the author's hide and mute are plain forms answered here (POST, redirect, GET), so the
 * page works without JavaScript (decision 090).
 */
export const meta: Route.MetaFunction = ({ data }) => [
  { title: data ? `${data.paragraph ? "段评" : "本章说"} - ${data.chapter.title} - ${data.work.title}` : "评论" },
];

export async function loader({ request, url, params }: Route.LoaderArgs) {
  const order = parseChapterOrder(url.searchParams.get("chapter"));
  if (order === null) throw data(COMMENT_MESSAGES.chapterMissing, { status: 404 });
  const viewer = await getSessionUser(request);
  const sort = parseSort(url.searchParams.get("sort"));
  const thread = await listComments(viewer, Number(params.id), order, {
    paragraph: parseParagraph(url.searchParams.get("p")),
    sort,
    page: parsePage(url.searchParams.get("page")),
  }).catch(asRouteError);
  return { ...thread, sort, signedIn: Boolean(viewer) };
}

export async function action({ request, url, params }: Route.ActionArgs) {
  const user = await getSessionUser(request);
  if (!user) throw redirect(loginRedirectUrl(url));
  const form = await readForm(request);
  const intent = form.get("intent");
  const workId = Number(params.id);
  const order = parseChapterOrder(url.searchParams.get("chapter"));
  const id = parseCommentId(form.get("comment"));
  const here = url.pathname + url.search;
  return replyOnDomainError(
    async () => {
      switch (intent) {
        case "post":
        case "reply": {
          if (order === null) return data({ error: COMMENT_MESSAGES.chapterMissing, comment: null }, { status: 404 });
          const posted = await postComment(user, {
            workId,
            order,
            paragraph: intent === "post" ? parseParagraph(url.searchParams.get("p")) : null,
            parentId: intent === "reply" ? id : null,
            body: form.get("body"),
          });
          return redirect(`${here}#c-${posted.id}`);
        }
        case "like":
          await setLike(user, id, form.get("on") === "1");
          break;
        case "hide":
          await setHidden(user, id, form.get("on") === "1");
          break;
        case "mute":
          await setMuted(user, id, form.get("on") === "1");
          break;
        case "report":
          await reportComment(user, id, form.get("reason"));
          return redirect(`${here}${here.includes("?") ? "&" : "?"}reported=1#c-${id}`);
        default:
          return data({ error: "未知操作", comment: null }, { status: 400 });
      }
      return redirect(`${here}#c-${id}`);
    },
    (error) => ({ error: error.message, comment: intent === "post" ? null : id || null }),
  );
}

type ThreadData = Route.ComponentProps["loaderData"];

export default function CommentsPage({ loaderData, actionData }: Route.ComponentProps) {
  const t = loaderData;
  const location = useLocation();
  const answer = actionData as { error?: string; comment?: number | null } | undefined;
  const here = location.pathname + location.search;
  const chapterHref = `/works/${t.work.id}?chapter=${t.chapter.order}${t.paragraph ? `#p-${t.paragraph.index}` : ""}`;
  const sortHref = (sort: string) => threadHref(t.work.id, t.chapter.order, t.paragraph?.index ?? null, { sort });
  const pageHref = (page: number) => threadHref(t.work.id, t.chapter.order, t.paragraph?.index ?? null, { sort: t.sort, page: String(page) });
  const reported = new URLSearchParams(location.search).get("reported") === "1";

  return (
    <section className="comments-page">
      <p className="reader-breadcrumb">
        <Link to={`/works/${t.work.id}`}>{t.work.title}</Link> <span className="muted">/</span>{" "}
        <Link to={chapterHref}>{t.chapter.title}</Link>
      </p>
      <h1 className="comments-title">{t.paragraph ? `第 ${t.paragraph.index + 1} 段的段评` : "本章说"}</h1>
      {t.paragraph ? (
        <blockquote className="comment-quote" data-testid="quoted-paragraph">
          {t.paragraph.text}
        </blockquote>
      ) : null}
      {reported ? (
        <p role="status" className="notice">
          举报已收到，我们会尽快处理。
        </p>
      ) : null}

      {t.signedIn ? (
        <Form method="post" action={here} className="comment-form" aria-label={t.paragraph ? "写段评" : "写本章说"}>
          <input type="hidden" name="intent" value="post" />
          <label htmlFor="comment-body" className="sr-only">
            评论内容
          </label>
          <textarea id="comment-body" name="body" rows={3} maxLength={COMMENT_MAX_CHARS} required placeholder={t.paragraph ? "说说你对这一段的看法" : "说说你对这一章的看法"} />
          <FieldError errors={answer && !answer.comment ? answer.error : undefined} alert as="p" />
          <button type="submit" className="btn btn-primary">
            发表
          </button>
        </Form>
      ) : (
        <p className="comment-login">
          <Link to={authHref(location, "login")}>登录</Link>后发表评论
        </p>
      )}

      <nav className="comment-sort" aria-label="排序">
        <Link to={sortHref("hot")} aria-current={t.sort === "hot" ? "page" : undefined}>
          热门
        </Link>
        <Link to={sortHref("new")} aria-current={t.sort === "new" ? "page" : undefined}>
          最新
        </Link>
        <span className="muted">共 {t.total} 条</span>
      </nav>

      {t.comments.length === 0 ? <p className="muted">还没有评论。</p> : null}
      <ol className="comment-list" data-testid="comment-list">
        {t.comments.map((c) => (
          <li key={c.id}>
            <CommentItem c={c} t={t} here={here} answer={answer} />
            {c.replies.length > 0 ? (
              <ol className="comment-replies" aria-label="回复">
                {c.replies.map((r) => (
                  <li key={r.id}>
                    <CommentItem c={r} t={t} here={here} answer={answer} reply />
                  </li>
                ))}
              </ol>
            ) : null}
          </li>
        ))}
      </ol>
      {t.pageCount > 1 ? (
        <nav className="pagination" aria-label="评论分页">
          {t.page > 1 ? <Link to={pageHref(t.page - 1)}>上一页</Link> : null}
          <span>
            第 {t.page} / {t.pageCount} 页
          </span>
          {t.page < t.pageCount ? <Link to={pageHref(t.page + 1)}>下一页</Link> : null}
        </nav>
      ) : null}
    </section>
  );
}

function CommentItem({
  c,
  t,
  here,
  answer,
  reply = false,
}: {
  c: CommentView;
  t: ThreadData;
  here: string;
  answer?: { error?: string; comment?: number | null };
  reply?: boolean;
}) {
  const error = answer?.comment === c.id ? answer.error : undefined;
  return (
    <article id={`c-${c.id}`} className={`comment${c.hidden ? " comment-hidden" : ""}`} data-testid="comment">
      <header className="comment-head">
        <span className="comment-author">{c.author.nickname}</span>
        {c.byWorkAuthor ? <span className="badge comment-author-badge">作者</span> : null}
        {c.hidden ? <span className="badge">已隐藏</span> : null}
        <time dateTime={c.createdAt} className="muted">
          {c.createdAt.slice(0, 16).replace("T", " ")}
        </time>
      </header>
      {c.quote ? (
        <blockquote className="comment-quote comment-quote-small" title="这段文字已被作者修改">
          {c.quote}
        </blockquote>
      ) : null}
      <p className="comment-body">{c.body}</p>
      <div className="comment-actions">
        {t.signedIn ? (
          <Form method="post" action={here} className="inline-form">
            <input type="hidden" name="intent" value="like" />
            <input type="hidden" name="comment" value={c.id} />
            <input type="hidden" name="on" value={c.liked ? "0" : "1"} />
            <button type="submit" className={`btn btn-small${c.liked ? " active" : ""}`} aria-pressed={c.liked}>
              赞 {c.likeCount}
            </button>
          </Form>
        ) : (
          <span className="muted">赞 {c.likeCount}</span>
        )}
        {t.signedIn && !reply && !c.hidden ? (
          <details className="comment-more">
            <summary className="btn btn-small">回复{c.replyCount > 0 ? ` ${c.replyCount}` : ""}</summary>
            <Form method="post" action={here} className="comment-form">
              <input type="hidden" name="intent" value="reply" />
              <input type="hidden" name="comment" value={c.id} />
              <label>
                <span className="sr-only">回复内容</span>
                <textarea name="body" rows={2} maxLength={COMMENT_MAX_CHARS} required placeholder={`回复 ${c.author.nickname}`} />
              </label>
              <button type="submit" className="btn btn-small btn-primary">
                回复
              </button>
            </Form>
          </details>
        ) : null}
        {t.signedIn && !c.mine ? (
          <details className="comment-more">
            <summary className="btn btn-small">举报</summary>
            <Form method="post" action={here} className="comment-form">
              <input type="hidden" name="intent" value="report" />
              <input type="hidden" name="comment" value={c.id} />
              <label>
                举报理由
                <input name="reason" maxLength={REPORT_MAX_CHARS} required placeholder="例如：广告、人身攻击、剧透" />
              </label>
              <button type="submit" className="btn btn-small">
                提交举报
              </button>
            </Form>
          </details>
        ) : null}
        {t.isOwner ? (
          <>
            <Form method="post" action={here} className="inline-form">
              <input type="hidden" name="intent" value="hide" />
              <input type="hidden" name="comment" value={c.id} />
              <input type="hidden" name="on" value={c.hidden ? "0" : "1"} />
              <button type="submit" className="btn btn-small">
                {c.hidden ? "取消隐藏" : "隐藏"}
              </button>
            </Form>
            {!c.mine ? (
              <Form method="post" action={here} className="inline-form">
                <input type="hidden" name="intent" value="mute" />
                <input type="hidden" name="comment" value={c.id} />
                <input type="hidden" name="on" value="1" />
                <button type="submit" className="btn btn-small">
                  禁言此用户
                </button>
              </Form>
            ) : null}
          </>
        ) : null}
      </div>
      <FieldError errors={error} alert as="p" />
    </article>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const message = isRouteErrorResponse(error) && typeof error.data === "string" ? error.data : "评论加载失败，请稍后再试";
  return (
    <section className="comments-page">
      <h1 className="comments-title">评论</h1>
      <p role="alert">{message}</p>
      <p>
        <Link to="/works">返回作品列表</Link>
      </p>
    </section>
  );
}
