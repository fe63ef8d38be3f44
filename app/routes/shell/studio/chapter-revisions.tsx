import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { FormError } from "~/components/ui/forms";
import { AUTOSAVE_MERGE_MINUTES, CHAPTER_REVISIONS_KEPT, chapterRestoreSchema, STUDIO_MESSAGES } from "~/schemas/studio";
import { getChapter } from "~/server/catalog/chapter-numbers.server";
import { asRouteError, DomainError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { listRevisions, saveChapter } from "~/server/studio/chapter-text.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import type { Route } from "./+types/chapter-revisions";
import { SubmitButton } from "~/components/ui/submit-button";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `历史版本《${data?.chapter.title ?? ""}》 - 砚台` }];

const KIND_LABEL = { autosave: "自动保存", save: "保存", restore: "恢复" } as const;

export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const chapter = await getChapter(work.id, Number(params.chapterId));
  if (!chapter) asRouteError(new DomainError(STUDIO_MESSAGES.chapterNotFound, 404));
  const rows = await listRevisions(user.id, work.id, chapter.id).catch(asRouteError);
  return {
    work: { id: work.id, title: work.title },
    chapter: { id: chapter.id, title: chapter.title, published: chapter.state === "published" },
    revisions: rows.map((r) => ({ id: r.id, kind: KIND_LABEL[r.kind], wordCount: r.wordCount, savedAt: formatShanghaiSeconds(r.savedAt), preview: r.preview })),
  };
}

/** 恢复: the chosen version becomes the chapter's text, itself a save (decision 095). */
export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const chapterId = Number(params.chapterId);
  const submission = parseWithZod(await readForm(request), { schema: chapterRestoreSchema });
  if (submission.status !== "success") return data({ error: STUDIO_MESSAGES.revisionNotFound }, { status: 400 });
  return replyOnDomainError(
    async () => {
      const saved = await saveChapter(user.id, workId, chapterId, { kind: "restore", revisionId: submission.value.revisionId });
      const text = saved.editHeld ? `已恢复到所选版本。${STUDIO_MESSAGES.editHeld}` : "已恢复到所选版本";
      return redirectWithFlash(request, `/works/${workId}/chapters/${chapterId}`, { kind: "success", text });
    },
    (error) => ({ error: error.message }),
  );
}

export default function ChapterRevisions({ actionData }: Route.ComponentProps) {
  const { work, chapter, revisions } = useLoaderData<typeof loader>();
  const editor = `/works/${work.id}/chapters/${chapter.id}`;
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="chapters" />
      <h2>《{chapter.title}》的历史版本</h2>
      <p className="muted">
        保留最近 {CHAPTER_REVISIONS_KEPT} 次保存（连续的自动保存每 {AUTOSAVE_MERGE_MINUTES} 分钟记为一次）。恢复某个版本也算一次保存
        {chapter.published ? "，读者会立即看到恢复后的正文" : ""}。
      </p>
      <FormError errors={actionData?.error} />
      {revisions.length === 0 ? (
        <p className="muted">还没有保存记录：编辑并保存正文后，这里会列出最近的版本。</p>
      ) : (
        <ol className="revision-list">
          {revisions.map((r, i) => (
            <li key={r.id} className="studio-card revision">
              <p className="revision-head">
                <time>{r.savedAt}</time>
                <span>{r.kind}</span>
                <span>{r.wordCount} 字</span>
                {i === 0 ? <strong>当前版本</strong> : null}
              </p>
              <p className="muted revision-preview">{r.preview || "（空白）"}</p>
              {i === 0 ? null : (
                <Form method="post">
                  <input type="hidden" name="revisionId" value={r.id} />
                  <SubmitButton className="btn" aria-label={`恢复 ${r.savedAt} 的版本`}>
                    恢复此版本
                  </SubmitButton>
                </Form>
              )}
            </li>
          ))}
        </ol>
      )}
      <p>
        <Link className="btn" to={editor}>返回编辑</Link>
      </p>
    </section>
  );
}
