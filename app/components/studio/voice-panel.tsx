import { Form } from "react-router";
import { FormTokenField } from "~/components/ui/forms";
import { VOICE_LIMITS, VOICE_SOURCE_LABELS, VOICE_SOURCES, type VoiceSource } from "~/schemas/voice";
import { formatShanghai } from "~/utils/shanghai-time";
import { DeleteButton } from "./bible-panels";

interface Passage {
  id: number;
  content: string;
  source: VoiceSource;
  chars: number;
  createdAt: Date | string;
}

/**
 * The story bible's 文风 tab (decision 257): the work's 文风 sample, added a passage at a
 * time (pasted, or copied from a chapter or from AI text the author kept), and its 套话
 * list, the defaults shown beside the author's own.
 */
export function VoicePanel({ passages, defaults, own, formToken }: { passages: Passage[]; defaults: string[]; own: string[]; formToken: string }) {
  return (
    <div className="bible-panel">
      <h2 id="voice-sample">文风样本</h2>
      <p className="muted">
        挑几段最能代表你文风的文字：连载续写会把它们（最新加入的优先）和本章上下文一起发给AI，让AI学习你的语气、节奏和用词。样本最多占上下文大小的四分之一，放不下的段落不发送，在「本次上下文」里可以看到。
      </p>
      <Form method="post" className="studio-form bible-form studio-card">
        <FormTokenField token={formToken} />
        <label className="field">
          <span>样本文字（每段最多 {VOICE_LIMITS.passage} 字）</span>
          <textarea name="content" rows={6} maxLength={VOICE_LIMITS.passage} required placeholder="从自己的章节里复制一段，或粘贴一段采纳过的AI文字" />
        </label>
        <div className="choice-row" role="radiogroup" aria-label="来源">
          {VOICE_SOURCES.map((s) => (
            <label key={s} className="choice">
              <input type="radio" name="source" value={s} defaultChecked={s === "chapter"} />
              {VOICE_SOURCE_LABELS[s]}
            </label>
          ))}
        </div>
        <div className="form-actions">
          <button type="submit" name="intent" value="voice-add" className="btn btn-primary">加入文风样本</button>
        </div>
      </Form>
      {passages.length === 0 ? (
        <p className="empty-state">还没有文风样本。</p>
      ) : (
        <p className="muted">
          共 {passages.length} 段（最多 {VOICE_LIMITS.passages} 段），{passages.reduce((sum, p) => sum + p.chars, 0)} 字。
        </p>
      )}
      <ul className="bible-list" data-testid="voice-passages">
        {passages.map((p) => (
          <li key={p.id} id={`vp-${p.id}`} className="studio-card">
            <div className="card-head">
              <span className="badge">{VOICE_SOURCE_LABELS[p.source]}</span>
              <span className="muted">
                {p.chars} 字 · {formatShanghai(p.createdAt)}
              </span>
              <div className="row-actions">
                <DeleteButton intent="voice-delete" id={p.id} label="确认删除这段样本" />
              </div>
            </div>
            <p className="voice-passage">{p.content}</p>
          </li>
        ))}
      </ul>
      <h2 id="voice-cliches">避免的套话</h2>
      <p className="muted">续写时会要求AI避开这些词句，并在结果旁数出用了几处。</p>
      <p>
        默认套话：<span data-testid="default-cliches">{defaults.join("、")}</span>
      </p>
      <Form method="post" className="studio-form bible-form studio-card">
        <label className="field">
          <span>
            自己的套话（每行一条，{VOICE_LIMITS.clicheMin}–{VOICE_LIMITS.clicheMax} 字，最多 {VOICE_LIMITS.cliches} 条）
          </span>
          <textarea name="cliches" rows={5} defaultValue={own.join("\n")} placeholder={"例如：\n心头一颤\n眼神一凝"} />
        </label>
        <div className="form-actions">
          <button type="submit" name="intent" value="cliches-save" className="btn btn-primary">保存套话</button>
        </div>
      </Form>
    </div>
  );
}
