import { getFormProps, getInputProps, getSelectProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData } from "react-router";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { StudioNav } from "~/components/studio/studio-nav";
import { WorkDownloads } from "~/components/studio/work-downloads";
import { STUDIO_MESSAGES, TAGS_MAX, workSettingsSchema } from "~/schemas/studio";
import { TAG_MAX_CHARS } from "~/schemas/tag-rules";
import { asRouteError, formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readUploadForm, uploadBytes } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { COVER_MAX_BYTES } from "~/server/platform/images.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { updateWorkSettings } from "~/server/studio/settings.server";
import { authorsMeta, workReviewFacts } from "~/server/studio/work-review.server";
import { WorkReviewNote } from "~/components/studio/review-note";
import { listCategories } from "~/server/catalog/categories.server";
import { NO_CATEGORY } from "~/schemas/category-field";
import { getOwnedWork } from "~/server/catalog/works.server";
import type { Route } from "./+types/settings";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `作品设置《${data?.work.title ?? ""}》 - 砚台` }];

export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const [defaultCoverUrl, flash, categories, reviews] = await Promise.all([
    getDisplayConfigValue("default_cover_url"),
    takeFlash(request, url),
    listCategories(),
    workReviewFacts(user.id, [work.id]),
  ]);
  // The author edits the version they see: the one waiting for review, else the approved one (decision 214).
  const meta = authorsMeta(work);
  return data(
    {
      work: {
        id: work.id,
        title: meta.title,
        description: meta.description,
        rating: work.rating,
        isAiGenerated: work.isAiGenerated,
        tags: meta.tags,
        categoryId: work.categoryId,
        type: work.type,
        status: work.status,
        coverUrl: meta.coverUrl,
        version: work.updatedAt.getTime(),
      },
      review: reviews.get(work.id) ?? null,
      defaultCoverUrl,
      categories,
      notice: flash.notice,
    },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const read = await replyOnDomainError(
    () => readUploadForm(request, COVER_MAX_BYTES + 64 * 1024, "封面图片不能超过5MB"),
    (error) => ({ status: "error" as const, error: { "": [error.message] } }),
  );
  if (!("form" in read)) return read;
  const submission = parseWithZod(read.form, { schema: workSettingsSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const file = read.files.get("coverFile");
  const replace = Boolean(file && (file.size > 0 || file.name));
  const input = { ...submission.value, cover: replace ? ("replace" as const) : submission.value.cover };
  return replyOnDomainError(
    async () => {
      const work = await updateWorkSettings(user.id, workId, input, replace && file ? uploadBytes(file) : null);
      const held = work.pendingMeta !== null || work.reviewListing !== null;
      return redirectWithFlash(request, `/works/${workId}/settings`, { kind: "success", text: held ? STUDIO_MESSAGES.savedForReview : STUDIO_MESSAGES.saved });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function WorkSettings({ actionData }: Route.ComponentProps) {
  const { work, defaultCoverUrl, categories, notice, review } = useLoaderData<typeof loader>();
  const busy = useIsPending();
  const [form, fields] = useSchemaForm(workSettingsSchema, {
    // A saved change remounts the form with the stored (normalized) values.
    id: `work-settings-${work.id}-${work.version}`,
    lastResult: actionData,
    defaultValue: {
      title: work.title,
      description: work.description,
      rating: work.rating,
      isAiGenerated: work.isAiGenerated ? "on" : undefined,
      tags: work.tags.join("，"),
      categoryId: work.categoryId ? String(work.categoryId) : NO_CATEGORY,
      status: work.status,
      cover: "keep",
    },
  });
  const cover = work.coverUrl ?? defaultCoverUrl;
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="settings" />
      <FlashMessage notice={notice} />
      {review ? <WorkReviewNote review={review} workId={work.id} /> : null}
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)} key={form.id} className="studio-form">
        <label className="field">
          <span>作品标题</span>
          <input {...getInputProps(fields.title, { type: "text" })} key={fields.title.key} />
          <FieldError field={fields.title} />
        </label>
        <label className="field">
          <span>作品简介</span>
          <textarea {...getTextareaProps(fields.description)} key={fields.description.key} rows={6} />
          <FieldError field={fields.description} />
        </label>
        <label className="field">
          <span>标签</span>
          <input {...getInputProps(fields.tags, { type: "text" })} key={fields.tags.key} placeholder="例如：仙侠，群像，慢热" />
          <span className="muted">用逗号或顿号分隔，最多{TAGS_MAX}个，每个不超过{TAG_MAX_CHARS}个字。</span>
          <FieldError field={fields.tags} />
        </label>
        <label className="field">
          <span>分类</span>
          <select {...getSelectProps(fields.categoryId)} key={fields.categoryId.key}>
            <option value={NO_CATEGORY}>未分类</option>
            {categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <FieldError field={fields.categoryId} />
        </label>
        <label className="field">
          <span>作品分级</span>
          <select {...getSelectProps(fields.rating)} key={fields.rating.key}>
            <option value="all_ages">全年龄</option>
            <option value="r18">R-18</option>
          </select>
          <FieldError field={fields.rating} />
        </label>
        <label className="checkbox-field">
          <input {...getInputProps(fields.isAiGenerated, { type: "checkbox" })} key={fields.isAiGenerated.key} />
          <span>AI创作</span>
        </label>
        {work.type === "series" ? (
          <fieldset className="field">
            <legend>连载状态</legend>
            <label className="radio-field">
              <input type="radio" name={fields.status.name} value="ongoing" defaultChecked={work.status === "ongoing"} />
              <span>连载中</span>
            </label>
            <label className="radio-field">
              <input type="radio" name={fields.status.name} value="completed" defaultChecked={work.status === "completed"} />
              <span>已完结（完本）</span>
            </label>
            <FieldError field={fields.status} />
          </fieldset>
        ) : null}
        <fieldset className="field cover-field">
          <legend>封面</legend>
          {cover ? <img src={cover} alt="当前封面" width={100} height={138} className="cover-thumb" /> : <span className="muted">默认封面</span>}
          <label className="field">
            <span>更换封面</span>
            <input type="file" name="coverFile" accept="image/jpeg,image/png,image/webp" aria-describedby="cover-file-hint" />
            <span className="muted" id="cover-file-hint">JPG、PNG 或 WebP，不超过 5MB。</span>
          </label>
          {work.coverUrl ? (
            <label className="checkbox-field">
              <input type="checkbox" name="cover" value="reset" />
              <span>恢复默认封面</span>
            </label>
          ) : null}
          <FieldError errors={form.allErrors.coverFile} alert as="p" />
        </fieldset>
        <FormError form={form} />
        <div className="form-actions">
          <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="保存中...">保存设置</SubmitButton>
          <Link className="btn" to={`/works/${work.id}`}>查看作品</Link>
        </div>
      </Form>
      <WorkDownloads workId={work.id} />
    </section>
  );
}
