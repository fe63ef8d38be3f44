import { Link } from "react-router";
import { defaultCoverHref } from "~/utils/default-cover";
import { formatShanghai } from "~/utils/shanghai-time";
import type { ShelfItem } from "~/types/shelf";
import { FavoriteButton } from "./favorite-button";

/**
 * One work on the 书架 (docs/product.md#bookshelf): the latest chapter and its time, N 章未读
 * and the progress, a dot when a chapter came out since the last read, what buying costs
 * (ShelfPrice), and its buttons inside the card.
 */
export function ShelfCard({ item, defaultCoverUrl, back }: { item: ShelfItem; defaultCoverUrl?: string; back: string }) {
  const { work } = item;
  const cover = work.coverUrl || defaultCoverUrl || defaultCoverHref(work);
  const unread = item.unread > 99 ? "99+" : String(item.unread);
  return (
    <article className="shelf-card" data-testid="shelf-card">
      <Link to={`/works/${work.id}`} className="shelf-cover" aria-hidden="true" tabIndex={-1}>
        <img src={cover} alt="" width={96} height={132} loading="lazy" />
      </Link>
      <div className="shelf-body">
        <div className="shelf-title-row">
          {item.updated ? <span className="update-dot" role="img" aria-label="有更新" data-testid="update-dot" /> : null}
          <h2 className="shelf-title">
            <Link to={`/works/${work.id}`}>{work.title}</Link>
          </h2>
        </div>
        <p className="shelf-meta">
          <span>{work.authorNickname}</span>
          <ShelfPrice item={item} />
          {work.rating === "r18" ? <span className="badge badge-r18">R-18</span> : null}
          {work.isAiGenerated ? <span className="badge badge-ai">AI</span> : null}
        </p>
        <p className="shelf-latest" data-testid="shelf-latest">
          {item.latestChapter ? (
            <>
              最新：{item.latestChapter.title}{" "}
              <time className="muted" dateTime={item.latestChapter.at}>
                {formatShanghai(item.latestChapter.at)}
              </time>
            </>
          ) : (
            <span className="muted">暂无章节</span>
          )}
        </p>
        <p className="shelf-progress">
          <span data-testid="shelf-unread">{item.unread > 0 ? `${unread} 章未读` : "已读完"}</span>
          <span className="muted" data-testid="shelf-percent">
            已读 {item.progress}%
          </span>
        </p>
        {/* A <progress>, not a width in a style prop: style-src 'self' refuses style
            attributes (docs/decisions/156). The text above says the same to a screen reader. */}
        <progress className="progress-bar" max={100} value={item.progress} aria-hidden="true" />
        <div className="library-actions">
          {item.continueHref ? (
            <Link className="btn btn-small btn-primary" to={item.continueHref} title={item.continueLabel ?? undefined}>
              继续阅读
            </Link>
          ) : (
            <Link className="btn btn-small" to={`/works/${work.id}`}>
              开始阅读
            </Link>
          )}
          <FavoriteButton workId={work.id} favorited signedIn back={back} compact />
        </div>
      </div>
    </article>
  );
}

/**
 * What applies to buying the work: 已购 for a work bought whole; for a work sold by chapter
 * its 千字价 and 已购 N 章 when the reader bought some; a whole work's price otherwise.
 */
function ShelfPrice({ item }: { item: ShelfItem }) {
  const { work } = item;
  if (item.purchased) return <span className="badge badge-owned">已购</span>;
  if (work.visibility !== "public-vip") return null;
  if (item.pricePerThousand !== null) {
    return (
      <>
        <span className="badge badge-price" data-testid="shelf-price">
          按章 千字 {item.pricePerThousand} 积分
        </span>
        {item.boughtChapters > 0 ? (
          <span className="badge badge-owned" data-testid="shelf-bought">
            已购 {item.boughtChapters} 章
          </span>
        ) : null}
      </>
    );
  }
  return (
    <span className="badge badge-price" data-testid="shelf-price">
      {work.price} 积分
    </span>
  );
}
