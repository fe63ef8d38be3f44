import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { Link, useLoaderData } from "react-router";
import { upToParam, WikiBreadcrumb, WikiHorizon, wikiHref } from "~/components/reader/wiki";
import { noindex } from "~/components/shell/seo-meta";
import { getSessionUser } from "~/server/identity/session.server";
import { orRouteError } from "~/server/platform/errors.server";
import { workWiki } from "~/server/reading/wiki.server";
import type { Route } from "./+types/wiki";

/**
 * 角色百科 of a work (docs/product.md#story-wiki, decision 259): the characters, places, items
 * and factions the author put in it, each only once the reader has reached the chapter it
 * first appears in, as of the reader's chapter (?upTo= chooses an earlier one). Public, as the work.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `角色百科 - ${data.work.title} - 砚台` : "角色百科 - 砚台" }, noindex()];

/**
 * Per reader (their position and purchases), kept nowhere; a visitor's (the free chapters,
 * `?upTo=` in the address) is the page a CDN may keep (decision 263).
 */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

export async function loader({ request, params, url }: Route.LoaderArgs) {
  const viewer = await getSessionUser(request);
  return orRouteError(() => workWiki(viewer, Number(params.id), upToParam(url)));
}

export default function WikiPage() {
  const page = useLoaderData<typeof loader>();
  return (
    <section className="wiki-page">
      <WikiBreadcrumb horizon={page} />
      <h1>角色百科</h1>
      <WikiHorizon horizon={page} />
      {page.entities.length === 0 ? (
        <p className="empty-state">读到这里，还没有可以显示的词条。</p>
      ) : (
        <ul className="wiki-list">
          {page.entities.map((e) => (
            <li key={e.id} className="wiki-card">
              <h2>
                <Link to={wikiHref(page.work.id, page.upTo, e.id)}>{e.name}</Link> <span className="badge">{e.kind}</span>
              </h2>
              <p className="muted">第 {e.from} 章出场</p>
              {e.description ? <p className="wiki-description">{e.description}</p> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
