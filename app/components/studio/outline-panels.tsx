import { Form, Link } from "react-router";
import { beatCoverage, beatsText, OUTLINE_LIMITS, type Beat } from "~/schemas/outline";
import { formatShanghai } from "~/utils/shanghai-time";

/** The pieces of /works/:id/outline (decision 255): the 细纲 of one chapter, a draft job's state, an outline's versions. */

export type OutlineFormEcho = { intent?: string; error?: string; fields?: Record<string, string> };

/** The text a form shows: what was sent when it was refused, else the saved text. */
export const echoed = (echo: OutlineFormEcho | undefined, intent: string, key: string, match: Record<string, string>, saved: string) =>
  echo?.intent === intent && echo.fields && Object.entries(match).every(([k, v]) => echo.fields?.[k] === v) ? (echo.fields[key] ?? saved) : saved;

/** A form's refusal, by the form. */
export function Refused({ message }: { message: string | null | undefined }) {
  return message ? (
    <p className="notice notice-error" role="alert">
      {message}
    </p>
  ) : null;
}

export function ChapterOutline({
  workId,
  volumeId,
  chapter,
  echo,
}: {
  workId: number;
  volumeId: number;
  chapter: { chapter: number; id: number | null; beats: Beat[]; version: number; source: "author" | "ai" };
  echo?: OutlineFormEcho;
}) {
  const n = chapter.chapter;
  const refused = echo?.intent === "chapter-save" && echo.fields?.chapter === String(n) ? echo.error : null;
  const total = chapter.beats.reduce((s, b) => s + b.words, 0);
  return (
    <li className="studio-card outline-chapter" id={`chapter-${n}`}>
      <h3>
        第{n}章细纲{" "}
        {chapter.id ? (
          <span className="muted">
            （{chapter.beats.length} 个节拍，约 {total} 字，第 {chapter.version} 版{chapter.source === "ai" ? "，AI起草" : ""}）
          </span>
        ) : (
          <span className="muted">（未写）</span>
        )}
      </h3>
      <Form method="post" className="panel-form">
        <input type="hidden" name="volume" value={volumeId} />
        <input type="hidden" name="chapter" value={n} />
        <label className="field">
          <span>每行一个节拍：内容 | 字数（字数 {OUTLINE_LIMITS.minWords}–{OUTLINE_LIMITS.maxWords}，最多 {OUTLINE_LIMITS.beats} 个节拍）</span>
          <textarea
            name="beats"
            rows={Math.min(10, Math.max(3, chapter.beats.length + 1))}
            defaultValue={echoed(echo, "chapter-save", "beats", { chapter: String(n) }, beatsText(chapter.beats))}
            aria-label={`第${n}章细纲`}
            aria-invalid={refused ? true : undefined}
            placeholder={"林晚收到一封没有署名的信 | 400\n她在河边等到深夜 | 600"}
          />
        </label>
        <Refused message={refused} />
        <div className="form-actions">
          <button type="submit" name="intent" value="chapter-save" className="btn btn-primary">
            保存细纲
          </button>
          {chapter.id ? <Link to={`/series-writing?work=${workId}&chapter=${n}`}>按细纲续写第{n}章</Link> : null}
          {chapter.id && chapter.version > 1 ? <Link to={`/works/${workId}/outline?history=${chapter.id}&volume=${volumeId}#history`}>历史版本</Link> : null}
        </div>
      </Form>
    </li>
  );
}

type Job = { state: string; nextChapter: number; toChapter: number; reason: string | null; attempts: number };

/** Where a 细纲 draft job is: generating (from which chapter), done, or stopped and why. */
export function DraftJobState({ job }: { job: Job | null }) {
  if (!job) return null;
  const text =
    job.state === "pending"
      ? `AI正在起草细纲：下一批从第${job.nextChapter}章开始（到第${job.toChapter}章）。${job.reason ? `上一次没有成功：${job.reason}；稍后会自动重试。` : ""}`
      : job.state === "done"
        ? "AI已起草完这一卷的细纲。"
        : `细纲生成已停止：${job.reason ?? ""}`;
  return (
    <p className={job.state === "failed" || job.state === "skipped" || job.reason ? "notice notice-error" : "notice"} role="status" data-testid="outline-job">
      {text}
    </p>
  );
}

type Version = { id: number; version: number; title: string; body: string; beats: Beat[]; source: "author" | "ai"; savedAt: Date | string };

export function OutlineHistory({ label, current, versions, back }: { label: string; current: number; versions: Version[]; back: string }) {
  return (
    <section aria-labelledby="history">
      <h2 id="history">{label}的历史版本</h2>
      <p className="muted">当前是第 {current} 版。恢复一个旧版本时，当前的内容也会保存为一个版本。</p>
      {versions.length === 0 ? <p className="empty-state">还没有旧版本。</p> : null}
      <ul className="bible-facts">
        {versions.map((v) => (
          <li key={v.id} className="studio-card">
            <p>
              <strong>第 {v.version} 版</strong>
              <span className="muted">
                {" "}
                {formatShanghai(v.savedAt)}
                {v.source === "ai" ? "，AI起草" : ""}
              </span>
            </p>
            {v.title ? <p>{v.title}</p> : null}
            {v.body ? <p className="outline-text">{v.body}</p> : null}
            {v.beats.length ? (
              <ol>
                {v.beats.map((b, i) => (
                  <li key={i}>
                    {b.text}（约{b.words}字）
                  </li>
                ))}
              </ol>
            ) : null}
            <Form method="post" className="inline-form">
              <input type="hidden" name="version" value={v.id} />
              <input type="hidden" name="back" value={back} />
              <button type="submit" name="intent" value="restore" className="btn">
                恢复第 {v.version} 版
              </button>
            </Form>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * 连载续写 from a 细纲: which beats the text covered and the 字 under each (decision 256),
 * counted from the beat markers as the text streams in and as the author edits it.
 */
export function BeatCoveragePanel({ beats, text }: { beats: Beat[]; text: string }) {
  const coverage = beatCoverage(beats, text);
  return (
    <section className="writing-card" aria-labelledby="beat-coverage" data-testid="beat-coverage">
      <h2 id="beat-coverage">
        细纲节拍：已写到 {coverage.covered} / {beats.length} 个
      </h2>
      <p className="hint">正文按节拍标记（如【节拍1】）分段计数；保存章节时会去掉这些标记。</p>
      <table className="data-table">
        <thead>
          <tr>
            <th scope="col">节拍</th>
            <th scope="col">计划字数</th>
            <th scope="col">实际字数</th>
            <th scope="col">状态</th>
          </tr>
        </thead>
        <tbody>
          {coverage.beats.map((b) => (
            <tr key={b.n}>
              <td>
                {b.n}. {b.text}
              </td>
              <td>{b.budget}</td>
              <td>{b.words}</td>
              <td>{b.covered ? "已写到" : "未写到"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {coverage.before ? <p className="muted">第一个节拍标记之前还有 {coverage.before} 字。</p> : null}
    </section>
  );
}
