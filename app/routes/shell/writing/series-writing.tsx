import { useState } from "react";
import { Form, useLoaderData } from "react-router";
import { AppLink } from "~/components/ui/app-link";
import { FormTokenField } from "~/components/ui/forms";
import { useGeneration } from "~/components/writing/use-generation";
import { PLAN_MAX_CHARS } from "~/schemas/bible";
import { defaultChapterTitle } from "~/schemas/series";
import { userContext } from "~/middleware/guards.server";
import { formatTokens } from "~/utils/format";
import { BeatCoveragePanel } from "~/components/studio/outline-panels";
import { ClicheLine, ContextEntities, ContextThreads, EstimateLine, MissingSummaries } from "~/components/studio/context-panels";
import type { Route } from "./+types/series-writing";
import { seriesAction, seriesLoader, type SeriesActionData } from "./series-page.server";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "连载续写 - 砚台" }];

/** The form creates rows once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["chapter"] };

/**
 * 连载续写 (docs/product.md#series-continuation, decisions 141-142): the author picks one of
 * their series, sees for the next chapter the recent summaries, the bible facts in force and
 * the open threads, writes a plan, and 生成下一章 (streamed from /api/continue with
 * JavaScript; without it the page's action runs the generation to completion). The edited
 * text is saved as a new chapter, 存稿 or published, in one step.
 */
export async function loader({ url, context }: Route.LoaderArgs) {
  return seriesLoader(url, context.get(userContext));
}

export async function action({ request, context }: Route.ActionArgs) {
  return seriesAction(request, context.get(userContext));
}

/** A fresh request key for the next 生成 (the server only needs it unique per user). */
const freshKey = () => Array.from(crypto.getRandomValues(new Uint8Array(18)), (b) => b.toString(16).padStart(2, "0")).join("");

export default function SeriesWriting({ actionData }: Route.ComponentProps) {
  const { series, balance, page } = useLoaderData<typeof loader>();
  return (
    <section className="writing-page series-writing">
      <h1>连载续写</h1>
      <p className="desktop-only-notice">连载续写仅支持在电脑上使用</p>
      <div className="desktop-only">
        {series.length === 0 ? (
          <p className="muted">
            还没有连载作品。<AppLink to="/submit">发布一部连载作品</AppLink>后，就可以在这里续写它的下一章。
          </p>
        ) : (
          <Form method="get" className="series-picker" aria-label="选择作品">
            <label>
              连载作品
              <select name="work" defaultValue={page?.work.id ?? ""}>
                {page ? null : <option value="">请选择作品</option>}
                {series.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.title}
                  </option>
                ))}
              </select>
            </label>
            {page ? (
              <label>
                续写第几章
                <input type="number" name="chapter" min={1} max={page.counts.published + 1} inputMode="numeric" defaultValue={page.chapter} />
              </label>
            ) : null}
            <button type="submit" className="btn">
              打开
            </button>
          </Form>
        )}
        {page ? <Continuation key={`${page.work.id}-${page.chapter}-${page.saved?.chapterId ?? ""}`} page={page} balance={balance} actionData={actionData as SeriesActionData | undefined} /> : null}
      </div>
    </section>
  );
}

type Page = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["page"]>;

