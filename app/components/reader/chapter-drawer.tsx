import { useEffect, useRef } from "react";
import { Link } from "react-router";
import { Dialog } from "~/components/ui/dialog";
import { Pagination } from "~/components/ui/pagination";

/**
 * The chapter list inside a chapter (`?chapter=N&toc=P`), a drawer from the left made
 * from the one dialog (decision 050): without JavaScript a panel over the chapter with a
 * close link; with it a modal that keeps focus inside, starts on the current chapter and
 * closes with Escape. 100 chapters a page, like the work's 目录.
 */
export function ChapterDrawer({
  workId,
  current,
  list,
  closeHref,
  pageHref,
}: {
  workId: number;
  current: number;
  list: { chapters: { id: number; title: string; order: number }[]; page: number; pageCount: number; total: number };
  closeHref: string;
  pageHref: (page: number) => string;
}) {
  // The dialog focuses its first link; the reader starts on the chapter they are in.
  const currentRef = useRef<HTMLAnchorElement>(null);
  useEffect(() => currentRef.current?.focus(), []);
  return (
    <Dialog title={`目录（共 ${list.total} 章）`} closeHref={closeHref} className="chapter-drawer">
      <nav aria-label="章节列表">
        <ol className="chapter-drawer-list">
          {list.chapters.map((c) => (
            <li key={c.id}>
              <Link
                to={`/works/${workId}?chapter=${c.order}`}
                aria-current={c.order === current ? "page" : undefined}
                ref={c.order === current ? currentRef : undefined}
              >
                {c.title}
              </Link>
            </li>
          ))}
        </ol>
      </nav>
      <Pagination page={list.page} pageCount={list.pageCount} hrefFor={pageHref} window={2} />
    </Dialog>
  );
}
