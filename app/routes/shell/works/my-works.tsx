import { Form, Link, useLoaderData, useNavigation } from "react-router";
import { MyWorkCard } from "~/components/works/my-work-card";
import { Pagination } from "~/components/ui/pagination";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { handleMyWorksAction } from "./my-works-actions.server";
import { normalizeQuery } from "~/server/catalog/search-sql.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { listMyWorks, type MyWorksTab } from "~/server/catalog/works.server";
import { workReviewFacts } from "~/server/studio/work-review.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/my-works";

const TABS: { id: MyWorksTab; label: string; empty: string }[] = [
  { id: "paid", label: "付费", empty: "暂无付费作品" },
  { id: "free", label: "免费", empty: "暂无免费作品" },
  { id: "private", label: "未公开", empty: "暂无未公开作品" },
];

export const meta: Route.MetaFunction = () => [{ title: "我的作品 - 砚台" }];

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const tabParam = url.searchParams.get("tab");
  const tab = (TABS.find((t) => t.id === tabParam)?.id ?? "paid") as MyWorksTab;
  const sort = url.searchParams.get("sort") === "oldest" ? "oldest" : "newest";
  const query = normalizeQuery(url.searchParams.get("q"));
  const [result, defaultCoverUrl] = await Promise.all([
    listMyWorks(user.id, { tab, sort, query, page: parsePage(url.searchParams.get("page")) }),
    getDisplayConfigValue("default_cover_url"),
  ]);
  // Works whose title, description, cover or tags wait for a reviewer (decision 214).
  const reviews = Object.fromEntries(await workReviewFacts(user.id, result.works.map((w) => w.id)));
  return { ...result, tab, sort, query, defaultCoverUrl, reviews, self: url.pathname + url.search };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  return handleMyWorksAction(user.id, await readForm(request));
}

export default function MyWorks({ actionData }: Route.ComponentProps) {
  const { works, page, pageCount, tab, sort, query, defaultCoverUrl, reviews, self } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const hrefFor = (p: number, overrides: Record<string, string> = {}) =>
    `/my-works?${new URLSearchParams({ tab, sort, q: query, page: String(p), ...overrides })}`;
  const emptyText = query ? "未找到匹配的作品" : TABS.find((t) => t.id === tab)!.empty;
  return (
    <section className="my-works">
      <div className="page-head">
        <h1>我的作品</h1>
        <Link className="btn btn-primary" to="/submit">上传作品</Link>
      </div>
      <nav className="tabs" aria-label="作品分类">
        {TABS.map((t) => (
          <Link key={t.id} to={`/my-works?tab=${t.id}`} className={t.id === tab ? "tab active" : "tab"} aria-current={t.id === tab ? "page" : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
      <Form method="get" className="toolbar" role="search">
        <input type="hidden" name="tab" value={tab} />
        <input type="search" name="q" defaultValue={query} key={query} placeholder="在此分类中搜索" aria-label="在此分类中搜索" maxLength={100} />
        <select name="sort" defaultValue={sort} aria-label="排序" onChange={(e) => e.currentTarget.form?.requestSubmit()}>
          <option value="newest">最新发布</option>
          <option value="oldest">最早发布</option>
        </select>
        <button type="submit" className="btn">搜索</button>
      </Form>
      {navigation.state === "loading" && navigation.location.pathname === "/my-works" ? <p className="loading">加载中...</p> : null}
      {works.length === 0 ? (
        <p className="empty-state">{emptyText}</p>
      ) : (
        <div className="work-grid">
          {works.map((work) => (
            <MyWorkCard key={work.id} work={work} defaultCoverUrl={defaultCoverUrl} back={self} review={reviews[work.id]}
              error={actionData && actionData.workId === work.id ? (Object.values(actionData.result.error ?? {}).flat()[0] ?? undefined) : undefined} />
          ))}
        </div>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => hrefFor(p)} window={3} />
    </section>
  );
}
