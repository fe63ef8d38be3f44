import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { useEffect, useRef } from "react";
import { data, Form, isRouteErrorResponse, Link, redirect, useLocation, useRevalidator } from "react-router";
import { CommentList, type CommentAnswer } from "~/components/comments/comment-item";
import { threadHref } from "~/components/comments/comment-links";
import { useCommentsChanged, type LiveCommentsHandle } from "~/components/comments/live-comments";
import { PhoneNeeded } from "~/components/comments/phone-needed";
import { ThreadSort } from "~/components/comments/thread-parts";
import { authHref } from "~/components/shell/auth-links";
import { FieldError, FormTokenField } from "~/components/ui/forms";
import { Pagination } from "~/components/ui/pagination";
import { commentActionSchema } from "~/schemas/comments";
import { COMMENT_MAX_CHARS } from "~/schemas/comment-rules";
import { parseWithZod } from "@conform-to/zod/v4";
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
} from "~/server/community/comments.server";
import { asRouteError, domainErrorOf, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { parseChapterOrder } from "~/server/reading/reader.server";
import { getSessionUser, loginRedirectUrl } from "~/server/identity/session.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/comments";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

/**
 * `/works/:id/comments?chapter=<order>[&p=<paragraph>]`: a chapter's 本章说, or one
 * paragraph's 段评 with the paragraph quoted; posting, replying, liking, reporting and
 * the author's hide and mute are plain forms answered here (POST, redirect, GET), so the
 * page works without JavaScript (decision 090).
 */
export const meta: Route.MetaFunction = ({ data }) => [
  { title: data && "work" in data ? `${data.paragraph ? "段评" : "本章说"} - ${data.chapter.title} - ${data.work.title}` : "评论" },
];

/**
 * The page hears its chapter's comments live (decision 101). Posting and replying create
 * once per one-time token (decision 077; tests/integration/creating-forms.test.ts).
 */
export const handle: LiveCommentsHandle & { creates: string[] } = {
  creates: ["comment"],
  liveComments: (data) => {
    const d = data as { work?: { id: number }; chapter?: { id: number } } | undefined;
    return d?.work && d.chapter ? { workId: d.work.id, chapterId: d.chapter.id } : null;
  },
};

export async function loader({ request, url, params }: Route.LoaderArgs) {
  const order = parseChapterOrder(url.searchParams.get("chapter"));
  if (order === null) throw data(COMMENT_MESSAGES.chapterMissing, { status: 404 });
  const viewer = await getSessionUser(request);
  const sort = parseSort(url.searchParams.get("sort"));
  // The reader's thread dialog (`dialog=1`) loads this through a fetcher: a refusal is
  // its data (shown in the dialog), not the reader page's error boundary.
  const dialog = url.searchParams.get("dialog") === "1";
  try {
    const thread = await listComments(viewer, Number(params.id), order, {
      paragraph: parseParagraph(url.searchParams.get("p")),
      sort,
      page: parsePage(url.searchParams.get("page")),
    });
    // A one-time token for each form that posts a comment: the box, and each reply box. A
    // load after a post (the redirect, or the dialog's reload) gives new ones (decision 077).
    const formTokens = viewer ? { post: newFormToken(), replies: Object.fromEntries(thread.comments.map((c) => [c.id, newFormToken()])) } : null;
    return { ...thread, sort, signedIn: Boolean(viewer), formTokens };
  } catch (error) {
    const known = dialog ? domainErrorOf(error) : null;
    if (known) return data({ dialogError: known.message }, { status: known.status });
    return asRouteError(error);
  }
}

export async function action({ request, url, params }: Route.ActionArgs) {
  const user = await getSessionUser(request);
  if (!user) throw redirect(loginRedirectUrl(url));
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: commentActionSchema });
  if (submission.status !== "success") return data({ error: "未知操作", comment: null }, { status: 400 });
  const { intent, on, enhanced } = submission.value;
  const workId = Number(params.id);
  const order = parseChapterOrder(url.searchParams.get("chapter"));
  const id = parseCommentId(submission.value.comment);
  // The page again, without an older notice, or with one: 评论已发表, 回复已发表, 举报已收到.
  const query = new URLSearchParams(url.search);
  query.delete("posted");
  query.delete("reported");
  const here = `${url.pathname}?${query}`;
  const noticed = (key: "posted" | "reported", value: string) => `${here}&${new URLSearchParams({ [key]: value })}`;
  // From the reader's thread dialog (JavaScript): data for its fetcher instead of a redirect.
  const done = (to: string) => (enhanced ? data<CommentAnswer>({ ok: true, intent, comment: id || null }) : redirect(to));
  return replyOnDomainError(
    async () => {
      switch (intent) {
        case "post":
        case "reply": {
          if (order === null) return data({ error: COMMENT_MESSAGES.chapterMissing, comment: null }, { status: 404 });
          // The same form sent twice (a double click, 重新提交) posts once, and answers alike.
          const posted = await oncePerFormToken(
            user.id,
            "comment",
            formTokenOf(form),
            (record) =>
              postComment(
                user,
                {
                  workId,
                  order,
                  paragraph: intent === "post" ? parseParagraph(url.searchParams.get("p")) : null,
                  parentId: intent === "reply" ? id : null,
                  body: submission.value.body,
                },
                record,
              ),
            async (first) => ({ id: Number(first) }),
          );
          return enhanced ? data<CommentAnswer>({ ok: true, intent, comment: posted.id }) : redirect(`${noticed("posted", "held" in posted && posted.held ? "held" : intent)}#c-${posted.id}`);
        }
        case "like":
          await setLike(user, id, on);
          break;
        case "hide":
          await setHidden(user, id, on);
          break;
        case "mute":
          await setMuted(user, id, on);
          break;
        case "report":
          await reportComment(user, id, submission.value.reason);
          return done(`${noticed("reported", "1")}#c-${id}`);
      }
      return done(`${here}#c-${id}`);
    },
    (error) => ({ error: error.message, comment: intent === "post" ? null : id || null }),
  );
}

