import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, redirect } from "react-router";
import { ClaimForm, FormErrors, QueryNotice, QueueWaitCells } from "~/components/admin/ui";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { adminContext } from "~/middleware/guards.server";
import { REVIEW_KIND_LABELS, reviewQueueSchema } from "~/schemas/review";
import { claimNext, reviewQueue } from "~/server/admin/review-queue.server";
import { readForm } from "~/server/platform/form-data.server";
import { formatNumber, formatWait } from "~/utils/format";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/review";
import { AdminTable } from "~/components/admin/admin-table";

/**
 * 审核队列 (先审后发, docs/product.md#review): chapters waiting for review, oldest first;
 * 领取下一篇 claims the oldest nobody holds and opens it.
 */
export const meta: Route.MetaFunction = () => [{ title: "内容审核 - 管理后台" }];

export async function loader({ context }: Route.LoaderArgs) {
  const { role } = context.get(adminContext);
  const queue = await reviewQueue();
  const now = Date.now();
  return {
    rows: queue.rows.map((r) => ({ ...r, submittedAt: formatShanghai(r.submittedAt), waited: formatWait(now - r.submittedAt.getTime()) })),
    pending: queue.pending,
    oldest: queue.oldest ? formatWait(now - queue.oldest.getTime()) : null,
    canSetPolicy: role === "super" || role === "chief_editor",
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const submission = parseWithZod(await readForm(request), { schema: reviewQueueSchema });
  if (submission.status !== "success") return data({ error: "未知操作" }, { status: 400 });
  const id = await claimNext(adminActorOf(context), context.get(adminContext).role);
  if (id === null) return redirect("/admin/review?notice=review-empty");
  return redirect(`/admin/review/${id}?notice=review-claimed`);
}

export default function ReviewQueue({ loaderData, actionData }: Route.ComponentProps) {
  const { rows, pending, oldest, canSetPolicy } = loaderData;
  return (
    <section className="admin-page">
      <h1>内容审核</h1>
      <QueryNotice />
      <FormErrors errors={actionData ? [actionData.error] : undefined} />
      <p data-testid="review-summary">
        待审核 {formatNumber(pending)} 篇{oldest ? `，最早的已等待 ${oldest}` : ""}
        {canSetPolicy ? (
          <>
            　<Link to="/admin/settings/review">审核规则</Link>
          </>
        ) : null}
      </p>
      <ClaimForm intent="claim-next" label="领取下一篇" primary />
      {rows.length === 0 ? (
        <p className="empty-state">暂无待审核的稿件</p>
      ) : (
        <AdminTable label="待审核的稿件" framed head={["类型", "章节", "作者", "原因", "提交时间", "领取"]}>
          {rows.map((r) => (
            <tr key={r.id} data-testid="review-row">
              <td>{REVIEW_KIND_LABELS[r.kind]}</td>
              <td className="admin-break">
                <Link to={`/admin/review/${r.id}`}>
                  《{r.workTitle}》{r.chapterTitle}
                </Link>{" "}
                {r.comment !== null ? (
                  <small className="admin-muted">评论：{r.comment.length > 40 ? `${r.comment.slice(0, 40)}…` : r.comment}</small>
                ) : (
                  <small className="admin-muted">{r.wordCount === null ? "书名、简介、封面和标签" : `${formatNumber(r.wordCount)} 字`}</small>
                )}
              </td>
              <td className="admin-break">{r.author}</td>
              <td>{r.reason}</td>
              <QueueWaitCells submittedAt={r.submittedAt} waited={r.waited} claimedBy={r.claimedBy} />
            </tr>
          ))}
        </AdminTable>
      )}
    </section>
  );
}
