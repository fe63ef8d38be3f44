import { parseWithZod } from "@conform-to/zod/v4";
import { data, useLoaderData } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { ReviewAppeal } from "~/components/studio/review-appeal";
import { db } from "~/db/client.server";
import { userContext } from "~/middleware/guards.server";
import { reviewAppealSchema } from "~/schemas/review";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { getChapter } from "~/server/catalog/chapter-numbers.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { asRouteError, DomainError, formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { appealReview, reviewNotes } from "~/server/studio/review.server";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/chapter-appeal";

/**
 * 申诉 (docs/product.md#review, decision 206): the author asks a 总编辑 to look again at a
 * 退回修改 or 拒绝 of their unchanged chapter, once per decision.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: `申诉《${data?.chapter.title ?? ""}》 - 砚台` }];

export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const chapter = await getChapter(work.id, Number(params.chapterId));
  if (!chapter) asRouteError(new DomainError(STUDIO_MESSAGES.chapterNotFound, 404));
  const review = chapter.state === "draft" ? (await reviewNotes(db, work.id, [chapter.id])).get(chapter.id) : undefined;
  return {
    work: { id: work.id, title: work.title },
    chapter: { id: chapter.id, title: chapter.title },
    review: review ? { status: review.status, note: review.note, decidedAt: formatShanghai(review.decidedAt), onAppeal: review.onAppeal, appeal: review.appeal } : null,
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const chapterId = Number(params.chapterId);
  const submission = parseWithZod(await readForm(request), { schema: reviewAppealSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      await appealReview(user.id, workId, chapterId, submission.value.note);
      return redirectWithFlash(request, `/works/${workId}/chapters/${chapterId}`, { kind: "success", text: "申诉已提交，总编辑会尽快处理" });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function ChapterAppeal({ actionData }: Route.ComponentProps) {
  const { work, chapter, review } = useLoaderData<typeof loader>();
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="chapters" />
      <ReviewAppeal
        formId="review-appeal"
        heading={`申诉《${chapter.title}》的审核结果`}
        review={review}
        keepUnchanged="提交后请不要修改本章，修改或重新发布会撤回申诉。"
        nothingToAppeal="这一章现在没有可以申诉的审核结果。"
        back={{ href: `/works/${work.id}/chapters/${chapter.id}`, label: "← 返回编辑" }}
        lastResult={actionData}
      />
    </section>
  );
}
