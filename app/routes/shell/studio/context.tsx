import { useState } from "react";
import { data, Form, useLoaderData } from "react-router";
import { ContextEntities, ContextThreads, ContextVoice, EstimateLine, MissingSummaries } from "~/components/studio/context-panels";
import { StudioNav } from "~/components/studio/studio-nav";
import { asRouteError, domainErrorOf } from "~/server/platform/errors.server";
import { userContext } from "~/middleware/guards.server";
import { publishedChapterCount } from "~/server/studio/bible.server";
import { checkChapter } from "~/server/studio/continuation.server";
import { assembleContinuationContext, contextEstimate, contextView, type ContinuationContext } from "~/server/studio/context.server";
import { PLAN_MAX_CHARS } from "~/schemas/bible";
import { getOwnedWork } from "~/server/catalog/works.server";
import type { Route } from "./+types/context";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `本次上下文《${data?.work.title ?? ""}》 - 砚台` }];

/**
 * 本次上下文 (docs/product.md#continuation-context): exactly what the continuation of
 * chapter N would send, and its estimated cost. A loader only: nothing is generated.
 * Chapter N runs from 1 to the chapter after the last published one, as for 连载续写.
 */
export async function loader({ params, context, url }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const published = await publishedChapterCount(work.id);
  const raw = url.searchParams.get("chapter")?.trim();
  const chapter = raw ? Number(raw) : published + 1;
  const plan = url.searchParams.get("plan") ?? "";
  let result: (Pick<ContinuationContext, "chapterNumber" | "prompt" | "sections" | "namedEntities" | "budgetTokens" | "chars"> & {
    estimate: ReturnType<typeof contextEstimate>;
    view: ReturnType<typeof contextView>;
  }) | null = null;
  let error: string | null = null;
  try {
    // A whole number past the next chapter is refused in the words 连载续写 uses; other
    // malformed numbers get the bible's message from the assembly.
    if (Number.isSafeInteger(chapter) && chapter >= 1) checkChapter(chapter, published);
    const assembled = await assembleContinuationContext(work.id, chapter, plan);
    const { chapterNumber, prompt, sections, namedEntities, budgetTokens, chars } = assembled;
    result = { chapterNumber, prompt, sections, namedEntities, budgetTokens, chars, estimate: contextEstimate(assembled), view: contextView(assembled) };
  } catch (e) {
    const known = domainErrorOf(e);
    if (!known) throw e;
    error = known.message;
  }
  return data({ work: { id: work.id, title: work.title }, published, chapter: raw ?? String(chapter), plan, result, error }, { status: error ? 400 : 200 });
}

export default function ContextPreview() {
  const { work, published, chapter, plan: loadedPlan, result, error } = useLoaderData<typeof loader>();
  // The estimate follows the plan as it is typed (with JavaScript; without, on 查看本次上下文).
  const [plan, setPlan] = useState(loadedPlan);
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="context" />
      <p className="muted">续写时发送给AI的内容：本章计划、前文摘要、本章有效的设定、未回收的伏笔、文风样本、要避免的套话和上一章结尾，按API配置的上下文大小裁剪。这里只预览，不会生成，也不扣Tokens。</p>
      <Form method="get" className="studio-form" key={`${chapter}-${loadedPlan}`}>
        <div className="bible-row">
          <label className="field bible-chapter">
            <span>续写第几章（1 到 {published + 1}）</span>
            <input type="number" name="chapter" min={1} max={published + 1} inputMode="numeric" defaultValue={chapter} />
          </label>
        </div>
        <label className="field">
          <span>本章计划</span>
          <textarea
            name="plan"
            rows={4}
            maxLength={PLAN_MAX_CHARS}
            defaultValue={loadedPlan}
            onChange={(e) => setPlan(e.target.value)}
            placeholder="这一章要写什么：出场人物、发生的事、结尾停在哪里"
          />
        </label>
        {result ? (
          <p className="hint">
            <EstimateLine base={result.estimate} plan={plan} />
          </p>
        ) : null}
        <div className="form-actions">
          <button type="submit" className="btn btn-primary">查看本次上下文</button>
        </div>
      </Form>
      {error ? <p className="notice notice-error" role="alert">{error}</p> : null}
      {result ? (
        <div className="context-sections">
          <h2>本次上下文：第{result.chapterNumber}章</h2>
          <p>
            提示词 <strong>{result.chars}</strong> 字。已发布 {published} 章。
          </p>
          {result.namedEntities.length ? <p className="muted">计划和上一章结尾提到：{result.namedEntities.join("、")}</p> : null}
          <ul>
            {result.sections.map((s) => (
              <li key={s.key}>
                {s.title}：{s.available === 0 ? "无" : s.included === s.available ? `全部 ${s.included} 项` : `${s.available} 项中的 ${s.included} 项（超出上下文大小的已省略）`}
              </li>
            ))}
          </ul>
          <MissingSummaries workId={work.id} chapter={result.chapterNumber} missing={result.view.missingSummaries} excerpts={result.view.excerpts} />
          <h3>发送的设定</h3>
          <ContextEntities entities={result.view.entities} />
          <h3>发送的伏笔</h3>
          <ContextThreads threads={result.view.threads} />
          <h3>文风样本和套话</h3>
          <ContextVoice workId={work.id} voice={result.view.voice} />
          <h3>系统提示词</h3>
          <pre className="context-text" data-testid="context-system" tabIndex={0} role="region" aria-label="系统提示词">{result.prompt.system}</pre>
          <h3>用户提示词</h3>
          <pre className="context-text" data-testid="context-user" tabIndex={0} role="region" aria-label="用户提示词">{result.prompt.user}</pre>
        </div>
      ) : null}
    </section>
  );
}
