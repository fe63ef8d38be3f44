import { Link } from "react-router";
import { Pagination } from "~/components/ui/pagination";
import { WorkCard, type WorkCardData } from "~/components/work-card";
import { FavoriteButton } from "./favorite-button";

export interface LibraryCardData {
  work: WorkCardData;
  favorited: boolean;
  continueHref: string | null;
  continueLabel: string | null;
  /** 已购买 of a work bought by chapter (app/server/reading/library.server.ts LibraryItem). */
  boughtChapters?: { owned: number; of: number | null } | null;
}

/** A work card with 继续阅读 (where the user left off) and the follow button. */
function LibraryCard({ item, defaultCoverUrl, back }: { item: LibraryCardData; defaultCoverUrl?: string; back: string }) {
  return (
    <div className="library-card" data-testid="library-card">
      {/* Under the page's h1 (LibraryGrid). */}
      <WorkCard work={item.work} defaultCoverUrl={defaultCoverUrl} headingLevel={2} />
      {item.boughtChapters ? (
        <p className="library-bought muted" data-testid="bought-chapters">
          {item.boughtChapters.of === null ? `已购 ${item.boughtChapters.owned} 章` : `已购 ${item.boughtChapters.owned}/${item.boughtChapters.of} 章`}
        </p>
      ) : null}
      <div className="library-actions">
        {item.continueHref ? (
          <Link className="btn btn-small btn-primary" to={item.continueHref} title={item.continueLabel ?? undefined}>
            继续阅读
          </Link>
        ) : (
          <Link className="btn btn-small" to={`/works/${item.work.id}`}>
            开始阅读
          </Link>
        )}
        <FavoriteButton workId={item.work.id} favorited={item.favorited} signedIn back={back} compact />
      </div>
    </div>
  );
}

/** /following and /purchased: a 3-column grid (1 on mobile), an empty state, pages. */
export function LibraryGrid({
  title,
  empty,
  items,
  hidden,
  page,
  pageCount,
  path,
  defaultCoverUrl,
}: {
  title: string;
  empty: string;
  items: LibraryCardData[];
  hidden: number;
  page: number;
  pageCount: number;
  path: string;
  defaultCoverUrl?: string;
}) {
  const back = page > 1 ? `${path}?page=${page}` : path;
  return (
    <section className="library">
      <h1>{title}</h1>
      {items.length === 0 ? (
        <p className="empty-state">{empty}</p>
      ) : (
        <div className="work-grid">
          {items.map((item) => (
            <LibraryCard key={item.work.id} item={item} defaultCoverUrl={defaultCoverUrl} back={back} />
          ))}
        </div>
      )}
      {hidden > 0 ? <p className="muted library-hidden">另有 {hidden} 部作品已下架或因浏览设置被隐藏。</p> : null}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `${path}?page=${p}`} window={3} />
    </section>
  );
}
