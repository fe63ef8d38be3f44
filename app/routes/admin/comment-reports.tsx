import { data, Form, Link, redirect } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { decideReportedComment, listReportedComments, type ReportDecision } from "~/server/admin/works-moderation.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { reportDecisionSchema } from "~/schemas/admin";
import { parseWithZod } from "@conform-to/zod/v4";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/comment-reports";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * 评论举报 (docs/product.md#comments, decision 138): reported comments with every reporter and
 * reason, the longest-waiting first; hide, restore, delete or dismiss, each resolving the
 * comment's reports and writing its audit row.
 */
export const meta: Route.MetaFunction = () => [{ title: "评论举报 - 管理后台" }];

const NOTICE: Record<ReportDecision, string> = { hide: "comment-hidden", restore: "comment-restored", delete: "deleted", dismiss: "reports-dismissed" };

export async function loader({ url }: Route.LoaderArgs) {
  const open = url.searchParams.get("show") !== "all";
  return { ...(await listReportedComments({ open, page: parsePage(url.searchParams.get("page")) })), open };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: reportDecisionSchema });
  if (submission.status !== "success") return data({ error: "未知操作" }, { status: 400 });
  const { decision, commentId } = submission.value;
  return replyOnDomainError(
    async () => {
      await decideReportedComment(actor, commentId, decision);
      const back = new URLSearchParams(url.search);
      back.set("notice", NOTICE[decision]);
      return redirect(`/admin/comment-reports?${back}`);
    },
    (error) => ({ error: error.message }),
  );
}

export default function CommentReports({ loaderData, actionData }: Route.ComponentProps) {
  const { comments, open, page, pageCount, total } = loaderData;
  const busy = useIsPending();
  const hrefFor = (p: number) => `/admin/comment-reports?${new URLSearchParams({ show: open ? "open" : "all", page: String(p) })}`;
  return (
    <section className="admin-page">
      <h1>评论举报</h1>
      <QueryNotice />
      <FormErrors errors={actionData ? [actionData.error] : undefined} />
      <p>
        {open ? <Link to="/admin/comment-reports?show=all">显示全部（含已处理）</Link> : <Link to="/admin/comment-reports">只看待处理</Link>}
        <span className="admin-muted">　共 {total} 条评论</span>
      </p>
      {comments.length === 0 ? <p className="empty-state">暂无待处理的举报</p> : null}
      {comments.map((c) => (
        <div className="admin-card" key={c.id} data-testid="reported-comment">
          <p className="admin-break">
            <strong>{c.writer}</strong> <small className="admin-muted">{c.writerEmail}</small>
            {c.hiddenAt ? <small className="admin-muted">（已隐藏）</small> : null}
          </p>
          <blockquote className="admin-quote">{c.body}</blockquote>
          <p className="admin-muted">
            《<Link to={`/admin/works/${c.workId}`}>{c.workTitle}</Link>》{c.chapterTitle} · {formatShanghaiSeconds(c.createdAt)} ·{" "}
            <Link to={`/admin/users/${c.userId}`}>处理该用户</Link>
          </p>
          <ul className="admin-reports">
            {c.reports.map((r, i) => (
              <li key={i}>
                {r.reporter}（{r.reporterEmail}）：{r.reason} <small className="admin-muted">{formatShanghaiSeconds(r.createdAt)}{r.resolvedAt ? " · 已处理" : ""}</small>
              </li>
            ))}
          </ul>
          <div className="admin-inline-form">
            {(["hide", "restore", "delete", "dismiss"] as const)
              // A held comment is shown only by the review queue's 通过 (decision 206).
              .filter((d) => (d === "hide" ? !c.hiddenAt : d === "restore" ? !!c.hiddenAt && !c.heldAt : true))
              .map((d) => (
                <Form method="post" key={d}>
                  <input type="hidden" name="commentId" value={c.id} />
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
