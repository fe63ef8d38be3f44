import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { Link, useLoaderData } from "react-router";
import { BooklistCards } from "~/components/booklists/booklist-cards";
import { Pagination } from "~/components/ui/pagination";
import { listBooklists, parseBooklistSort, type BooklistSort } from "~/server/community/booklists.server";
import { getSessionUser } from "~/server/identity/session.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/booklists";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

/**
 * `/booklists` (docs/product.md#booklists, decision 232): readers' public 书单, 热门 (most
 * followed) or 最新; only lists with a work this viewer may see.
 */
export const meta: Route.MetaFunction = () => [{ title: "书单 - 砚台" }];

const SORTS: Record<BooklistSort, string> = { popular: "热门书单", new: "最新书单" };

export async function loader({ request, url }: Route.LoaderArgs) {
  const viewer = await getSessionUser(request);
  const listed = await listBooklists(viewer, parseBooklistSort(url.searchParams.get("sort")), parsePage(url.searchParams.get("page")));
  return { ...listed, signedIn: viewer !== null };
}

export default function Booklists() {
  const { lists, sort, page, pageCount, signedIn } = useLoaderData<typeof loader>();
  return (
    <section className="booklists-page" aria-labelledby="booklists-title">
      <div className="booklists-head">
        <h1 id="booklists-title">书单</h1>
        {signedIn ? (
          <Link className="btn" to="/my-booklists">
            我的书单
          </Link>
        ) : null}
      </div>
      <nav aria-label="书单排序">
        <ul className="ranking-tabs">
          {(Object.keys(SORTS) as BooklistSort[]).map((s) => (
            <li key={s}>
              <Link to={`/booklists?sort=${s}`} aria-current={s === sort ? "page" : undefined}>
                {SORTS[s]}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {lists.length === 0 ? <p className="empty-state">还没有书单。在作品页点“加入书单”，就能建立自己的第一个书单。</p> : <BooklistCards lists={lists} />}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `/booklists?sort=${sort}&page=${p}`} />
    </section>
  );
}
