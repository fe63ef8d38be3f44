import { getFormProps, getInputProps, getTextareaProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useLoaderData } from "react-router";
import { newChapterSchema, WORK_MESSAGES } from "~/schemas/work";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { userContext } from "~/middleware/guards.server";
import { addChapter } from "~/server/studio/chapters.server";
import { getOwnedWork, tabOfVisibility } from "~/server/catalog/works.server";
import type { Route } from "./+types/new-chapter";
import { useLeaveWarning } from "~/components/use-leave-warning";
import { FieldError, FormError, FormTokenField } from "~/components/ui/forms";
import { SaveOrCancel } from "~/components/ui/submit-button";

export const meta: Route.MetaFunction = () => [{ title: "添加章节 - 砚台" }];

/** The form creates rows once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["chapter"] };

export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  return {
    work: { id: work.id, title: work.title, chapterCount: work.chapterCount },
    allowed: work.type === "series" && work.status === "ongoing",
    back: `/my-works?tab=${tabOfVisibility(work.visibility)}`,
    formToken: newFormToken(),
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: newChapterSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      const workId = Number(params.id);
      // The same form sent twice adds the chapter once (docs/decisions/077).
      await oncePerFormToken(
        user.id,
        "chapter",
        formTokenOf(form),
        (record) => addChapter(user.id, workId, submission.value, record),
        async (chapterId) => Number(chapterId),
      );
      const work = await getOwnedWork(user.id, workId);
      return redirect(`/my-works?tab=${tabOfVisibility(work.visibility)}`);
    },
    (error) => submission.reply({ formErrors: [error.message] }),
  );
}

export default function NewChapter({ actionData }: Route.ComponentProps) {
  const leaveWarning = useLeaveWarning();
  const { work, allowed, back, formToken } = useLoaderData<typeof loader>();
  const [form, fields] = useForm({
    id: "new-chapter",
    lastResult: actionData,
    constraint: getZodConstraint(newChapterSchema),
    shouldValidate: "onBlur",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: newChapterSchema }),
  });
  return (
    <section className="edit-work">
      <h1>为《{work.title}》添加章节</h1>
      {!allowed ? (
        <>
          <p className="notice">{WORK_MESSAGES.onlyOngoing}</p>
          <Link className="btn" to={back}>返回我的作品</Link>
        </>
      ) : (
        <Form method="post" {...getFormProps(form)} {...leaveWarning}>
          <FormTokenField token={formToken} />
          <p className="muted">这将是第 {work.chapterCount + 1} 章。</p>
          <label className="field">
            <span>章节标题</span>
            <input {...getInputProps(fields.title, { type: "text" })} key={fields.title.key} maxLength={200} />
            <FieldError field={fields.title} />
          </label>
          <label className="field">
            <span>章节内容</span>
            <textarea {...getTextareaProps(fields.content)} key={fields.content.key} rows={20} />
            <FieldError field={fields.content} />
          </label>
          <FormError form={form} />
          <SaveOrCancel cancelHref={back} />
        </Form>
      )}
    </section>
  );
}
