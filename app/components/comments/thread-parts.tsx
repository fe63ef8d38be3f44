import type { ComponentType, ReactNode } from "react";
import { Link } from "react-router";

/**
 * The parts 本章说/段评 and 书评区 share (docs/product.md: comments, book reviews): the
 * 热门/最新 order with the count, a reader's 举报 box under an item, and an item's one-button actions.
 */

/** 热门 · 最新 · 共 N 条: links, so the order works without JavaScript. */
export function ThreadSort({ sort, total, hrefFor }: { sort: string; total: number; hrefFor: (sort: "hot" | "new") => string }) {
  return (
    <nav className="comment-sort" aria-label="排序">
      <Link to={hrefFor("hot")} aria-current={sort === "hot" ? "page" : undefined}>
        热门
      </Link>
      <Link to={hrefFor("new")} aria-current={sort === "new" ? "page" : undefined}>
        最新
      </Link>
      <span className="muted">共 {total} 条</span>
    </nav>
  );
}

type PostForm = ComponentType<{ method: "post"; action: string; className: string; children: ReactNode }>;

/** 举报: a reason and a button, folded under a summary; `form` is the page's Form or a fetcher's. */
export function ReportDetails({
  form: F,
  action,
  fields,
  maxLength,
  busy,
}: {
  form: PostForm;
  action: string;
  fields: ReactNode;
  maxLength: number;
  busy: boolean;
}) {
  return (
    <details className="comment-more">
      <summary className="btn btn-small">举报</summary>
      <F method="post" action={action} className="comment-form">
        {fields}
        <label>
          举报理由
          <input name="reason" maxLength={maxLength} required placeholder="例如：广告、人身攻击、剧透" />
        </label>
        <button type="submit" className="btn btn-small" disabled={busy}>
          提交举报
        </button>
      </F>
    </details>
  );
}

/**
 * One action on an item as a small form of its own (赞, 隐藏, 置顶, 禁言...): its hidden
 * fields and a button; `pressed` for a toggle that is on (赞 given).
 */
export function ItemAction({
  form: F,
  action,
  fields,
  busy,
  pressed,
  children,
}: {
  form: PostForm;
  action: string;
  fields: ReactNode;
  busy: boolean;
  pressed?: boolean;
  children: ReactNode;
}) {
  return (
    <F method="post" action={action} className="inline-form">
      {fields}
      <button type="submit" className={`btn btn-small${pressed ? " active" : ""}`} aria-pressed={pressed} disabled={busy}>
        {children}
      </button>
    </F>
  );
}
