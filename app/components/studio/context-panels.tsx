import { Form } from "react-router";
import { AppLink } from "~/components/ui/app-link";
import { ENTITY_KIND_LABELS, ENTITY_PROMPT_MODE_LABELS, SUMMARY_REQUEST_IDS, THREAD_OVERDUE_LABEL, type EntityKind } from "~/schemas/bible";
import { countChars, tokensForChars } from "~/utils/ai-tokens";
import { formatNumber, formatTokens } from "~/utils/format";
import { clicheCountLine, VOICE_SOURCE_LABELS, type VoiceSource } from "~/schemas/voice";

/**
 * What a serial's continuation prompt carries, as 连载续写 and 本次上下文 show it
 * (docs/product.md#continuation-context, decision 155). Every list comes from
 * assembleContinuationContext's result (contextView), so the page cannot show a set the
 * prompt does not send.
 */

type Entity = { id: number; name: string; kind: EntityKind; reason: "named" | "always"; facts: string[]; sent: boolean };
type Thread = { title: string; note: string; plantedChapter: number; dueChapter: number | null; overdue: boolean; sent: boolean };

/** "第3至5章、第8章" for a sorted list of chapter numbers. */
function chapterRanges(numbers: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    parts.push(i === j ? `第${numbers[i]}章` : `第${numbers[i]}至${numbers[j]}章`);
    i = j + 1;
  }
  return parts.join("、");
}

