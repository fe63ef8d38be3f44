import { Form } from "react-router";
import { AppLink } from "~/components/ui/app-link";
import { OPERATION_LIMITS, TEXT_OPERATION_LABELS, TEXT_OPERATIONS, type TextOperation } from "~/schemas/writing";
import { HiddenFields } from "./hidden-fields";
import type { LiveCandidate } from "./use-operation";
import { useIsPending } from "~/components/ui/use-is-pending";
import { DiffView } from "~/components/ui/diff-view";
import { textDiff } from "~/utils/text-diff";

/**
 * The editor's operations on a selection (decision 130): the controls (inside the editor's
 * form, so without JavaScript the text on screen is sent and saved with them) and the
 * candidates, shown as differences against the selection to accept or reject.
 */
export function OperationControls({ requestKey, disabled, onOperate }: { requestKey: string; disabled: boolean; onOperate: (e: React.MouseEvent<HTMLButtonElement>) => void }) {
  return (
    <fieldset className="operation-controls">
      <legend>AI 修改</legend>
      <p className="hint" id="operation-hint">
        在正文中选中文字后选择改写、扩写、缩写或润色；续写从光标处接着写。没有选中文字时，按下面的段落编号处理（段落按非空行计数，留空为全文）。
      </p>
      <input type="hidden" name="requestKey" value={requestKey} />
      <label>
        操作
        <select name="operation" defaultValue="polish" aria-describedby="operation-hint">
          {TEXT_OPERATIONS.map((op) => (
            <option key={op} value={op}>
              {TEXT_OPERATION_LABELS[op]}
            </option>
          ))}
        </select>
      </label>
      <label>
        候选数
        <select name="count" defaultValue="1">
          {Array.from({ length: OPERATION_LIMITS.candidates }, (_, i) => (
            <option key={i} value={i + 1}>
              {i + 1}个
            </option>
          ))}
        </select>
      </label>
      <label>
        段落编号
        <input
          type="number"
          name="paragraph"
          min={1}
          inputMode="numeric"
          className="paragraph-input"
          placeholder="全文"
          onKeyDown={(e) => {
            // Enter here means 生成候选, not the form's first button (保存正文).
            if (e.key !== "Enter") return;
            e.preventDefault();
            e.currentTarget.closest("fieldset")?.querySelector<HTMLButtonElement>('button[value="operate"]')?.click();
          }}
        />
      </label>
      <button type="submit" name="intent" value="operate" className="btn" onClick={onOperate} disabled={disabled}>
        生成候选
      </button>
    </fieldset>
  );
}

export interface OperationView {
  id: string;
  kind: TextOperation;
  status: "open" | "accepted" | "rejected";
  source: string;
  acceptedIndex: number | null;
  candidates: {
    index: number;
    status: "generating" | "ready" | "failed";
    content: string;
    model: string | null;
    tokensCharged: number;
    endReason: string | null;
    error: string | null;
    receiptId: number | null;
  }[];
}

const ENDED: Record<string, string> = { "tokens-exhausted": "Tokens用完", "daily-cap": "每日上限", aborted: "中途停止", limit: "达到上限" };

/** The candidates while they stream (with JavaScript): plain text as it arrives, and 停止. */
export function LiveCandidates({ kind, candidates, onStop }: { kind: string; candidates: LiveCandidate[]; onStop: () => void }) {
  return (
    <section className="writing-card candidates" aria-labelledby="candidates-heading" aria-busy="true">
      <div className="card-head">
        <h2 id="candidates-heading">{kind}候选（生成中...）</h2>
        <button type="button" className="btn btn-small" onClick={onStop}>
          停止
        </button>
      </div>
      {candidates.length === 0 ? <p className="muted">正在连接 AI 服务...</p> : null}
      {candidates.map((c) => (
        <article key={c.index} className="candidate" aria-label={`候选${c.index + 1}`}>
          <h3>候选{c.index + 1}</h3>
          {c.status === "error" ? <p className="form-error" role="alert">{c.message}</p> : <p className="candidate-text">{c.text}</p>}
        </article>
      ))}
    </section>
  );
}

/** A finished operation: each candidate as differences against the selection, 采用 or 全部放弃. */
export function CandidatesPanel({ operation, projectId, plotId, closeHref }: { operation: OperationView; projectId: string; plotId: string; closeHref: string }) {
  const busy = useIsPending({ intent: ["accept-candidate", "reject-operation"], state: "non-idle" });
  const label = TEXT_OPERATION_LABELS[operation.kind];
  const open = operation.status === "open";
  return (
    <section className="writing-card candidates" aria-labelledby="candidates-heading">
      <div className="card-head">
        <h2 id="candidates-heading">{label}候选</h2>
        {!open ? (
          <AppLink to={closeHref} className="btn btn-small">
            关闭
          </AppLink>
        ) : null}
      </div>
      {operation.status === "accepted" ? (
        <p className="notice notice-success" role="status">已采用候选{(operation.acceptedIndex ?? 0) + 1}，已存为新版本。</p>
      ) : operation.status === "rejected" ? (
        <p className="notice" role="status">已放弃这些候选，正文保持不变。</p>
      ) : (
        <p className="muted">
          {operation.kind === "continue" ? "续写的内容将插入光标处。" : "对比的是选中的文字。"}采用后正文更新，并在版本记录中留下新版本。
        </p>
      )}
      {operation.candidates.map((c) => (
        <article key={c.index} className="candidate" aria-labelledby={`candidate-${c.index}`}>
          <div className="card-head">
            <h3 id={`candidate-${c.index}`}>候选{c.index + 1}</h3>
            {c.status === "ready" ? (
              <span className="muted">
                消耗 {c.tokensCharged} Tokens
                {c.endReason && ENDED[c.endReason] ? `（${ENDED[c.endReason]}）` : ""}
                {c.receiptId ? (
                  <>
                    {" · "}
                    <AppLink to={`/credits/receipts/${c.receiptId}`}>明细</AppLink>
                  </>
                ) : null}
              </span>
            ) : null}
          </div>
          {c.status === "failed" ? (
            <p className="form-error">{c.error ?? "生成失败，已退还Tokens"}</p>
          ) : c.status === "generating" ? (
            <p className="muted">生成中...</p>
          ) : (
            <>
              <DiffView parts={textDiff(operation.source, c.content)} />
              {open ? (
                <Form method="post" preventScrollReset className="inline-form">
                  <HiddenFields projectId={projectId} selectedPlotId={plotId} />
                  <input type="hidden" name="operationId" value={operation.id} />
                  <input type="hidden" name="index" value={c.index} />
                  <button type="submit" name="intent" value="accept-candidate" className="btn btn-primary btn-small" disabled={busy}>
                    采用候选{c.index + 1}
                  </button>
                </Form>
              ) : null}
            </>
          )}
        </article>
      ))}
      {open ? (
        <Form method="post" preventScrollReset className="inline-form">
          <HiddenFields projectId={projectId} selectedPlotId={plotId} />
          <input type="hidden" name="operationId" value={operation.id} />
          <button type="submit" name="intent" value="reject-operation" className="btn btn-small" disabled={busy}>
            全部放弃
          </button>
        </Form>
      ) : null}
    </section>
  );
}
