import { getFormProps, getTextareaProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useLoaderData, useSubmit } from "react-router";
import { editChapterSchema } from "~/schemas/work";
import { getChapter, getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { getOwnedWork, listChapterHeads, tabOfVisibility } from "~/server/catalog/works.server";
import { chapterDisplayTitle } from "~/utils/chapter-title";
import type { Route } from "./+types/edit";
import { useLeaveWarning } from "~/components/use-leave-warning";
import { FieldError, FormError } from "~/components/ui/forms";
import { SaveOrCancel } from "~/components/ui/submit-button";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `编辑《${data?.work.title ?? ""}》 - 砚台` }];

export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const heads = work.type === "single_chapter" ? [] : await listChapterHeads(work.id);
  const chosen = Number(url.searchParams.get("chapter"));
  const chapter =
    work.type === "single_chapter"
      ? await getChapterByOrder(work.id, 1)
      : chosen
        ? await getChapter(work.id, chosen)
        : null;
  return {
    work: { id: work.id, title: work.title, type: work.type },
    chapters: heads.map((c) => ({ id: c.id, title: c.title, order: c.order })),
    chapter: chapter && { id: chapter.id, title: chapter.title, content: chapter.content, revision: chapter.revision },
    back: `/my-works?tab=${tabOfVisibility(work.visibility)}`,
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: editChapterSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      const workId = Number(params.id);
      // The studio editor's 保存, text only (docs/decisions/095), based on the revision the
      // page showed: a save made elsewhere since answers 此章节已在别处修改 and keeps the text.
      const { chapterId, content, revision } = submission.value;
      await saveChapter(user.id, workId, chapterId, { kind: "save", content, baseRevision: revision });
      const work = await getOwnedWork(user.id, workId);
      return redirect(`/my-works?tab=${tabOfVisibility(work.visibility)}`);
    },
    (error) => submission.reply({ formErrors: [error.message] }),
  );
}

export default function EditWork({ actionData }: Route.ComponentProps) {
  const leaveWarning = useLeaveWarning();
  const { work, chapters, chapter, back } = useLoaderData<typeof loader>();
  const submitGet = useSubmit();
  const [form, fields] = useForm({
    id: `edit-${chapter?.id ?? "none"}`,
    lastResult: actionData,
    constraint: getZodConstraint(editChapterSchema),
    defaultValue: { chapterId: chapter ? String(chapter.id) : undefined, content: chapter?.content },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: editChapterSchema }),
  });
  return (
    <section className="edit-work">
      <h1>编辑《{work.title}》</h1>
      {work.type !== "single_chapter" ? (
        <p className="muted">
          <Link to={`/works/${work.id}/chapters`}>章节管理</Link>：重命名、移动、插入、删除章节，设置分卷。
        </p>
      ) : null}
      {(
        <>
          {work.type !== "single_chapter" ? (
            <Form method="get" className="toolbar">
              <select name="chapter" defaultValue={chapter?.id ?? ""} aria-label="选择章节" onChange={(e) => submitGet(e.currentTarget.form)}>
                <option value="">请选择章节</option>
                {chapters.map((c) => (
                  <option key={c.id} value={c.id}>{chapterDisplayTitle(c.order, c.title)}</option>
                ))}
              </select>
              <noscript>
                <button type="submit" className="btn">选择</button>
              </noscript>
            </Form>
          ) : null}
          {chapter ? (
            <Form method="post" {...getFormProps(form)} {...leaveWarning}>
              <input type="hidden" name="chapterId" value={chapter.id} />
              <input type="hidden" name="revision" value={chapter.revision} />
              {work.type !== "single_chapter" ? <h2>{chapter.title}</h2> : null}
              <label className="field">
                <span>正文</span>
                <textarea {...getTextareaProps(fields.content)} key={fields.content.key} rows={24} />
                <FieldError field={fields.content} />
              </label>
              <FormError form={form} />
              <SaveOrCancel cancelHref={back} />
            </Form>
          ) : (
            <p className="muted">请选择要编辑的章节。</p>
          )}
        </>
      )}
    </section>
  );
}
