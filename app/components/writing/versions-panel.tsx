import { Form, Link, useLocation } from "react-router";
import { TEXT_OPERATION_LABELS, type TextOperation } from "~/schemas/writing";
import { HiddenFields } from "./hidden-fields";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { useWritingHref } from "./url";

export interface VersionRow {
  id: string;
  kind: "generation" | "manual";
  model: string | null;
  tokensCharged: number;
  length: number;
  endReason: string | null;
  /** An accepted operation on a selection (decision 130). */
  operation?: TextOperation | null;
  createdAt: Date | string;
}

export interface VersionText {
  id: string;
  content: string;
  createdAt: Date | string;
  kind: "generation" | "manual";
}

const REASONS: Record<string, string> = { "tokens-exhausted": "Tokens用完", "daily-cap": "每日上限", aborted: "中途停止", limit: "达到上限" };

/** Paragraphs of `a` not in `b`: what a side-by-side comparison highlights. */
function changed(a: string, b: string): Set<string> {
  const other = new Set(b.split("\n").map((p) => p.trim()));
  return new Set(a.split("\n").map((p) => p.trim()).filter((p) => p && !other.has(p)));
}

function Paragraphs({ text, highlight, mark }: { text: string; highlight: Set<string>; mark: "removed" | "added" }) {
  return (
    <div className="version-text">
      {text.split("\n").map((p, i) =>
        p.trim() ? (
          <p key={i} className={highlight.has(p.trim()) ? `diff-${mark}` : undefined}>
            {p}
          </p>
        ) : null,
      )}
    </div>
  );
}

/**
 * The versions of the selected plot (every generation and saved edit): look through
 * them, compare two side by side, make any of them the current text.
 */
export function VersionsPanel({
  versions,
  currentVersionId,
  projectId,
  plotId,
  viewed,
  compare,
}: {
  versions: VersionRow[];
  currentVersionId: string | null;
  projectId: string;
  plotId: string;
  viewed: VersionText | null;
  compare: { a: VersionText; b: VersionText } | null;
}) {
  const href = useWritingHref();
  const location = useLocation();
  const number = new Map(versions.map((v, i) => [v.id, versions.length - i]));
  const label = (id: string) => `版本${number.get(id) ?? ""}`;
  if (versions.length === 0) return null;
  return (
    <section className="writing-card" aria-labelledby="versions-heading">
      <h2 id="versions-heading">版本记录</h2>
      <table className="versions">
        <thead>
          <tr>
            <th>版本</th>
            <th>时间</th>
            <th>来源</th>
            <th>字数</th>
            <th>消耗</th>
            <th>操作</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr key={v.id} className={v.id === currentVersionId ? "current" : undefined}>
              <td>
                {label(v.id)}
                {v.id === currentVersionId ? <span className="badge">当前</span> : null}
              </td>
              <td>{formatShanghaiSeconds(v.createdAt)}</td>
              <td>
                {v.kind === "generation" ? `${v.operation ? `AI${TEXT_OPERATION_LABELS[v.operation]}` : "AI生成"} · ${v.model ?? ""}` : "手动保存"}
                {v.endReason && REASONS[v.endReason] ? `（${REASONS[v.endReason]}）` : ""}
              </td>
              <td>{v.length}</td>
              <td>{v.kind === "generation" ? `${v.tokensCharged} Tokens` : "—"}</td>
              <td className="version-actions">
                <Link to={href({ version: v.id, a: null, b: null })} preventScrollReset aria-label={`查看${label(v.id)}`}>
                  查看
                </Link>
                {v.id !== currentVersionId ? (
                  <Form method="post" preventScrollReset className="inline-form">
                    <HiddenFields projectId={projectId} selectedPlotId={plotId} />
                    <input type="hidden" name="versionId" value={v.id} />
                    <button type="submit" name="intent" value="use-version" className="link-button" aria-label={`将${label(v.id)}设为当前`}>
                      设为当前
                    </button>
                  </Form>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      {versions.length >= 2 ? (
        <Form method="get" action={location.pathname} preventScrollReset className="compare-form">
          <input type="hidden" name="project" value={projectId} />
          <input type="hidden" name="plot" value={plotId} />
          <label>
            对比
            <select name="a" defaultValue={compare?.a.id ?? versions[1].id} aria-label="对比的第一个版本">
              {versions.map((v) => (
                <option key={v.id} value={v.id}>{label(v.id)}</option>
              ))}
            </select>
          </label>
          <label>
            和
            <select name="b" defaultValue={compare?.b.id ?? versions[0].id} aria-label="对比的第二个版本">
              {versions.map((v) => (
                <option key={v.id} value={v.id}>{label(v.id)}</option>
              ))}
            </select>
          </label>
          <button type="submit" className="btn btn-small">对比</button>
        </Form>
      ) : null}

      {viewed ? (
        <section className="version-view" aria-label={`${label(viewed.id)}全文`}>
          <div className="card-head">
            <h3>{label(viewed.id)} · {formatShanghaiSeconds(viewed.createdAt)}</h3>
            <Link to={href({ version: null })} preventScrollReset className="btn btn-small">关闭</Link>
          </div>
          <Paragraphs text={viewed.content} highlight={new Set()} mark="added" />
        </section>
      ) : null}

      {compare ? (
        <section className="version-compare" aria-label="版本对比">
          <div className="card-head">
            <h3>{label(compare.a.id)} 与 {label(compare.b.id)}</h3>
            <Link to={href({ a: null, b: null })} preventScrollReset className="btn btn-small">关闭对比</Link>
          </div>
          <div className="compare-columns">
            <div>
              <h4>{label(compare.a.id)}</h4>
              <Paragraphs text={compare.a.content} highlight={changed(compare.a.content, compare.b.content)} mark="removed" />
            </div>
            <div>
              <h4>{label(compare.b.id)}</h4>
              <Paragraphs text={compare.b.content} highlight={changed(compare.b.content, compare.a.content)} mark="added" />
            </div>
          </div>
        </section>
      ) : null}
    </section>
  );
}
