import { parseWithZod } from "@conform-to/zod/v4";
import { data, useLoaderData } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { ReviewAppeal } from "~/components/studio/review-appeal";
import { userContext } from "~/middleware/guards.server";
import { reviewAppealSchema } from "~/schemas/review";
import { getOwnedWork } from "~/server/catalog/works.server";
import { asRouteError, formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { appealReview } from "~/server/studio/review.server";
import { authorsMeta, workReviewFacts } from "~/server/studio/work-review.server";
import type { Route } from "./+types/work-appeal";

/**
 * 申诉 of a work's information (docs/product.md#review, decision 239): the author asks a 总编辑
 * to look again at a 退回修改 or 拒绝 of their work's title, description, cover and tags, once
 * per decision, while the version sent back is unchanged. The same appeal as a chapter's
 * (appealReview), reached from the note beside the work.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: `申诉《${data?.work.title ?? ""}》的作品信息 - 砚台` }];

export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const review = (await workReviewFacts(user.id, [work.id])).get(work.id)?.sentBack ?? null;
  return { work: { id: work.id, title: authorsMeta(work).title }, review };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const submission = parseWithZod(await readForm(request), { schema: reviewAppealSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      await appealReview(user.id, workId, null, submission.value.note);
      return redirectWithFlash(request, `/works/${workId}/settings`, { kind: "success", text: "申诉已提交，总编辑会尽快处理" });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function WorkAppeal({ actionData }: Route.ComponentProps) {
  const { work, review } = useLoaderData<typeof loader>();
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="settings" />
      <ReviewAppeal
        formId="work-appeal"
        heading={`申诉《${work.title}》作品信息的审核结果`}
        review={review}
        keepUnchanged="提交后请不要修改作品设置，保存设置会撤回申诉。"
        nothingToAppeal="这部作品的信息现在没有可以申诉的审核结果。"
        back={{ href: `/works/${work.id}/settings`, label: "← 返回作品设置" }}
        lastResult={actionData}
      />
    </section>
  );
}
