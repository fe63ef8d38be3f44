import { Form, Link } from "react-router";
import { DownloadLink } from "~/components/admin/download-link";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { WORK_TYPE_LABELS, formatNumber } from "~/utils/format";
import { Pagination } from "~/components/ui/pagination";
import { listWorksForAdmin, parseWorkFilters } from "~/server/admin/works-moderation.server";
import { normalizeQuery } from "~/server/catalog/search-sql.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/works";
import { AdminTable } from "~/components/admin/admin-table";

export const meta: Route.MetaFunction = () => [{ title: "作品管理 - 管理后台" }];

/**
 * 作品管理 (docs/product.md: Back office, works): every work, searched and filtered by
 * visibility (or taken down), type, rating, AI level and open comment reports; each opens
 * at /admin/works/:id, private ones included (decision 138).
 */

const VISIBILITY_LABELS = { public: "免费", "public-vip": "付费", private: "未公开" } as const;

export async function loader({ url }: Route.LoaderArgs) {
  const query = normalizeQuery(url.searchParams.get("q"));
  const filters = parseWorkFilters(url.searchParams);
  const result = await listWorksForAdmin({ query, filters, page: parsePage(url.searchParams.get("page")) });
  return { ...result, query, filters };
}

export default function Works({ loaderData }: Route.ComponentProps) {
  const { works, total, page, pageCount, query, filters } = loaderData;
  const hrefFor = (p: number) =>
    `/admin/works?${new URLSearchParams({ q: query, visibility: filters.visibility, type: filters.type, rating: filters.rating, ai: filters.ai, reported: filters.reported ? "1" : "", page: String(p) })}`;
  return (
    <section className="admin-page">
      <div className="page-head">
        <h1>作品管理</h1>
        <span className="hint">共 {formatNumber(total)} 部作品</span>
      </div>
      <Form method="get" className="admin-card admin-filters" role="search">
        <input type="search" name="q" defaultValue={query} key={query} placeholder="按标题、简介或作者搜索" aria-label="按标题、简介或作者搜索" maxLength={100} />
        <label className="field">
          <span>可见性</span>
          <select name="visibility" defaultValue={filters.visibility}>
            <option value="">全部</option>
            <option value="public">免费</option>
            <option value="public-vip">付费</option>
            <option value="private">未公开</option>
            <option value="taken-down">已被下架</option>
          </select>
        </label>
        <label className="field">
          <span>类型</span>
          <select name="type" defaultValue={filters.type}>
            <option value="">全部</option>
            {Object.entries(WORK_TYPE_LABELS).map(([value, label]) => (
              <option key={value} value={value}>{label}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>分级</span>
          <select name="rating" defaultValue={filters.rating}>
            <option value="">全部</option>
            <option value="all_ages">全年龄</option>
            <option value="r18">R-18</option>
          </select>
        </label>
        <label className="field">
          <span>AI程度</span>
          <select name="ai" defaultValue={filters.ai}>
            <option value="">全部</option>
            <option value="none">无</option>
            <option value="assisted">AI辅助</option>
            <option value="generated">AI生成</option>
          </select>
        </label>
        <label className="checkbox">
          <input type="checkbox" name="reported" value="1" defaultChecked={filters.reported} /> 有待处理的评论举报
        </label>
        <button type="submit" className="btn">搜索</button>
      </Form>
      {works.length === 0 ? (
        <p className="empty-state">{query ? "未找到匹配的作品" : "暂无作品"}</p>
      ) : (
        <AdminTable label="作品列表" framed head={["标题", "作者", "类型", "可见性", "价格", "章节", "字数", "发布时间", "操作"]}>
          {works.map((w) => (
            <tr key={w.id}>
              <td>
                <Link to={`/admin/works/${w.id}`}>{w.title}</Link>
                {w.openReports > 0 ? <small className="admin-muted">（{w.openReports} 条举报）</small> : null}
              </td>
              <td title={w.authorEmail}>{w.authorNickname}</td>
              <td>{WORK_TYPE_LABELS[w.type]}</td>
              <td>
                {w.takenDownAt ? "已被下架" : VISIBILITY_LABELS[w.visibility]}
                {w.rating === "r18" ? " · R-18" : ""}
              </td>
              <td>{w.price}</td>
              <td>{formatNumber(w.chapterCount)}</td>
              <td>{formatNumber(w.wordCount)}</td>
              <td>{formatShanghaiSeconds(w.createdAt)}</td>
              <td>
                <DownloadLink href={`/exports/works/${w.id}/txt`} fileName={`${w.title}.txt`}>
                  导出TXT
                </DownloadLink>
              </td>
            </tr>
          ))}
        </AdminTable>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} />
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
