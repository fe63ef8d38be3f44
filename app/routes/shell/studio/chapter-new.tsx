import { getFormProps, getInputProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, useLoaderData } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { FieldError, FormError, FormTokenField } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { useLeaveWarning } from "~/components/use-leave-warning";
import { AUTHOR_NOTE_MAX, CHAPTER_KIND_LABELS, CHAPTER_KINDS, chapterNewSchema, releaseNotice, releaseOf, STUDIO_MESSAGES } from "~/schemas/studio";
import { ReleaseFields } from "~/components/studio/release-fields";
import { asRouteError, formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { userContext } from "~/middleware/guards.server";
import { insertChapter, managerPage } from "~/server/studio/chapters.server";
import { ownChapterState } from "~/server/studio/review.server";
import type { Route } from "./+types/chapter-new";
import { SaveOrCancel } from "~/components/ui/submit-button";

export const meta: Route.MetaFunction = () => [{ title: "添加章节 - 砚台" }];

/** The form creates a chapter once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["chapter"] };

export async function loader({ params, context, url }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const view = await managerPage(user.id, Number(params.id), 1).catch(asRouteError);
  const volumeId = Number(url.searchParams.get("volumeId"));
  const volume = view.volumes.find((v) => v.id === volumeId) ?? null;
  const at = Number(url.searchParams.get("at"));
  return {
    work: { id: view.work.id, title: view.work.title, type: view.work.type },
    total: view.total,
    volume,
    at: Number.isSafeInteger(at) && at >= 1 && at <= view.total + 1 ? at : view.total + 1,
    formToken: newFormToken(),
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: chapterNewSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const { title, content, authorNote, kind, at, volumeId } = submission.value;
  const release = releaseOf(submission.value);
  const where =
    volumeId !== undefined && volumeId !== ""
      ? { volumeId: volumeId === "none" ? null : volumeId }
      : at !== undefined
        ? { at }
        : ("end" as const);
  return replyOnDomainError(
    async () => {
      // The same form sent twice (a double click, a retry) adds the chapter once (decision 077).
      const id = await oncePerFormToken(
        user.id,
        "chapter",
        formTokenOf(form),
        (record) => insertChapter(user.id, workId, { title, content, authorNote, kind, release }, where, { record }),
        async (chapterId) => Number(chapterId),
      );
      const text = releaseNotice(release.mode === "draft" ? "draft" : await ownChapterState(user.id, workId, id));
      return redirectWithFlash(request, `/works/${workId}/chapters?chapter=${id}#c-${id}`, { kind: "success", text });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function NewChapterAt({ actionData }: Route.ComponentProps) {
  const { work, total, volume, at, formToken } = useLoaderData<typeof loader>();
  const leaveWarning = useLeaveWarning();
  const [form, fields] = useSchemaForm(chapterNewSchema, { id: "chapter-new", lastResult: actionData, defaultValue: { at: String(at), release: "now", kind: "chapter" } });
  const refused = work.type === "single_chapter";
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="chapters" />
      <h2>添加章节</h2>
      {refused ? (
        <p className="notice">{STUDIO_MESSAGES.singleChapter}</p>
      ) : (
        <Form method="post" {...getFormProps(form)} {...leaveWarning} className="studio-form">
          <FormTokenField token={formToken} />
          {volume ? (
            <p className="muted">
              添加到分卷“{volume.title}”的末尾。
              <input type="hidden" name="volumeId" value={volume.id} />
            </p>
          ) : (
            <label className="field">
              <span>插入位置（第几位，1–{total + 1}，{total + 1} 为末尾）</span>
              <input {...getInputProps(fields.at, { type: "text" })} key={fields.at.key} inputMode="numeric" />
              <FieldError field={fields.at} />
            </label>
          )}
          <fieldset className="field chapter-kind">
            <legend>章节类型</legend>
            {CHAPTER_KINDS.map((kind) => (
              <label key={kind} className="choice">
                <input type="radio" name={fields.kind.name} value={kind} defaultChecked={(fields.kind.initialValue ?? "chapter") === kind} />
                {CHAPTER_KIND_LABELS[kind]}
              </label>
            ))}
            <p className="muted">请假条、作品相关不编号、免费，不计入章节数和追更（显示在目录的单独分组里）。</p>
            <FieldError field={fields.kind} />
          </fieldset>
          <label className="field">
            <span>章节标题</span>
            <input {...getInputProps(fields.title, { type: "text" })} key={fields.title.key} />
            <FieldError field={fields.title} />
          </label>
          <label className="field">
            <span>章节内容</span>
            <textarea {...getTextareaProps(fields.content)} key={fields.content.key} rows={18} />
            <FieldError field={fields.content} />
          </label>
          <label className="field">
            <span>作者的话（选填，最多 {AUTHOR_NOTE_MAX} 字，不计入字数，读者在章节末尾看到）</span>
            <textarea {...getTextareaProps(fields.authorNote)} key={fields.authorNote.key} rows={4} />
            <FieldError field={fields.authorNote} />
          </label>
          <ReleaseFields release={fields.release} publishAt={fields.publishAt} />
          <FormError form={form} />
          <SaveOrCancel cancelHref={`/works/${work.id}/chapters`} />
        </Form>
      )}
    </section>
  );
}
