import { data, Form, Link, redirect } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { decideReportedReview, listReportedReviews, type ReviewReportDecision } from "~/server/admin/book-review-reports.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { reviewReportDecisionSchema } from "~/schemas/book-reviews";
import { parseWithZod } from "@conform-to/zod/v4";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/book-review-reports";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * 书评举报 (docs/product.md#book-reviews, decision 211): reported reviews with every reporter
 * and reason, the longest-waiting first; hide, restore, delete or dismiss, each resolving the
 * review's reports and writing its audit row.
 */
export const meta: Route.MetaFunction = () => [{ title: "书评举报 - 管理后台" }];

const NOTICE: Record<ReviewReportDecision, string> = { hide: "review-hidden", restore: "review-restored", delete: "deleted", dismiss: "reports-dismissed" };

export async function loader({ url }: Route.LoaderArgs) {
  const open = url.searchParams.get("show") !== "all";
  return { ...(await listReportedReviews({ open, page: parsePage(url.searchParams.get("page")) })), open };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: reviewReportDecisionSchema });
  if (submission.status !== "success") return data({ error: "未知操作" }, { status: 400 });
  const { decision, reviewId } = submission.value;
  return replyOnDomainError(
    async () => {
      await decideReportedReview(actor, reviewId, decision);
      const back = new URLSearchParams(url.search);
      back.set("notice", NOTICE[decision]);
      return redirect(`/admin/book-review-reports?${back}`);
    },
    (error) => ({ error: error.message }),
  );
}

export default function BookReviewReports({ loaderData, actionData }: Route.ComponentProps) {
  const { reviews, open, page, pageCount, total } = loaderData;
  const busy = useIsPending();
  const hrefFor = (p: number) => `/admin/book-review-reports?${new URLSearchParams({ show: open ? "open" : "all", page: String(p) })}`;
  return (
    <section className="admin-page">
      <h1>书评举报</h1>
      <QueryNotice />
      <FormErrors errors={actionData ? [actionData.error] : undefined} />
      <p>
        {open ? <Link to="/admin/book-review-reports?show=all">显示全部（含已处理）</Link> : <Link to="/admin/book-review-reports">只看待处理</Link>}
        <span className="admin-muted">　共 {total} 条书评</span>
      </p>
      {reviews.length === 0 ? <p className="empty-state">暂无待处理的举报</p> : null}
      {reviews.map((r) => (
        <div className="admin-card" key={r.id} data-testid="reported-review">
          <p className="admin-break">
            <strong>{r.writer}</strong> <small className="admin-muted">{r.writerEmail}</small> · 评分 {r.rating}/10
            {r.hiddenAt ? <small className="admin-muted">（已隐藏）</small> : null}
          </p>
          <blockquote className="admin-quote">{r.body}</blockquote>
          <p className="admin-muted">
            《<Link to={`/admin/works/${r.workId}`}>{r.workTitle}</Link>》书评 · {formatShanghaiSeconds(r.createdAt)} ·{" "}
            <Link to={`/admin/users/${r.userId}`}>处理该用户</Link>
          </p>
          <ul className="admin-reports">
            {r.reports.map((x, i) => (
              <li key={i}>
                {x.reporter}（{x.reporterEmail}）：{x.reason} <small className="admin-muted">{formatShanghaiSeconds(x.createdAt)}{x.resolvedAt ? " · 已处理" : ""}</small>
              </li>
            ))}
          </ul>
          <div className="admin-inline-form">
            {(["hide", "restore", "delete", "dismiss"] as const)
              .filter((d) => (d === "hide" ? !r.hiddenAt : d === "restore" ? !!r.hiddenAt : true))
              .map((d) => (
                <Form method="post" key={d}>
                  <input type="hidden" name="reviewId" value={r.id} />
                  <input type="hidden" name="decision" value={d} />
                  <SubmitButton className={d === "delete" ? "btn btn-danger" : "btn"} pending={busy}>
                    {{ hide: "隐藏", restore: "恢复显示", delete: "删除", dismiss: "驳回举报" }[d]}
                  </SubmitButton>
                </Form>
              ))}
          </div>
        </div>
      ))}
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} />
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
