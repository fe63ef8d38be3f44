import { Form, Link } from "react-router";
import { AI_REVIEW_LABEL, CONTINUITY_RULE_LABELS, STATE_LIMITS, type ContinuityRule } from "~/schemas/continuity-rules";

/**
 * The continuity checks' findings (decision 247), in the chapter editor and on the work's
 * /works/:id/continuity page: what was found, the sentence, the ledger fact with its
 * chapter (each linked), and 有意安排 with a note, or taking that back. Plain forms that
 * post to /works/:id/continuity; `back` says where to come back to.
 */

export type FindingView = {
  id: number;
  chapterId: number;
  chapterNumber: number;
  chapterTitle: string;
  rule: string;
  /** A rule's, or the AI 审读's (decision 258). */
  source: "rule" | "ai";
  entityId: number | null;
  message: string;
  quote: string;
  facts: { chapter: number | null; text: string; entityId: number | null }[];
  waived: boolean;
  waiverNote: string;
};

export function FindingsList({ workId, findings, back, showChapter }: { workId: number; findings: FindingView[]; back: "chapter" | "work"; showChapter: boolean }) {
  const action = `/works/${workId}/continuity`;
  return (
    <ul className="bible-list continuity-findings">
      {findings.map((f) => (
        <li key={f.id} id={`finding-${f.id}`} className={f.waived ? "studio-card" : "studio-card continuity-open"} data-testid="continuity-finding">
          <p>
            <span className={f.waived ? "badge" : "badge badge-r18"}>{f.source === "ai" ? AI_REVIEW_LABEL : (CONTINUITY_RULE_LABELS[f.rule as ContinuityRule] ?? f.rule)}</span> {f.message}
          </p>
          {f.quote ? (
            <blockquote className="continuity-quote">
              {showChapter ? (
                <Link to={`/works/${workId}/chapters/${f.chapterId}#continuity`}>
                  第{f.chapterNumber}章《{f.chapterTitle}》
                </Link>
              ) : (
                <span className="muted">本章</span>
              )}
              ：「{f.quote}」
            </blockquote>
          ) : showChapter ? (
            <p className="muted">
              <Link to={`/works/${workId}/chapters/${f.chapterId}#continuity`}>第{f.chapterNumber}章《{f.chapterTitle}》</Link>的状态记录
            </p>
          ) : null}
          <ul className="bible-facts">
            {f.facts.map((fact, i) => (
              <li key={i}>
                {fact.chapter ? <span className="chapter-state">第{fact.chapter}章</span> : null}{" "}
                {fact.entityId ? <Link to={`/works/${workId}/bible?entity=${fact.entityId}#e-${fact.entityId}`}>{fact.text}</Link> : fact.text}
              </li>
            ))}
          </ul>
          {f.waived ? (
            <Form method="post" action={action} className="row-actions">
              <span className="muted">已标为有意安排{f.waiverNote ? `：${f.waiverNote}` : ""}</span>
              <input type="hidden" name="id" value={f.id} />
              <input type="hidden" name="back" value={back} />
              <button type="submit" name="intent" value="finding-unwaive" className="btn">取消有意安排</button>
            </Form>
          ) : (
            <Form method="post" action={action} className="panel-form continuity-waive">
              <input type="hidden" name="id" value={f.id} />
              <input type="hidden" name="back" value={back} />
              <label className="field">
                <span>说明（可选）</span>
                <input type="text" name="note" maxLength={STATE_LIMITS.waiverNote} placeholder="例如：这是他的鬼魂" />
              </label>
              <button type="submit" name="intent" value="finding-waive" className="btn">标为有意安排</button>
            </Form>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The editor's panel: the chapter's findings and 重新检查. */
export function ChapterContinuity({ workId, chapterId, findings }: { workId: number; chapterId: number; findings: FindingView[] }) {
  const open = findings.filter((f) => !f.waived).length;
  return (
    <section id="continuity" className="studio-card continuity-panel" aria-labelledby="continuity-title">
      <h2 id="continuity-title">连续性检查{open ? `（${open} 处待处理）` : ""}</h2>
      {findings.length === 0 ? <p className="muted">保存时没有发现与状态记录矛盾的地方。</p> : null}
      <FindingsList workId={workId} findings={findings} back="chapter" showChapter={false} />
      <Form method="post" action={`/works/${workId}/continuity`} className="row-actions">
        <input type="hidden" name="chapterId" value={chapterId} />
        <input type="hidden" name="back" value="chapter" />
        <button type="submit" name="intent" value="recheck" className="btn">重新检查</button>
        <Link to={`/works/${workId}/continuity`}>全书的检查结果 →</Link>
      </Form>
    </section>
  );
}
