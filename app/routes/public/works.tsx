import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { Form, Link, useLoaderData, useNavigation } from "react-router";
import { WorkFilterForm } from "~/components/discovery/work-filter-form";
import { WorkCard } from "~/components/work-card";
import { Pagination } from "~/components/ui/pagination";
import { filterParams, hasFilters, parseWorkFilters } from "~/schemas/discovery";
import { listCategories } from "~/server/catalog/categories.server";
import { authorNickname } from "~/server/identity/profile.server";
import { searchWorks } from "~/server/catalog/search.server";
import { getSessionUser } from "~/server/identity/session.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/works";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

export const meta: Route.MetaFunction = ({ data }) => [
  { title: data?.query ? `搜索“${data.query}” - 砚台` : data?.author ? `${data.author.nickname}的作品 - 砚台` : "全部作品 - 砚台" },
];

export async function loader({ request, url }: Route.LoaderArgs) {
  const user = await getSessionUser(request);
  const filters = parseWorkFilters(url.searchParams);
  const [result, defaultCoverUrl, categories, nickname] = await Promise.all([
    searchWorks({
      query: url.searchParams.get("q") ?? "",
      filters,
      page: parsePage(url.searchParams.get("page")),
      viewer: user,
    }),
    getDisplayConfigValue("default_cover_url"),
    listCategories(),
    filters.authorId ? authorNickname(filters.authorId) : null,
  ]);
  // `?author=`: one author's works, where author names link (docs/decisions/162).
  const author = filters.authorId ? { id: filters.authorId, nickname: nickname ?? "未知作者" } : null;
  return { ...result, filters, filtered: hasFilters(filters), author, defaultCoverUrl, categories };
}

export default function WorksSearch() {
  const { works, total, totalCapped, page, pageCount, query, filters, filtered, author, defaultCoverUrl, categories } =
    useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const loading = navigation.state === "loading" && navigation.location.pathname === "/works";
  const hrefFor = (p: number) => `/works?${new URLSearchParams([["q", query], ...filterParams(filters), ["page", String(p)]])}`;
  return (
    <section className="works-search" aria-labelledby="works-title">
      {author ? (
        <h1 id="works-title" className="works-author-title">
          {author.nickname}的作品
        </h1>
      ) : (
        <h1 id="works-title" className="sr-only">
          {query ? "搜索作品" : "全部作品"}
        </h1>
      )}
      <Form method="get" action="/works" className="search-box" role="search">
        <input
          type="search"
          name="q"
          defaultValue={query}
          key={query}
          placeholder="搜索作品标题、简介或作者"
          aria-label="搜索作品"
          maxLength={100}
        />
        <input type="hidden" name="page" value="1" />
        <button type="submit" className="btn btn-primary">
          搜索
        </button>
      </Form>
      <details className="filter-details" open={filtered}>
        <summary>筛选与排序</summary>
        <WorkFilterForm action="/works" query={query} filters={filters} categories={categories} />
      </details>
      {loading ? (
        <p className="loading" role="status">
          加载中...
        </p>
      ) : null}
      {query || filtered ? (
        <p className="result-summary">
          {totalCapped
            ? `${query ? `“${query}”的搜索结果，` : "筛选结果，"}共 ${total}+ 部作品，仅显示前 ${pageCount} 页`
            : `${query ? `“${query}”的搜索结果，` : "筛选结果，"}共 ${total} 部作品`}
          {author ? (
            <>
              {" "}
              <Link to={query ? `/works?${new URLSearchParams([["q", query]])}` : "/works"}>不限作者</Link>
            </>
          ) : null}
        </p>
      ) : null}
      {works.length === 0 ? (
        <p className="empty-state">{query || filtered ? "未找到相关作品" : "暂无作品"}</p>
      ) : (
        <div className="work-grid">
          {works.map((work) => (
            <WorkCard key={work.id} work={work} defaultCoverUrl={defaultCoverUrl} headingLevel={2} />
          ))}
        </div>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} />
    </section>
  );
}
