import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { useLoaderData } from "react-router";
import { upToParam, WikiBreadcrumb, WikiHorizon } from "~/components/reader/wiki";
import { noindex } from "~/components/shell/seo-meta";
import { getSessionUser } from "~/server/identity/session.server";
import { orRouteError } from "~/server/platform/errors.server";
import { wikiEntity } from "~/server/reading/wiki.server";
import type { Route } from "./+types/wiki-entity";

/**
 * One entry of a work's 角色百科 (decision 259): the entity's description and what is known
 * of it by chapter, only from chapters the reader has reached and may read.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `${data.entity.name} - 角色百科 - ${data.work.title} - 砚台` : "角色百科 - 砚台" }, noindex()];

/**
 * Per reader (their position and purchases), kept nowhere; a visitor's (the free chapters,
 * `?upTo=` in the address) is the page a CDN may keep (decision 263).
 */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

export async function loader({ request, params, url }: Route.LoaderArgs) {
  const viewer = await getSessionUser(request);
  return orRouteError(() => wikiEntity(viewer, Number(params.id), Number(params.entityId), upToParam(url)));
}

export default function WikiEntityPage() {
  const page = useLoaderData<typeof loader>();
  const { entity } = page;
  return (
    <section className="wiki-page">
      <WikiBreadcrumb horizon={page} entity />
      <h1>
        {entity.name} <span className="badge">{entity.kind}</span>
      </h1>
      <WikiHorizon horizon={page} entityId={entity.id} />
      <p className="muted">第 {entity.from} 章出场</p>
      {entity.description ? <p className="wiki-description">{entity.description}</p> : null}
      <h2>已知的情况</h2>
      {page.entries.length === 0 ? (
        <p className="empty-state">读到这里，还没有记下关于{entity.name}的事。</p>
      ) : (
        <ol className="wiki-entries" data-testid="wiki-entries">
          {page.entries.map((e, i) => (
            <li key={i}>
              <span className="chapter-state">{e.until ? `第${e.chapter}至${e.until}章` : `第${e.chapter}章`}</span> {e.text}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
