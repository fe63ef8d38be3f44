import { Form, useFetcher, useLocation } from "react-router";
import type { WritingActionData } from "~/types/writing";
import { formatWordCount } from "~/utils/format";
import { HiddenFields } from "./hidden-fields";
import { useWritingParam } from "./url";
import { FormError } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";

export interface SourceOption {
  id: number;
  title: string;
  authorNickname: string;
  wordCount: number;
  relation: "own" | "purchased" | "free";
}

const GROUPS = [
  ["own", "我的作品"],
  ["purchased", "已购买的作品"],
  ["free", "免费作品"],
] as const;

/**
 * The reference-work picker with 分析 (short-piece imitation): a single-chapter work of
 * the user's own, bought or free, under 20,000 characters, or pasted text. 分析 runs P02
 * and replaces the characters and plots with what it finds.
 */
export function SourcePanel({
  sources,
  projectId,
  sourceTitle,
  hasContent,
  actionData,
}: {
  sources: SourceOption[];
  projectId: string;
  sourceTitle: string | null;
  hasContent: boolean;
  actionData?: WritingActionData;
}) {
  // With JavaScript 分析 goes through a fetcher: its answer survives the revalidation
  // that the balance change (reserved, then refunded on failure) triggers through live
  // updates, which clears a navigation's actionData and with it the error. Without
  // JavaScript it is an ordinary form post and the page shows actionData.
  const fetcher = useFetcher<WritingActionData>();
  const location = useLocation();
  const query = useWritingParam("sourceQ");
  const analysing = useIsPending({ fetcher, state: "non-idle" });
  const answer = fetcher.data ?? actionData;
  const fieldError = answer?.intent === "analyze" ? answer.result?.error?.sourceWorkId?.[0] : undefined;
  const error = answer?.intent === "analyze" ? (answer.error ?? fieldError) : undefined;
  return (
    <section className="writing-card" aria-labelledby="source-heading">
      <div className="card-head">
        <h2 id="source-heading">参考作品</h2>
        {sourceTitle ? <span className="muted">已分析：{sourceTitle}</span> : null}
      </div>
      <Form method="get" action={location.pathname} className="toolbar" preventScrollReset role="search" aria-label="搜索免费作品">
        <input type="hidden" name="project" value={projectId} />
        <input type="search" name="sourceQ" defaultValue={query} placeholder="搜索免费的单章作品" aria-label="搜索免费的单章作品" />
        <button type="submit" className="btn btn-small">搜索</button>
      </Form>
      <fetcher.Form method="post" preventScrollReset>
        <HiddenFields projectId={projectId} />
        <label className="field">
          <span>选择作品（单章，少于20000字）</span>
          <select name="sourceWorkId" defaultValue="">
            <option value="">— 不选，使用下方粘贴的文本 —</option>
            {GROUPS.map(([relation, name]) => {
              const list = sources.filter((s) => s.relation === relation);
              return list.length ? (
                <optgroup key={relation} label={name}>
                  {list.map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.title}（{s.authorNickname} · {formatWordCount(s.wordCount)}）
                    </option>
                  ))}
                </optgroup>
              ) : null;
            })}
          </select>
        </label>
        <label className="field">
          <span>或粘贴参考文本</span>
          <textarea name="sourceText" rows={5} placeholder="在此粘贴参考文本（少于20000字）" />
        </label>
        <FormError errors={error} />
        <div className="form-actions">
          {hasContent ? <span className="hint">分析会替换当前的角色和情节。</span> : null}
          <button type="submit" name="intent" value="analyze" className="btn btn-primary" disabled={analysing}>
            {analysing ? "分析中..." : "分析"}
          </button>
        </div>
      </fetcher.Form>
    </section>
  );
}
