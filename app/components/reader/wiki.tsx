import { Form, Link } from "react-router";

/** What the 角色百科's pages share (decision 259): how far they are shown, and the form to choose it (a plain GET). */
type Horizon = { work: { id: number; title: string }; upTo: number; max: number; basis: "position" | "free" | "author"; published: number };

/** The pages' ?upTo=: a whole number, or none (the domain clamps it). */
export function upToParam(url: URL): number | null {
  const raw = url.searchParams.get("upTo");
  if (raw === null || raw.trim() === "") return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

/** The wiki's address as of a chapter. */
export function wikiHref(workId: number, upTo: number, entityId?: number): string {
  return `/works/${workId}/wiki${entityId ? `/${entityId}` : ""}?upTo=${upTo}`;
}

function basisText(h: Horizon): string {
  if (h.basis === "author") return `作者预览：可选任意已发布章节（共 ${h.published} 章），看到的就是读到那一章的读者看到的。`;
  if (h.basis === "position") return `按你的阅读进度，最多显示到第 ${h.max} 章；未购买的VIP章节里的内容不会显示。`;
  if (h.max === 0) return "购买作品后，按你的阅读进度显示。";
  return `还没有阅读进度：最多可选到第 ${h.max} 章（免费章节）。登录后按你的阅读进度显示。`;
}

export function WikiHorizon({ horizon, entityId }: { horizon: Horizon; entityId?: number }) {
  const h = horizon;
  return (
    <div className="wiki-horizon" data-testid="wiki-horizon">
      <p>
        {h.upTo > 0 ? (
          <>
            防剧透：只显示到 <strong>第 {h.upTo} 章</strong> 为止的内容。
          </>
        ) : (
          "防剧透：还没有可以显示的章节。"
        )}
      </p>
      <p className="muted">{basisText(h)}</p>
      {h.max > 1 ? (
        <Form method="get" action={`/works/${h.work.id}/wiki${entityId ? `/${entityId}` : ""}`} className="wiki-horizon-form">
          <label className="field">
            <span>我读到第几章</span>
            <input type="number" name="upTo" min={1} max={h.max} inputMode="numeric" defaultValue={h.upTo || 1} />
          </label>
          <button type="submit" className="btn btn-small">
            查看
          </button>
        </Form>
      ) : null}
    </div>
  );
}

export function WikiBreadcrumb({ horizon, entity }: { horizon: Horizon; entity?: boolean }) {
  return (
    <p className="reader-breadcrumb">
      <Link to={`/works/${horizon.work.id}`}>{horizon.work.title}</Link>
      {entity ? (
        <>
          {" / "}
          <Link to={wikiHref(horizon.work.id, horizon.upTo)}>角色百科</Link>
        </>
      ) : null}
    </p>
  );
}
