import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { data, useLoaderData } from "react-router";
import { WorkFilterForm } from "~/components/discovery/work-filter-form";
import { WorkCard } from "~/components/work-card";
import { BlockButton } from "~/components/blocks/block-button";
import { isTagBlocked } from "~/server/catalog/blocks.server";
import { Pagination } from "~/components/ui/pagination";
import { filterParams, parseWorkFilters } from "~/schemas/discovery";
import { tagHref } from "~/utils/hrefs";
import { normalizeTag, TAG_MAX_CHARS } from "~/schemas/tag-rules";
import { listCategories } from "~/server/catalog/categories.server";
import { searchWorks } from "~/server/catalog/search.server";
import { getSessionUser } from "~/server/identity/session.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/tag";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `#${data.tag} - 砚台` : "标签 - 砚台" }];

/** /tags/:name: the works carrying a tag, with the same filters as /works (docs/product.md#discovery). */
export async function loader({ request, params, url }: Route.LoaderArgs) {
  const tag = normalizeTag(params.name ?? "");
  if (!tag || Array.from(tag).length > TAG_MAX_CHARS) throw data("标签不存在", { status: 404 });
  const user = await getSessionUser(request);
  const asked = parseWorkFilters(url.searchParams);
  const filters = { ...asked, tags: [tag, ...asked.tags.filter((t) => t !== tag)].slice(0, 10) };
  const [result, defaultCoverUrl, categories, blocked] = await Promise.all([
    searchWorks({ query: "", filters, page: parsePage(url.searchParams.get("page")), viewer: user }),
    getDisplayConfigValue("default_cover_url"),
    listCategories(),
    isTagBlocked(user, tag),
  ]);
  return { ...result, tag, filters, defaultCoverUrl, categories, signedIn: user !== null, blocked };
}

export default function TagPage() {
  const { tag, works, total, totalCapped, page, pageCount, filters, defaultCoverUrl, categories, signedIn, blocked } = useLoaderData<typeof loader>();
  const here = tagHref(tag);
  const rest = { ...filters, tags: filters.tags.filter((t) => t !== tag) };
  const hrefFor = (p: number) => `${here}?${new URLSearchParams([...filterParams(rest), ["page", String(p)]])}`;
  return (
    <section className="works-search" aria-labelledby="tag-title">
      <h1 id="tag-title">#{tag}</h1>
      {blocked ? (
        <div className="notice notice-error blocked-notice" role="status" data-testid="tag-blocked">
          <span>你已屏蔽这个标签，带这个标签的作品不会出现在你看到的列表中。</span>
          <BlockButton kind="tag" value={tag} back={here} blocked>
            取消屏蔽
          </BlockButton>
        </div>
      ) : signedIn ? (
        <BlockButton kind="tag" value={tag} back={here}>
          屏蔽标签
        </BlockButton>
      ) : null}
      <p className="result-summary">{totalCapped ? `共 ${total}+ 部作品` : `共 ${total} 部作品`}</p>
      <WorkFilterForm action={here} filters={filters} categories={categories} fixedTag={tag} />
      {works.length === 0 ? (
        <p className="empty-state">没有带这个标签的作品</p>
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
