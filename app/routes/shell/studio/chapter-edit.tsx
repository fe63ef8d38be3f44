import { getFormProps, getInputProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData, useNavigation } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { FieldError, FormError, useSchemaForm } from "~/components/ui/forms";
import { useLeaveWarning } from "~/components/use-leave-warning";
import { chapterEditSchema, releaseOf, STUDIO_MESSAGES } from "~/schemas/studio";
import { ReleaseFields } from "~/components/studio/release-fields";
import { formatShanghai, toShanghaiInput } from "~/utils/shanghai-time";
import { chapterNumber, getChapter } from "~/server/chapters.server";
import { db } from "~/db/client.server";
import { asRouteError, DomainError, formErrorsOf, replyOnDomainError } from "~/server/errors.server";
import { redirectWithFlash } from "~/server/flash.server";
import { readForm } from "~/server/form-data.server";
import { userContext } from "~/server/guards.server";
import { updateChapter } from "~/server/studio/chapters.server";
import { getOwnedWork } from "~/server/works.server";
import type { Route } from "./+types/chapter-edit";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `编辑章节《${data?.chapter.title ?? ""}》 - 砚台` }];

export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const chapter = await getChapter(work.id, Number(params.chapterId));
  if (!chapter) asRouteError(new DomainError(STUDIO_MESSAGES.chapterNotFound, 404));
  return {
    work: { id: work.id, title: work.title },
    chapter: {
      id: chapter.id,
      title: chapter.title,
      content: chapter.content,
      state: chapter.state,
      publishAt: chapter.publishAt && chapter.state === "scheduled" ? { text: formatShanghai(chapter.publishAt), input: toShanghaiInput(chapter.publishAt) } : null,
      number: chapter.state === "published" ? await chapterNumber(db, chapter) : null,
    },
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const chapterId = Number(params.chapterId);
  const submission = parseWithZod(await readForm(request), { schema: chapterEditSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      await updateChapter(user.id, workId, chapterId, { ...submission.value, release: releaseOf(submission.value) });
      return redirectWithFlash(request, `/works/${workId}/chapters?chapter=${chapterId}#c-${chapterId}`, { kind: "success", text: "章节已保存" });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function EditChapter({ actionData }: Route.ComponentProps) {
  const { work, chapter } = useLoaderData<typeof loader>();
  const leaveWarning = useLeaveWarning();
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(chapterEditSchema, {
    id: `chapter-edit-${chapter.id}`,
    lastResult: actionData,
    defaultValue: {
      title: chapter.title,
      content: chapter.content,
      release: chapter.state === "draft" ? "draft" : chapter.state === "scheduled" ? "at" : "now",
      publishAt: chapter.publishAt?.input,
    },
  });
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="chapters" />
      <h2>{chapter.number ? `编辑第 ${chapter.number} 章` : chapter.state === "draft" ? "编辑存稿" : `编辑定时章节（${chapter.publishAt?.text} 发布）`}</h2>
      <Form method="post" {...getFormProps(form)} {...leaveWarning} className="studio-form">
        <label className="field">
          <span>章节标题</span>
          <input {...getInputProps(fields.title, { type: "text" })} key={fields.title.key} />
          <FieldError field={fields.title} />
        </label>
        <label className="field">
          <span>正文</span>
          <textarea {...getTextareaProps(fields.content)} key={fields.content.key} rows={24} />
          <FieldError field={fields.content} />
        </label>
        {chapter.state === "published" ? null : <ReleaseFields release={fields.release} publishAt={fields.publishAt} />}
        <FormError form={form} />
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={navigation.state === "submitting"}>
            {navigation.state === "submitting" ? "保存中..." : "保存"}
          </button>
          <Link className="btn" to={`/works/${work.id}/chapters?chapter=${chapter.id}#c-${chapter.id}`}>返回章节管理</Link>
        </div>
      </Form>
    </section>
  );
}
