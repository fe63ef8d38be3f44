import { useEffect, useRef, useState } from "react";
import { Form, useFetcher, useNavigate, useNavigation, useRevalidator } from "react-router";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import type { GenerationEstimate } from "~/utils/ai-tokens";
import type { WritingActionData } from "~/types/writing";
import { HiddenFields } from "./hidden-fields";
import type { PlotView } from "./plot-panel";
import { useAutosave } from "./use-autosave";
import { useGeneration } from "./use-generation";
import { useWritingHref, useWritingParam } from "./url";
import { CandidatesPanel, LiveCandidates, OperationControls, type OperationView } from "./operations";
import { useOperation } from "./use-operation";
import { TEXT_OPERATION_LABELS, type TextOperation } from "~/schemas/writing";
import { FormError } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";
import { formatNumber } from "~/utils/format";

export type Estimate = (GenerationEstimate & { expectedWords: number; referenceChars: number }) | { blocked: string } | null;

const NOTICES: Record<string, string> = {
  "tokens-exhausted": AI_MESSAGES.tokensExhausted,
  "daily-cap": AI_MESSAGES.dailyCapReached,
  limit: AI_MESSAGES.lengthLimit,
  uncovered: AI_MESSAGES.usageNotCoveredShort,
};

/**
 * The selected plot's text with 保存 and 生成 (docs/product.md: Screens, States and actions). Before
 * generating it shows the estimated prompt cost beside the balance; while streaming the
 * button reads 生成中... and the text grows as it arrives; afterwards it shows what was
 * charged. On an error the text goes back to what it was. Without JavaScript 生成 posts
 * the form and the page comes back with the finished text.
 */
