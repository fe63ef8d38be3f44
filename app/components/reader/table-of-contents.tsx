import { Link } from "react-router";
import { Pagination } from "~/components/ui/pagination";
import { AiLevelBadge, type AiLevel } from "~/components/ui/ai-badge";
import { LockIcon } from "./lock-icon";
import { formatNumber } from "~/utils/format";

export interface TocChapter {
  id: number;
  title: string;
  order: number;
  wordCount: number;
  preview: string | null;
  aiLevel?: AiLevel;
}

/**
 * 目录: the chapters with their 100-character previews (a list that scrolls at 400 px on a
 * wide screen, the page itself on a phone), 100 a page. Above it 最新章节 and the choice of
 * 正序 / 倒序 (plain links, `?order=desc`, so it works without JavaScript). Without the
 * right to read (a paid work not bought) the titles are shown unlinked.
 */
export function TableOfContents({
  workId,
  chapters,
  total,
  page,
  pageCount,
  readable,
  volumes = [],
  marks = null,
  order = "asc",
  latest = null,
  notices = [],
}: {
  /** Notice chapters (decision 203): 作品相关 and 请假条, each its own group above the list. */
  notices?: TocNotice[];
  /** 正序 or 倒序 (newest first). */
  order?: "asc" | "desc";
  /** The newest chapter, shown as 最新章节 above the list. */
  latest?: { title: string; order: number } | null;
  /** A work sold by chapter: each chapter's 免费 / VIP (locked) / 已购 mark, by chapter id. */
  marks?: Record<number, "free" | "locked" | "owned"> | null;
  workId: number;
  chapters: TocChapter[];
  /** Volume headings (卷) on this page, each before the chapter numbered `at`. */
  volumes?: { id: number; title: string; at: number }[];
  total: number;
  page: number;
  pageCount: number;
  readable: boolean;
}) {
  const chapterHref = (n: number) => `/works/${workId}?chapter=${n}`;
  const listHref = (o: "asc" | "desc", p = 1) => `/works/${workId}?${o === "desc" ? "order=desc&" : ""}toc=${p}#toc`;
  return (
    <section className="toc" id="toc" aria-labelledby="toc-title">
      <div className="toc-head">
        <h2 id="toc-title">
          目录 <small className="muted">共 {total} 章</small>
        </h2>
        {total > 1 ? (
          <nav className="toc-order" aria-label="章节排序">
            <Link to={listHref("asc")} aria-current={order === "asc" ? "page" : undefined}>
              正序
            </Link>
            <Link to={listHref("desc")} aria-current={order === "desc" ? "page" : undefined}>
              倒序
            </Link>
          </nav>
        ) : null}
      </div>
      <NoticeGroup workId={workId} title="作品相关" kind="about" notices={notices.filter((n) => n.kind === "about")} />
      <NoticeGroup workId={workId} title="请假条" kind="leave" notices={notices.filter((n) => n.kind === "leave").reverse()} />
      {latest && total > 1 ? (
        <p className="toc-latest" data-testid="toc-latest">
          <span className="muted">最新章节：</span>
          {readable ? <Link to={chapterHref(latest.order)}>{latest.title}</Link> : <span>{latest.title}</span>}
        </p>
      ) : null}
      {chapters.length === 0 ? (
        <p className="empty-state">暂无章节</p>
      ) : (
        <ol className="toc-list" data-testid="toc-list">
          {chapters.map((c) => [
            ...volumes
              .filter((v) => v.at === c.order)
              .map((v) => (
                <li key={`v${v.id}`} className="toc-volume">
                  <h3>{v.title}</h3>
                </li>
              )),
            <li key={c.id} className="toc-item">
              {readable ? (
                <Link to={chapterHref(c.order)} className="toc-title">
                  {c.title}
                </Link>
              ) : (
                <span className="toc-title">
                  <LockIcon size={14} className="toc-lock" /> {c.title}
                </span>
              )}
              <AiLevelBadge level={c.aiLevel} />
              {marks?.[c.id] ? <ChapterMarkBadge mark={marks[c.id]} /> : null}
              <small className="muted toc-words">{formatNumber(c.wordCount)} 字</small>
              {c.preview ? <p className="toc-preview">{c.preview}</p> : null}
            </li>,
          ])}
        </ol>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => listHref(order, p)} window={3} />
    </section>
  );
}

export interface TocNotice {
  id: number;
  title: string;
  kind: "leave" | "about";
}

/**
 * One group of notice chapters (decision 203): no number, always free, so always linked
 * (`?notice=<id>`). 请假条 come newest first: the latest is the one that matters.
 */
function NoticeGroup({ workId, title, kind, notices }: { workId: number; title: string; kind: "leave" | "about"; notices: TocNotice[] }) {
  if (notices.length === 0) return null;
  return (
    <section className={`toc-notices toc-notices-${kind}`} aria-label={title} data-testid={`toc-notices-${kind}`}>
      <h3>{title}</h3>
      <ul className="toc-list">
        {notices.map((n) => (
          <li key={n.id} className="toc-item">
            <Link to={`/works/${workId}?notice=${n.id}`} className="toc-title">
              {n.title}
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

export type ChapterMarks = Record<number, "free" | "locked" | "owned">;

const MARK_LABELS = { free: "免费", locked: "VIP", owned: "已购" } as const;

/** A chapter's 免费 / VIP / 已购 mark, in the 目录 and the reader's chapter drawer. */
export function ChapterMarkBadge({ mark }: { mark: "free" | "locked" | "owned" }) {
  return (
    <span className={`badge toc-mark toc-mark-${mark}`} data-mark={mark}>
      {mark === "locked" ? <LockIcon size={12} /> : null}
      {MARK_LABELS[mark]}
    </span>
  );
}
