import { data, redirect } from "react-router";
import { ReportQueue } from "~/components/admin/report-queue";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { decideReportedComment, listReportedComments, type ReportDecision } from "~/server/admin/report-queues.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { reportDecisionSchema } from "~/schemas/admin";
import { parseWithZod } from "@conform-to/zod/v4";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/comment-reports";

/**
 * 评论举报 (docs/product.md#comments, decision 138): reported comments with every reporter and
 * reason, the longest-waiting first; hide, restore, delete or dismiss, each resolving the
 * comment's reports and writing its audit row. The page is the shared ReportQueue.
 */
export const meta: Route.MetaFunction = () => [{ title: "评论举报 - 管理后台" }];

const NOTICE: Record<ReportDecision, string> = { hide: "comment-hidden", restore: "comment-restored", delete: "deleted", dismiss: "reports-dismissed" };

export async function loader({ url }: Route.LoaderArgs) {
  const open = url.searchParams.get("show") !== "all";
  return { ...(await listReportedComments({ open, page: parsePage(url.searchParams.get("page")) })), open };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const submission = parseWithZod(await readForm(request), { schema: reportDecisionSchema });
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
  return (
    <ReportQueue
      title="评论举报"
      path="/admin/comment-reports"
      noun="评论"
      idField="commentId"
      testId="reported-comment"
      data={loaderData}
      error={actionData?.error}
      place={(c) => c.chapterTitle}
      // A held comment is shown only by the review queue's 通过 (decision 206).
      canRestore={(c) => !c.heldAt}
    />
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
