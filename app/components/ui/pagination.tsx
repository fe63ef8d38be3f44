import { AppLink } from "./app-link";
import { pageItems } from "~/utils/pagination";

/**
 * Numbered pagination with previous/next, first/last and ellipses; plain links. `label`
 * names the navigation where a page has more than one list (评论分页, 书评分页).
 */
export function Pagination({
  page,
  pageCount,
  hrefFor,
  window = 5,
  label = "分页",
}: {
  page: number;
  pageCount: number;
  hrefFor: (page: number) => string;
  window?: number;
  label?: string;
}) {
  if (pageCount <= 1) return null;
  return (
    <nav className="pagination" aria-label={label}>
      {page > 1 ? (
        <AppLink to={hrefFor(page - 1)} rel="prev">
          上一页
        </AppLink>
      ) : (
        <span className="disabled">上一页</span>
      )}
      {pageItems(page, pageCount, window).map((item) =>
        typeof item !== "number" ? (
          <span key={item} className="ellipsis">
            …
          </span>
        ) : item === page ? (
            <span key={item} className="current" aria-current="page">
              {item}
            </span>
        ) : (
          <AppLink key={item} to={hrefFor(item)}>
            {item}
          </AppLink>
        ),
      )}
      {page < pageCount ? (
        <AppLink to={hrefFor(page + 1)} rel="next">
          下一页
        </AppLink>
      ) : (
        <span className="disabled">下一页</span>
      )}
    </nav>
  );
}
