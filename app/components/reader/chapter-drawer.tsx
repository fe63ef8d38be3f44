import { useEffect, useRef } from "react";
import { Link } from "react-router";
import { Dialog } from "~/components/ui/dialog";
import { Pagination } from "~/components/ui/pagination";
import { ChapterMarkBadge, type ChapterMarks } from "./table-of-contents";

/**
 * The chapter list inside a chapter (`?chapter=N&toc=P`), a drawer from the left made
 * from the one dialog (decision 050): without JavaScript a panel over the chapter with a
 * close link; with it a modal that keeps focus inside, starts on the current chapter and
 * closes with Escape. 100 chapters a page, like the work's 目录, with its 卷 headings and,
 * for a work sold by chapter, each chapter's 免费 / VIP / 已购 mark.
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
  list: {
    chapters: { id: number; title: string; order: number }[];
    /** Volume headings on this page, each before the chapter numbered `at`. */
    volumes: { id: number; title: string; at: number }[];
    marks: ChapterMarks | null;
    page: number;
    pageCount: number;
    total: number;
  };
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
          {list.chapters.map((c) => [
            ...list.volumes
              .filter((v) => v.at === c.order)
              .map((v) => (
                <li key={`v${v.id}`} className="chapter-drawer-volume">
                  <h3>{v.title}</h3>
                </li>
              )),
            <li key={c.id}>
              <Link
                to={`/works/${workId}?chapter=${c.order}`}
                aria-current={c.order === current ? "page" : undefined}
                ref={c.order === current ? currentRef : undefined}
              >
                <span className="chapter-drawer-title">{c.title}</span>
                {list.marks?.[c.id] ? <ChapterMarkBadge mark={list.marks[c.id]} /> : null}
              </Link>
            </li>,
          ])}
        </ol>
      </nav>
      <Pagination page={list.page} pageCount={list.pageCount} hrefFor={pageHref} window={2} />
    </Dialog>
  );
}
