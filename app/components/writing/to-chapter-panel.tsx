import { Form } from "react-router";
import { AppLink } from "~/components/ui/app-link";
import { FieldError, FormError, FormTokenField } from "~/components/ui/forms";
import type { WritingActionData } from "~/types/writing";
import { HiddenFields } from "./hidden-fields";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export interface ChapterTargets {
  works: { id: number; title: string }[];
  drafts: { id: number; title: string; workId: number; workTitle: string }[];
}

const SAVED: Record<string, string> = { draft: "已存为存稿章节", publish: "已发布为新章节", append: "已追加到存稿章节" };

/**
 * 存为章节 (docs/product.md: free writing): the plot's current text to a chapter of one of the
 * author's works: a new chapter at the end, saved as 存稿 or published, or appended to an
 * existing 存稿 chapter. A plain form; the server checks everything.
 */
export function ToChapterPanel({
  projectId,
  plotId,
  plotTitle,
  targets,
  formToken,
  saved,
  actionData,
}: {
  projectId: string;
  plotId: string;
  plotTitle: string;
  targets: ChapterTargets;
  formToken: string;
  saved: string | null;
  actionData?: WritingActionData;
}) {
  const busy = useIsPending({ intent: "save-to-chapter", state: "non-idle" });
  const errors = actionData?.intent === "save-to-chapter" ? actionData.result?.error : undefined;
  const formError = actionData?.intent === "save-to-chapter" ? (actionData.error ?? errors?.[""]) : undefined;
  const [workId, chapterId, mode] = saved ? saved.split("-") : [];
  return (
    <section className="writing-card to-chapter" aria-labelledby="to-chapter-heading">
      <h2 id="to-chapter-heading">存为章节</h2>
      {saved ? (
        <p className="notice notice-success" role="status">
          {SAVED[mode]}。<AppLink to={`/works/${workId}/chapters/${chapterId}`}>打开章节</AppLink>
        </p>
      ) : null}
      {targets.works.length === 0 && targets.drafts.length === 0 ? (
        <p className="muted">
          还没有可以添加章节的作品（单章作品除外）。<AppLink to="/submit">发布一部连载作品</AppLink>后，就可以把这段正文存为它的章节。
        </p>
      ) : (
        <Form method="post" preventScrollReset className="to-chapter-form" aria-labelledby="to-chapter-heading">
          <HiddenFields projectId={projectId} selectedPlotId={plotId} />
          <input type="hidden" name="plotId" value={plotId} />
          <FormTokenField token={formToken} />
          <p className="hint">把当前情节的正文（已保存的内容）存到你的作品中。</p>
          <fieldset>
            <legend>保存方式</legend>
            <label>
              <input type="radio" name="mode" value="draft" defaultChecked /> 新章节，存为存稿
            </label>
            <label>
              <input type="radio" name="mode" value="publish" /> 新章节，立即发布
            </label>
            <label>
              <input type="radio" name="mode" value="append" disabled={targets.drafts.length === 0} /> 追加到已有的存稿章节
            </label>
            <FieldError errors={errors?.mode} />
          </fieldset>
          <label>
            作品（新章节）
            <select name="workId" defaultValue="" aria-describedby={errors?.workId ? "to-chapter-work-error" : undefined} aria-invalid={errors?.workId ? true : undefined}>
              <option value="">请选择作品</option>
              {targets.works.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.title}
                </option>
              ))}
            </select>
          </label>
          <FieldError errors={errors?.workId} id="to-chapter-work-error" />
          <label>
            章节标题（新章节，留空则用情节标题）
            <input name="title" maxLength={100} placeholder={plotTitle} />
          </label>
          <FieldError errors={errors?.title} />
          <label>
            存稿章节（追加）
            <select name="chapterId" defaultValue="" aria-describedby={errors?.chapterId ? "to-chapter-chapter-error" : undefined} aria-invalid={errors?.chapterId ? true : undefined}>
              <option value="">请选择存稿章节</option>
              {groupByWork(targets.drafts).map(([title, drafts]) => (
                <optgroup key={title} label={title}>
                  {drafts.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.title}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </label>
          <FieldError errors={errors?.chapterId} id="to-chapter-chapter-error" />
          <FormError errors={formError} />
          <div className="form-actions">
            <SubmitButton name="intent" value="save-to-chapter" className="btn btn-primary" pending={busy} pendingLabel="保存中...">
              存为章节
            </SubmitButton>
          </div>
        </Form>
      )}
    </section>
  );
}

function groupByWork(drafts: ChapterTargets["drafts"]): [string, ChapterTargets["drafts"]][] {
  const groups = new Map<number, [string, ChapterTargets["drafts"]]>();
  for (const d of drafts) {
    const group = groups.get(d.workId) ?? [d.workTitle, []];
    group[1].push(d);
    groups.set(d.workId, group);
  }
  return [...groups.values()];
}
