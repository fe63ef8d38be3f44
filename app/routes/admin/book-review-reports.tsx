import { data, redirect } from "react-router";
import { ReportQueue } from "~/components/admin/report-queue";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { decideReportedReview, listReportedReviews, type ReportDecision } from "~/server/admin/report-queues.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { reviewReportDecisionSchema } from "~/schemas/book-reviews";
import { parseWithZod } from "@conform-to/zod/v4";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/book-review-reports";

/**
 * 书评举报 (docs/product.md#book-reviews, decision 211): reported reviews with every reporter
 * and reason, the longest-waiting first; hide, restore, delete or dismiss, each resolving the
 * review's reports and writing its audit row. The page is the shared ReportQueue.
 */
export const meta: Route.MetaFunction = () => [{ title: "书评举报 - 管理后台" }];

const NOTICE: Record<ReportDecision, string> = { hide: "review-hidden", restore: "review-restored", delete: "deleted", dismiss: "reports-dismissed" };

export async function loader({ url }: Route.LoaderArgs) {
  const open = url.searchParams.get("show") !== "all";
  return { ...(await listReportedReviews({ open, page: parsePage(url.searchParams.get("page")) })), open };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const submission = parseWithZod(await readForm(request), { schema: reviewReportDecisionSchema });
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
  return (
    <ReportQueue
      title="书评举报"
      path="/admin/book-review-reports"
      noun="书评"
      idField="reviewId"
      testId="reported-review"
      data={loaderData}
      error={actionData?.error}
      writerNote={(r) => ` · 评分 ${r.rating}/10`}
      place={() => "书评"}
    />
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