export function PlotEditor({
  plot,
  projectId,
  balance,
  estimate,
  generated,
  actionData,
  requestKey,
  operation,
}: {
  plot: PlotView;
  projectId: string;
  balance: number;
  estimate: Estimate;
  generated: { tokensCharged: number } | null;
  actionData?: WritingActionData;
  requestKey: string;
  operation: OperationView | null;
}) {
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const { state, generate, stop } = useGeneration();
  const { state: opState, operate, stop: stopOperation } = useOperation();
  const navigate = useNavigate();
  const href = useWritingHref();
  // The text box: its selection (kept after it loses focus) is what an operation works on;
  // `touched` says the author put a cursor in it (续写 continues there).
  const textRef = useRef<HTMLTextAreaElement>(null);
  const touched = useRef(false);
  const [opKind, setOpKind] = useState<TextOperation>("polish");
  const [content, setContent] = useState(plot.content);
  const form = useRef<HTMLFormElement>(null);
  const notice = NOTICES[useWritingParam("notice")];
  const streaming = state.status === "streaming" || opState.status === "streaming";
  const posting = useIsPending({ field: { name: "plotId", value: plot.id }, state: "non-idle" });
  const generatingWithoutScript = posting && navigation.formData?.get("intent") === "generate";

  // The text is saved as it is typed (as the draft is), one fetcher per plot.
  const autosave = useFetcher<WritingActionData>({ key: `plot-content-${plot.id}` });
  const { schedule, flush, waiting } = useAutosave(() => autosave.state !== "idle");
  // The text last sent to the server for this plot: its own autosave coming back through
  // revalidation must not overwrite what was typed since.
  const sent = useRef({ plotId: plot.id, content: plot.content });

  // A new plot, or new text from the server (a version made current, a finished generation).
  useEffect(() => {
    // Text still waiting for the previous plot is saved now, for that plot.
    if (sent.current.plotId !== plot.id) flush();
    const samePlot = sent.current.plotId === plot.id;
    const ownSave = samePlot && sent.current.content === plot.content;
    sent.current = { plotId: plot.id, content: plot.content };
    if (!streaming && !ownSave) setContent(plot.content);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [plot.id, plot.content]);

  function onType(value: string) {
    setContent(value);
    const plotId = plot.id;
    schedule(() => {
      sent.current = { plotId, content: value };
      autosave.submit({ intent: "save-content", projectId, selectedPlotId: plotId, plotId, content: value, fetcher: "1" }, { method: "post" });
    });
  }

  async function onGenerate(event: React.MouseEvent<HTMLButtonElement>) {
    event.preventDefault();
    if (!form.current || streaming) return;
    const before = content;
    const body = new FormData(form.current);
    body.set("content", before);
    const theme = document.getElementById("writing-theme");
    if (theme instanceof HTMLTextAreaElement) body.set("theme", theme.value);
    let text = "";
    setContent("");
    const result = await generate(body, (piece) => {
      text += piece;
      setContent(text);
    });
    if (result.status === "error") setContent(before);
    if (result.status === "done" || (result.status === "idle" && text)) revalidator.revalidate();
  }

  async function onOperate(event: React.MouseEvent<HTMLButtonElement>) {
    event.preventDefault();
    if (!form.current || streaming) return;
    const body = new FormData(form.current);
    body.set("content", content);
    body.set("plotId", plot.id);
    setOpKind(String(body.get("operation") ?? "polish") as TextOperation);
    // A selection (or, for 续写, a cursor) made in the text wins over the paragraph number.
    const el = textRef.current;
    if (el && (el.selectionStart !== el.selectionEnd || (body.get("operation") === "continue" && touched.current))) {
      body.set("start", String(el.selectionStart));
      body.set("end", String(el.selectionEnd));
      body.delete("paragraph");
    }
    const result = await operate(body);
    // Each press is a new request: the page's next key comes with the revalidated loader.
    const id = result.status === "done" ? result.operationId : result.status === "error" ? result.operationId : undefined;
    if (id) navigate(href({ op: id }), { preventScrollReset: true });
    else revalidator.revalidate();
  }

  const summary = state.status === "done" ? state.summary : null;
  // The balance as it stands: after the prompt's reservation while streaming, after the charge when done.
  const shownBalance = summary?.balance ?? (state.status === "streaming" ? state.balance : undefined) ?? balance;
  const error =
    state.status === "error"
      ? state.message
      : opState.status === "error"
        ? opState.message
        : actionData?.intent === "generate" || actionData?.intent === "operate" || actionData?.intent === "accept-candidate" || actionData?.intent === "reject-operation"
          ? actionData.error
          : undefined;
  const contentError = actionData?.intent === "save-content" ? (actionData.result?.error?.content?.[0] ?? actionData.error) : undefined;
  const autosaveError = autosave.data && !autosave.data.ok ? (autosave.data.result?.error?.content?.[0] ?? autosave.data.error) : undefined;

  return (
    <>
    <section className="writing-card plot-editor" aria-labelledby="editor-heading">
      <div className="card-head">
        <h2 id="editor-heading">正文：{plot.title}</h2>
        <span className="muted">约{plot.expectedWords}字</span>
      </div>
      <p className="cost-line" data-testid="cost-line">
        {estimate && "tokens" in estimate ? (
          <>
            预计消耗约 <strong data-testid="estimate-tokens">{estimate.tokens}</strong> Tokens（提示词 <span data-testid="prompt-cost">{estimate.promptTokens}</span>
            {estimate.referenceChars ? <span data-testid="reference-chars">，含参考作品节选 {estimate.referenceChars} 字</span> : null} + 正文约{estimate.expectedWords}字{" "}
            {estimate.outputTokens}，按每4字1 Tokens预估；结束后按 AI 服务商报告的实际用量结算，未报告时按每4字1 Tokens）
          </>
        ) : estimate && "blocked" in estimate ? (
          <span className="hint">{estimate.blocked}</span>
        ) : null}
        <span className="cost-balance">
          Tokens余额 <strong data-testid="token-balance">{formatNumber(shownBalance)}</strong>
        </span>
      </p>
      <Form method="post" ref={form} preventScrollReset className="editor-form">
        <HiddenFields projectId={projectId} selectedPlotId={plot.id} />
        <input type="hidden" name="plotId" value={plot.id} />
        <textarea
          name="content"
          aria-label="情节正文"
          rows={18}
          value={content}
          readOnly={streaming || generatingWithoutScript || operation?.status === "open"}
          onChange={(e) => onType(e.target.value)}
          ref={textRef}
          onFocus={() => {
            touched.current = true;
          }}
          placeholder="点击“生成”，AI 会根据设定写出这段情节；也可以直接在这里写。"
          aria-busy={streaming}
        />
        <FormError errors={contentError} />
        <span className="muted" aria-live="polite" data-testid="content-autosave">
          {autosave.state !== "idle" ? "保存中..." : waiting ? "未保存" : autosave.data?.ok ? "已自动保存" : autosaveError ?? ""}
        </span>
        <div className="form-actions">
          {streaming ? (
            <button type="button" className="btn" onClick={stop}>
              停止
            </button>
          ) : null}
          <button type="submit" name="intent" value="save-content" className="btn" disabled={streaming || posting}>
            {posting && navigation.formData?.get("intent") === "save-content" ? "保存中..." : "保存正文"}
          </button>
          <button type="submit" name="intent" value="generate" className="btn btn-primary" onClick={onGenerate} disabled={streaming || posting}>
            {streaming || generatingWithoutScript ? "生成中..." : "生成"}
          </button>
        </div>
        <OperationControls requestKey={requestKey} disabled={streaming || posting || generatingWithoutScript} onOperate={onOperate} />
      </Form>
      <FormError errors={error} />
      {summary ? (
        <p className="notice notice-success" role="status" data-testid="charge">
          本次消耗 {summary.charged} Tokens（{summary.metering === "actual" ? "实际用量" : "估算"}：输入 {summary.inputTokens} + 输出 {summary.outputTokens}）
          {summary.notice ? <span className="notice-extra">{summary.notice}</span> : null}
        </p>
      ) : generated && state.status === "idle" ? (
        <p className="notice notice-success" role="status" data-testid="charge">
          本次消耗 {generated.tokensCharged} Tokens
          {notice ? <span className="notice-extra">{notice}</span> : null}
        </p>
      ) : null}
    </section>
    {opState.status === "streaming" ? (
      <LiveCandidates kind={TEXT_OPERATION_LABELS[opKind]} candidates={opState.candidates} onStop={stopOperation} />
    ) : operation ? (
      <CandidatesPanel operation={operation} projectId={projectId} plotId={plot.id} closeHref={href({ op: null })} />
    ) : null}
    </>
  );
}
