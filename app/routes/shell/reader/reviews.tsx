import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { data, Form, isRouteErrorResponse, Link, redirect, useLocation } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import { RatingLine, ReviewFields, ReviewItem, type ReviewAnswer } from "~/components/reviews/review-item";
import { PhoneNeeded } from "~/components/comments/phone-needed";
import { ThreadSort } from "~/components/comments/thread-parts";
import { authHref } from "~/components/shell/auth-links";
import { PHONE_MESSAGES } from "~/schemas/phone-rules";
import { FieldError } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";
import { Pagination } from "~/components/ui/pagination";
import { bookReviewActionSchema } from "~/schemas/book-reviews";
import {
  deleteReview,
  editReview,
  listReviews,
  parseReviewId,
  parseReviewSort,
  postReview,
  replyToReview,
  reportReview,
  setFeatured,
  setPinned,
  setReviewLike,
} from "~/server/community/book-reviews.server";
import { getSessionUser, loginRedirectUrl } from "~/server/identity/session.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/reviews";

/**
 * `/works/:id/reviews`: a work's 书评区 (docs/product.md#book-reviews, decision 211): its
 * rating, the reader's own review with 修改 and 删除, the write form, and the reviews by
 * 热门 or 最新; every action a plain form answered here (POST, redirect, GET).
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `书评区 - ${data.work.title} - 砚台` : "书评区 - 砚台" }];

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

export async function loader({ request, url, params }: Route.LoaderArgs) {
  const viewer = await getSessionUser(request);
  const page = await orRouteError(() =>
    listReviews(viewer, Number(params.id), { sort: parseReviewSort(url.searchParams.get("sort")), page: parsePage(url.searchParams.get("page")) }),
  );
  return { ...page, signedIn: Boolean(viewer) };
}

const DONE: Record<string, string> = {
  post: "书评已发表。",
  edit: "书评已修改。",
  delete: "书评已删除。",
  report: "举报已收到，我们会尽快处理。",
  reply: "回复已保存。",
};

export async function action({ request, url, params }: Route.ActionArgs) {
  const user = await getSessionUser(request);
  if (!user) throw redirect(loginRedirectUrl(url));
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: bookReviewActionSchema });
  if (submission.status !== "success") return data<ReviewAnswer>({ error: "未知操作", review: null }, { status: 400 });
  const { intent, on, rating, body, reason } = submission.value;
  const workId = Number(params.id);
  const id = parseReviewId(submission.value.review);
  const query = new URLSearchParams(url.search);
  query.delete("done");
  const back = (done: string | null, anchor: string) => {
    if (done) query.set("done", done);
    return redirect(`${url.pathname}?${query}${anchor}`);
  };
  return replyOnDomainError(
    async () => {
      switch (intent) {
        case "post": {
          const posted = await postReview(user, workId, { rating, body });
          return back("post", `#r-${posted.id}`);
        }
        case "edit": {
          const edited = await editReview(user, workId, { rating, body });
          return back("edit", `#r-${edited.id}`);
        }
        case "delete":
          await deleteReview(user, workId);
          return back("delete", "");
        case "like":
          await setReviewLike(user, workId, id, on);
          break;
        case "report":
          await reportReview(user, workId, id, reason);
          return back("report", `#r-${id}`);
        case "feature":
          await setFeatured(user, workId, id, on);
          break;
        case "pin":
          await setPinned(user, workId, id, on);
          break;
        case "reply":
          await replyToReview(user, workId, id, body);
          return back("reply", `#r-${id}`);
      }
      return back(null, `#r-${id}`);
    },
    (error): ReviewAnswer => ({ error: error.message, review: intent === "post" || intent === "edit" || intent === "delete" ? null : id || null }),
  );
}

export default function ReviewsPage({ loaderData: t, actionData }: Route.ComponentProps) {
  const location = useLocation();
  const answer = actionData as ReviewAnswer | undefined;
  const busy = useIsPending({ intent: ["post", "edit", "delete"] });
  const here = location.pathname + location.search;
  const base = `/works/${t.work.id}/reviews`;
  const sortHref = (sort: string) => `${base}?sort=${sort}`;
  const pageHref = (page: number) => `${base}?sort=${t.sort}&page=${page}`;
  const done = DONE[new URLSearchParams(location.search).get("done") ?? ""];
  const formError = answer && answer.review === null ? answer.error : undefined;

  return (
    <section className="comments-page reviews-page">
      <p className="reader-breadcrumb">
        <Link to={`/works/${t.work.id}`}>{t.work.title}</Link> <span className="muted">/ {t.work.authorNickname}</span>
      </p>
      <h1 className="comments-title">书评区</h1>
      <RatingLine summary={t.summary} />
      {done ? (
        <p role="status" className="notice" data-testid="review-notice">
          {done}
        </p>
      ) : null}

      {!t.signedIn ? (
        <p className="comment-login">
          <Link to={authHref(location, "login")}>登录</Link>后写书评
        </p>
      ) : t.mine ? (
        <div className="review-mine" data-testid="my-review">
          <h2>我的书评</h2>
          <ReviewItem r={t.mine} signedIn isOwner={t.isOwner} action={here} answer={answer} anchor="my-review" />
          <details className="comment-more" open={Boolean(formError)}>
            <summary className="btn btn-small">修改书评</summary>
            <Form method="post" action={here} className="comment-form" aria-label="修改书评">
              <input type="hidden" name="intent" value="edit" />
              <ReviewFields rating={t.mine.rating} body={t.mine.editBody} />
              <FieldError errors={formError} alert as="p" />
              <button type="submit" className="btn btn-primary" disabled={busy}>
                保存修改
              </button>
            </Form>
          </details>
          <Form method="post" action={here} className="inline-form">
            <input type="hidden" name="intent" value="delete" />
            <button type="submit" className="btn btn-small btn-danger" disabled={busy}>
              删除我的书评
            </button>
          </Form>
        </div>
      ) : t.cannotReview === PHONE_MESSAGES.required ? (
        <PhoneNeeded />
      ) : t.cannotReview ? (
        <p className="muted" data-testid="cannot-review">
          {t.cannotReview}
        </p>
      ) : (
        <Form method="post" action={here} className="comment-form" aria-label="写书评">
          <input type="hidden" name="intent" value="post" />
          <ReviewFields />
          <FieldError errors={formError} alert as="p" />
          <button type="submit" className="btn btn-primary" disabled={busy}>
            发表书评
          </button>
        </Form>
      )}

      <ThreadSort sort={t.sort} total={t.total} hrefFor={sortHref} />
      {t.reviews.length === 0 ? <p className="muted">还没有书评。</p> : null}
      <ol className="comment-list" data-testid="review-list">
        {t.reviews.map((r) => (
          <li key={r.id}>
            <ReviewItem r={r} signedIn={t.signedIn} isOwner={t.isOwner} action={here} answer={answer} />
          </li>
        ))}
      </ol>
      <Pagination page={t.page} pageCount={t.pageCount} hrefFor={pageHref} label="书评分页" />
    </section>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const message = isRouteErrorResponse(error) && typeof error.data === "string" ? error.data : "书评加载失败，请稍后再试";
  return (
    <section className="comments-page">
      <h1 className="comments-title">书评区</h1>
      <p role="alert">{message}</p>
      <p>
        <Link to="/works">返回作品列表</Link>
      </p>
    </section>
  );
}
