import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { Link, useLoaderData } from "react-router";
import { FanList } from "~/components/reader/fan-ranking";
import { workFanPage } from "~/server/community/fans.server";
import { getSessionUser } from "~/server/identity/session.server";
import { orRouteError } from "~/server/platform/errors.server";
import type { Route } from "./+types/fans";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

/**
 * A work's 粉丝榜 (docs/product.md#tips-and-fans, decision 207): its top fans by 粉丝值 with
 * nickname and level, the reader's own place, and the site's levels. Public, as the work.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `粉丝榜 - ${data.work.title} - 砚台` : "粉丝榜 - 砚台" }];

export async function loader({ request, params }: Route.LoaderArgs) {
  const viewer = await getSessionUser(request);
  return orRouteError(() => workFanPage(viewer, Number(params.id)));
}

export default function FansPage() {
  const page = useLoaderData<typeof loader>();
  return (
    <section className="fans-page">
      <p className="reader-breadcrumb">
        <Link to={`/works/${page.work.id}`}>{page.work.title}</Link>
      </p>
      <h1>粉丝榜</h1>
      {page.viewer && !page.isOwner ? (
        <p data-testid="my-fan-level">
          我的粉丝值 {page.viewer.fanValue} · 等级 {page.viewer.level}
          {page.viewer.place !== null ? ` · 第 ${page.viewer.place} 名` : page.viewer.outside !== null ? ` · 未进入前 ${page.viewer.outside} 名` : ""}
          {" · "}
          <Link to={`/works/${page.work.id}/tip`}>打赏作品</Link>
        </p>
      ) : null}
      <FanList fans={page.fans} />
      <h2>粉丝等级</h2>
      <p className="muted">在这部作品上每花 1 积分（打赏、订阅章节、购买全本）得 1 点粉丝值。</p>
      <ul className="fan-levels">
        {page.levels.map((l) => (
          <li key={l.name}>
            {l.name}：{l.threshold} 粉丝值起
          </li>
        ))}
      </ul>
    </section>
  );
}