export default function CommentsPage({ loaderData, actionData }: Route.ComponentProps) {
  if ("dialogError" in loaderData) {
    return (
      <section className="comments-page">
        <h1 className="comments-title">评论</h1>
        <p role="alert">{loaderData.dialogError}</p>
      </section>
    );
  }
  return <ThreadPage t={loaderData} actionData={actionData} />;
}

type Thread = Exclude<Route.ComponentProps["loaderData"], { dialogError: string }>;

function ThreadPage({ t, actionData }: { t: Thread; actionData: Route.ComponentProps["actionData"] }) {
  const location = useLocation();
  const answer = actionData as CommentAnswer | undefined;
  // New comments, and comments hidden by the author, show without a reload.
  const revalidator = useRevalidator();
  useCommentsChanged(t.chapter.id, () => {
    if (revalidator.state === "idle") void revalidator.revalidate();
  });
  const here = location.pathname + location.search;
  const chapterHref = `/works/${t.work.id}?chapter=${t.chapter.order}${t.paragraph ? `#p-${t.paragraph.index}` : ""}`;
  const sortHref = (sort: string) => threadHref(t.work.id, t.chapter.order, t.paragraph?.index ?? null, { sort });
  const pageHref = (page: number) => threadHref(t.work.id, t.chapter.order, t.paragraph?.index ?? null, { sort: t.sort, page: String(page) });
  const query = new URLSearchParams(location.search);
  const reported = query.get("reported") === "1";
  // After a post the page says so. With JavaScript the page stays mounted through the
  // redirect: its boxes are emptied and an open reply box closed, as a new page would be.
  const posted = query.get("posted");
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!posted || !section.current) return;
    for (const form of section.current.querySelectorAll("form")) form.reset();
    for (const more of section.current.querySelectorAll("details[open]")) more.removeAttribute("open");
  }, [posted, location.key]);

  return (
    <section className="comments-page" ref={section}>
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
      ) : posted ? (
        <p role="status" className="notice" data-testid="posted-notice">
          {posted === "held"
            ? "已提交，内容需审核，通过后其他读者可见。"
            : posted === "reply"
              ? "回复已发表。"
              : posted === "tip"
                ? "打赏成功，感谢你的支持！打赏记录已显示在本章说中。"
                : "评论已发表。"}
        </p>
      ) : null}

      {t.signedIn && t.phoneNeeded ? (
        <PhoneNeeded />
      ) : t.signedIn ? (
        <Form method="post" action={here} className="comment-form" aria-label={t.paragraph ? "写段评" : "写本章说"}>
          <input type="hidden" name="intent" value="post" />
          {t.formTokens ? <FormTokenField token={t.formTokens.post} /> : null}
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

      <ThreadSort sort={t.sort} total={t.total} hrefFor={sortHref} />

      {t.comments.length === 0 ? <p className="muted">还没有评论。</p> : null}
      <CommentList comments={t.comments} signedIn={t.signedIn} mayReply={!t.phoneNeeded} isOwner={t.isOwner} action={here} answer={answer} replyTokens={t.formTokens?.replies} />
      <Pagination page={t.page} pageCount={t.pageCount} hrefFor={pageHref} label="评论分页" />
    </section>
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