function Continuation({ page, balance, actionData }: { page: Page; balance: number; actionData?: SeriesActionData }) {
  const { work, counts, chapter } = page;
  const { state, generate, stop } = useGeneration("/api/continue");
  const [plan, setPlan] = useState(page.plan);
  const [text, setText] = useState(actionData?.intent === "save" && actionData.content !== undefined ? actionData.content : (page.result?.text ?? ""));
  const [key, setKey] = useState(page.requestKey);
  const streaming = state.status === "streaming";
  const posting = useIsPending({ intent: "generate", state: "non-idle" });
  const saving = useIsPending({ intent: "save", state: "non-idle" });
  const generateError = actionData?.intent === "generate" ? actionData.error : state.status === "error" ? state.message : null;
  const saveError = actionData?.intent === "save" ? actionData.error : null;
  const charged = state.status === "done" ? state.summary : null;
  const contextUrl = `/works/${work.id}/context?chapter=${chapter}${plan ? `&plan=${encodeURIComponent(plan)}` : ""}`;

  const onGenerate = async (event: React.FormEvent<HTMLFormElement>) => {
    // 按当前计划预览 is a plain GET to 本次上下文: let the form navigate.
    if ((event.nativeEvent as SubmitEvent).submitter?.getAttribute("formmethod") === "get") return;
    event.preventDefault();
    const body = new FormData(event.currentTarget);
    body.delete("intent");
    setText("");
    let acc = "";
    await generate(body, (piece) => {
      acc += piece;
      setText(acc);
    });
    // Each 生成 has its own key: a second press is a new generation, a resent one is not.
    setKey(freshKey());
  };

  return (
    <div className="series-continuation">
      <p className="series-counts">
        《{work.title}》已发布 {counts.published} 章{counts.unpublished ? `，另有 ${counts.unpublished} 章存稿或定时发布` : ""}。章节序号按已发布章节计算：这次续写
        <strong>第{chapter}章</strong>。
      </p>
      {page.chapterError ? (
        <p className="notice notice-error" role="alert">
          {page.chapterError}
        </p>
      ) : null}
      {page.saved ? (
        <p className="notice notice-success" role="status">
          {page.saved.mode === "publish" ? "已发布为新章节" : "已存为存稿章节"}。<AppLink to={`/works/${work.id}/chapters/${page.saved.chapterId}`}>打开章节</AppLink>
        </p>
      ) : null}
      <div className="writing-grid">
        <div className="writing-column">
          <section className="writing-card" aria-labelledby="series-summaries">
            <h2 id="series-summaries">最近几章摘要</h2>
            {page.context?.summaries ? (
              <ul className="series-list" data-testid="context-summaries">
                {page.context.summaries.split("\n").map((line, i) => (
                  <li key={i}>{line}</li>
                ))}
              </ul>
            ) : (
              <p className="muted">还没有章节摘要。可以在<AppLink to={`/works/${work.id}/bible?tab=summaries`}>故事设定</AppLink>中填写，或开启发布后的AI摘要。</p>
            )}
            {page.context ? <MissingSummaries workId={work.id} chapter={chapter} missing={page.context.missingSummaries} excerpts={page.context.excerpts} /> : null}
          </section>
          <section className="writing-card" aria-labelledby="series-facts">
            <h2 id="series-facts">第{chapter}章有效的设定</h2>
            <p className="hint">续写时发送给AI的设定：本章计划或上一章结尾提到的，以及设为“总是带上”的。</p>
            {page.context ? <ContextEntities entities={page.context.entities} /> : <p className="muted">{"blocked" in page.estimate ? page.estimate.blocked : ""}</p>}
            <p>
              <AppLink to={`/works/${work.id}/bible`}>编辑故事设定</AppLink>
            </p>
          </section>
          <section className="writing-card" aria-labelledby="series-threads">
            <h2 id="series-threads">未回收的伏笔</h2>
            {page.context ? <ContextThreads threads={page.context.threads} /> : null}
          </section>
        </div>
        <div className="writing-column">
          <section className="writing-card" aria-labelledby="series-plan">
            <h2 id="series-plan">本章计划</h2>
            <Form method="post" onSubmit={onGenerate} aria-labelledby="series-plan">
              <input type="hidden" name="workId" value={work.id} />
              <input type="hidden" name="chapter" value={chapter} />
              <input type="hidden" name="requestKey" value={key} />
              <label className="field">
                <textarea
                  name="plan"
                  rows={6}
                  maxLength={PLAN_MAX_CHARS}
                  value={plan}
                  onChange={(e) => setPlan(e.target.value)}
                  placeholder="这一章要写什么：出场人物、发生的事、结尾停在哪里（可以留空，AI会根据前文摘要续写）"
                  aria-label="本章计划"
                />
              </label>
              <p className="hint">
                {"blocked" in page.estimate ? page.estimate.blocked : <EstimateLine base={page.estimate} plan={plan} balance={balance} />}{" "}
                <AppLink to={contextUrl}>查看本次上下文</AppLink>
              </p>
              {generateError ? (
                <p className="notice notice-error" role="alert">
                  {generateError}
                </p>
              ) : null}
              {page.resultMissing ? (
                <p className="notice notice-error" role="alert">
                  {page.resultMissing}
                </p>
              ) : null}
              <div className="form-actions">
                <button type="submit" name="intent" value="generate" className="btn btn-primary" disabled={streaming || posting}>
                  {streaming || posting ? "生成中..." : "生成下一章"}
                </button>
                {streaming ? (
                  <button type="button" className="btn" onClick={stop}>
                    停止
                  </button>
                ) : null}
                {/* Without JavaScript the estimate follows the plan here: the preview of this plan. */}
                <button type="submit" className="btn" formMethod="get" formAction={`/works/${work.id}/context`} formNoValidate>
                  按当前计划预览
                </button>
              </div>
            </Form>
            {charged ? (
              <p className="muted" role="status">
                已生成 {charged.outputChars} 字，扣除 {formatTokens(charged.charged)} Tokens（{charged.metering === "actual" ? "实际" : "估算"}）。{charged.notice ?? ""}
                {charged.cliches ? <ClicheLine counts={charged.cliches} workId={work.id} /> : null}
              </p>
            ) : page.result ? (
              <p className="muted" role="status">
                已生成 {Array.from(page.result.text).length} 字，扣除 {formatTokens(page.result.charged)} Tokens。{page.result.notice ?? ""}
                <ClicheLine counts={page.result.cliches} workId={work.id} />
              </p>
            ) : null}
          </section>
          <section className="writing-card" aria-labelledby="series-result">
            <h2 id="series-result">第{chapter}章正文</h2>
            <Form method="post" preventScrollReset aria-labelledby="series-result">
              <input type="hidden" name="workId" value={work.id} />
              <input type="hidden" name="chapter" value={chapter} />
              <FormTokenField token={page.formToken} />
              <label className="field">
                <span>章节标题</span>
                <input name="title" maxLength={100} defaultValue={actionData?.intent === "save" && actionData.title ? actionData.title : defaultChapterTitle(chapter)} />
              </label>
              <label className="field">
                <span>正文（可以修改后再保存）</span>
                <textarea name="content" rows={20} value={text} readOnly={streaming} onChange={(e) => setText(e.target.value)} aria-busy={streaming || undefined} />
              </label>
              <p className="hint">
                保存为《{work.title}》的最后一章。AI生成的文字会按生成记录标注（AI辅助或AI生成）。
              </p>
              {saveError ? (
                <p className="notice notice-error" role="alert">
                  {saveError}
                </p>
              ) : null}
              <div className="form-actions">
                <button type="submit" name="mode" value="draft" className="btn btn-primary" disabled={streaming || saving}>
                  存为草稿
                </button>
                <button type="submit" name="mode" value="publish" className="btn" disabled={streaming || saving}>
                  发布
                </button>
                <input type="hidden" name="intent" value="save" />
              </div>
            </Form>
          </section>
          {page.beats && text ? <BeatCoveragePanel beats={page.beats} text={text} /> : null}
        </div>
      </div>
    </div>
  );
}
