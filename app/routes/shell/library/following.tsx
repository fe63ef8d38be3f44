import { Link, useLoaderData } from "react-router";
import { ShelfCard } from "~/components/library/shelf-card";
import { Pagination } from "~/components/ui/pagination";
import { userContext } from "~/middleware/guards.server";
import { listShelf, parseShelfSort } from "~/server/reading/library.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/following";

export const meta: Route.MetaFunction = () => [{ title: "书架 - 砚台" }];

export async function loader({ url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const page = parsePage(url.searchParams.get("page"));
  const sort = parseShelfSort(url.searchParams.get("sort"));
  const [shelf, defaultCoverUrl] = await Promise.all([listShelf(user, sort, page), getDisplayConfigValue("default_cover_url")]);
  return { ...shelf, defaultCoverUrl };
}

const SORTS = [
  { value: "updated", label: "最近更新" },
  { value: "read", label: "最近阅读" },
] as const;

// Live: the shell layout's event stream reloads this page's data when the user's
// favourites change or a followed work changes (docs/product.md D9).
export default function Following() {
  const { items, hidden, page, pageCount, sort, defaultCoverUrl } = useLoaderData<typeof loader>();
  const base = sort === "updated" ? "/following" : `/following?sort=${sort}`;
  const hrefFor = (p: number) => (p > 1 ? `${base}${base.includes("?") ? "&" : "?"}page=${p}` : base);
  const back = hrefFor(page);
  return (
    <section className="library shelf">
      <h1>书架</h1>
      <nav className="shelf-sort" aria-label="排序">
        {SORTS.map((s) => (
          <Link
            key={s.value}
            to={s.value === "updated" ? "/following" : `/following?sort=${s.value}`}
            className={s.value === sort ? "chip chip-active" : "chip"}
            aria-current={s.value === sort ? "page" : undefined}
          >
            {s.label}
          </Link>
        ))}
      </nav>
      {items.length === 0 ? (
        <p className="empty-state">还没有关注的作品。在作品页点“关注”，作品就会出现在书架上。</p>
      ) : (
        <div className="shelf-grid">
          {items.map((item) => (
            <ShelfCard key={item.work.id} item={item} defaultCoverUrl={defaultCoverUrl} back={back} />
          ))}
        </div>
      )}
      {hidden > 0 ? <p className="muted library-hidden">另有 {hidden} 部作品已下架或因浏览设置被隐藏。</p> : null}
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} window={3} />
    </section>
  );
}