/** The entities sent with their facts in force; those the budget left out, by name. */
export function ContextEntities({ entities }: { entities: Entity[] }) {
  const sent = entities.filter((e) => e.sent);
  const left = entities.filter((e) => !e.sent);
  return (
    <>
      {sent.length ? (
        <ul className="series-list" data-testid="context-entities">
          {sent.map((e) => (
            <li key={e.id}>
              <strong>{e.name}</strong>（{ENTITY_KIND_LABELS[e.kind]}
              {e.reason === "always" ? `，${ENTITY_PROMPT_MODE_LABELS.always}` : ""}）{e.facts.length ? `：${e.facts.join("；")}` : ""}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">本章计划和上一章结尾没有提到任何设定，也没有设为“总是带上”的设定。</p>
      )}
      {left.length ? <p className="muted">超出上下文大小、未发送：{left.map((e) => e.name).join("、")}</p> : null}
    </>
  );
}

export function ContextThreads({ threads }: { threads: Thread[] }) {
  if (!threads.length) return <p className="muted">没有未回收的伏笔。</p>;
  const left = threads.filter((t) => !t.sent).length;
  return (
    <>
      <ul className="series-list" data-testid="context-threads">
        {threads
          .filter((t) => t.sent)
          .map((t, i) => (
            <li key={i}>
              {t.title}（第{t.plantedChapter}章埋下{t.dueChapter ? `，应在第${t.dueChapter}章前回收` : ""}）
              {t.overdue ? <span className="badge badge-r18">{THREAD_OVERDUE_LABEL}</span> : null}
              {t.note ? `：${t.note}` : ""}
            </li>
          ))}
      </ul>
      {left ? <p className="muted">另有 {left} 条超出上下文大小、未发送。</p> : null}
    </>
  );
}

/**
 * The chapters the prompt has no summary for, said plainly, with what was sent instead and
 * two ways to fill them: 让AI补写摘要 (queues summary jobs) or writing them by hand.
 */
export function MissingSummaries({
  workId,
  chapter,
  missing,
  excerpts,
}: {
  workId: number;
  chapter: number;
  missing: { n: number; id: number }[];
  excerpts: number[];
}) {
  if (!missing.length) return null;
  const shown = missing.map((m) => m.n);
  const previous = shown.includes(chapter - 1);
  const noText = shown.filter((n) => n !== chapter - 1 && !excerpts.includes(n));
  const instead = [
    excerpts.length ? `${chapterRanges(excerpts)}改为发送正文结尾的节选` : "",
    previous ? `第${chapter - 1}章的结尾已作为“上一章结尾”发送` : "",
    noText.length ? `${chapterRanges(noText)}的剧情不会发送给AI` : "",
  ].filter(Boolean);
  return (
    <div className="notice notice-warning" role="status" data-testid="missing-summaries">
      <p>
        {chapterRanges(shown)}没有摘要：{instead.join("；")}。
      </p>
      <Form method="post" action={`/works/${workId}/bible`} className="inline-form">
        {/* One request queues at most SUMMARY_REQUEST_IDS chapters: the latest ones, which the prompt uses most. */}
        <input type="hidden" name="chapterIds" value={missing.slice(-SUMMARY_REQUEST_IDS).map((m) => m.id).join(",")} />
        <button type="submit" name="intent" value="summaries-request" className="btn">
          {missing.length > SUMMARY_REQUEST_IDS ? `让AI补写最近 ${SUMMARY_REQUEST_IDS} 章的摘要` : "让AI补写这些摘要"}
        </button>{" "}
        <AppLink to={`/works/${workId}/bible?tab=summaries`}>手动填写摘要</AppLink>
      </Form>
    </div>
  );
}

export type LiveEstimateBase = { tokens: number; promptTokens: number; outputTokens: number; expectedWords: number; budget: number; chars: number; planChars: number };

/**
 * 预计消耗 for the plan as typed: the prompt as assembled for the loaded plan, with the
 * plan's characters replaced by the typed one's (the server trims it, and an empty plan is
 * sent as （无）), plus the expected output. Entities the new text names are counted when the
 * page is reloaded or previewed (查看本次上下文).
 */
function liveEstimate(base: LiveEstimateBase, plan: string) {
  const trimmed = plan.replace(/\r\n?/g, "\n").trim();
  const chars = base.chars - base.planChars + countChars(trimmed || "（无）");
  const promptTokens = tokensForChars(chars);
  return { promptTokens, tokens: promptTokens + base.outputTokens, overBudget: promptTokens > base.budget };
}

export function EstimateLine({ base, plan, balance }: { base: LiveEstimateBase; plan: string; balance?: number }) {
  const live = liveEstimate(base, plan);
  return (
    <span data-testid="context-estimate" aria-live="polite">
      预计消耗约 <strong data-testid="estimate-tokens">{formatNumber(live.tokens)}</strong> Tokens（提示词 {formatNumber(live.promptTokens)}，上限{" "}
      {formatNumber(base.budget)}；正文约{formatNumber(base.expectedWords)}字 {formatNumber(base.outputTokens)}，按每4字1 Tokens预估，结束后按实际用量结算）
      {live.overBudget ? "。计划太长，超出了上下文大小" : ""}
      {balance !== undefined ? `；余额 ${formatTokens(balance)} Tokens` : ""}。
    </span>
  );
}

interface VoiceContext {
  passages: { id: number; source: VoiceSource; excerpt: string; chars: number; tokens: number; sent: boolean }[];
  sampleChars: number;
  cliches: string[];
  clicheChars: number;
}

/**
 * The author's voice in the prompt (decision 257): each passage of the 文风 sample with its
 * cost, sent or left out over the budget, and the 套话 the model is asked to avoid.
 */
export function ContextVoice({ workId, voice }: { workId: number; voice: VoiceContext }) {
  const sent = voice.passages.filter((p) => p.sent);
  const left = voice.passages.filter((p) => !p.sent);
  return (
    <div data-testid="context-voice">
      {voice.passages.length === 0 ? (
        <p className="muted">
          还没有文风样本。<AppLink to={`/works/${workId}/bible?tab=voice`}>去添加</AppLink>
        </p>
      ) : (
        <>
          <p>
            文风样本：发送 {sent.length} / {voice.passages.length} 段，{formatNumber(voice.sampleChars)} 字，约 {formatTokens(tokensForChars(voice.sampleChars))} Tokens。
          </p>
          <ul className="series-list">
            {sent.map((p) => (
              <li key={p.id}>
                {p.excerpt}（{VOICE_SOURCE_LABELS[p.source]}，{p.chars} 字，约 {formatTokens(p.tokens)} Tokens）
              </li>
            ))}
          </ul>
          {left.length ? (
            <>
              <p className="muted">超出上下文大小、未发送的 {left.length} 段：</p>
              <ul className="series-list" data-testid="context-voice-left">
                {left.map((p) => (
                  <li key={p.id}>
                    {p.excerpt}（{p.chars} 字，约 {formatTokens(p.tokens)} Tokens）
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      )}
      <p>
        避免的套话 {voice.cliches.length} 条，约 {formatTokens(tokensForChars(voice.clicheChars))} Tokens：{voice.cliches.join("、")}
      </p>
    </div>
  );
}

/** 本次结果含套话 3 处：缓缓×2、深吸一口气×1, beside a continuation's result (decision 257). */
export function ClicheLine({ counts, workId }: { counts: { phrase: string; count: number }[]; workId: number }) {
  return (
    <span className="cliche-line" data-testid="cliche-count">
      {" "}
      {clicheCountLine(counts)}
      {counts.length ? (
        <>
          {" "}
          <AppLink to={`/works/${workId}/bible?tab=voice#voice-cliches`}>编辑套话</AppLink>
        </>
      ) : null}
    </span>
  );
}
