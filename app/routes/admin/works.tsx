import { Form } from "react-router";
import { DownloadLink } from "~/components/admin/download-link";
import { formatDateTime } from "~/components/admin/format";
import { WORK_TYPE_LABELS, formatNumber } from "~/utils/format";
import { AdminErrorBox } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { listWorksForAdmin } from "~/server/admin/works.server";
import { normalizeQuery } from "~/server/search.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/works";

export const meta: Route.MetaFunction = () => [{ title: "作品管理 - 管理后台" }];

const VISIBILITY_LABELS = { public: "免费", "public-vip": "付费", private: "未公开" } as const;

export async function loader({ url }: Route.LoaderArgs) {
  const query = normalizeQuery(url.searchParams.get("q"));
  const result = await listWorksForAdmin({ query, page: parsePage(url.searchParams.get("page")) });
  return { ...result, query };
}

export default function Works({ loaderData }: Route.ComponentProps) {
  const { works, total, page, pageCount, query } = loaderData;
  const hrefFor = (p: number) => `/admin/works?${new URLSearchParams({ q: query, page: String(p) })}`;
  return (
    <section className="admin-page">
      <div className="page-head">
        <h1>作品管理</h1>
        <span className="hint">共 {formatNumber(total)} 部作品</span>
      </div>
      <Form method="get" className="toolbar" role="search">
        <input type="search" name="q" defaultValue={query} key={query} placeholder="按标题、简介或作者搜索" aria-label="按标题、简介或作者搜索" maxLength={100} />
        <button type="submit" className="btn">搜索</button>
      </Form>
      {works.length === 0 ? (
        <p className="empty-state">{query ? "未找到匹配的作品" : "暂无作品"}</p>
      ) : (
        <div className="admin-table-wrap" tabIndex={0} role="region" aria-label="作品列表">
          <table className="admin-table">
            <thead>
              <tr>
                <th>标题</th>
                <th>作者</th>
                <th>类型</th>
                <th>可见性</th>
                <th>价格</th>
                <th>章节</th>
                <th>字数</th>
                <th>发布时间</th>
                <th>操作</th>
              </tr>
            </thead>
            <tbody>
              {works.map((w) => (
                <tr key={w.id}>
                  <td>
                    <a href={`/works/${w.id}`} target="_blank" rel="noreferrer">{w.title}</a>
                  </td>
                  <td title={w.authorEmail}>{w.authorNickname}</td>
                  <td>{WORK_TYPE_LABELS[w.type]}</td>
                  <td>{VISIBILITY_LABELS[w.visibility]}</td>
                  <td>{w.price}</td>
                  <td>{formatNumber(w.chapterCount)}</td>
                  <td>{formatNumber(w.wordCount)}</td>
                  <td>{formatDateTime(w.createdAt)}</td>
                  <td>
                    <DownloadLink href={`/exports/works/${w.id}/txt`} fileName={`${w.title}.txt`}>
                      导出TXT
                    </DownloadLink>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} />
    </section>
  );
}

export function ErrorBoundary() {
  return <AdminErrorBox />;
}
