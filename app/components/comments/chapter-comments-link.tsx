import { Link } from "react-router";
import { threadHref } from "./comment-links";

/** The chapter's end: how many 本章说 there are and the way in, to read or write one. */
export function ChapterCommentsLink({ workId, order, count }: { workId: number; order: number; count: number }) {
  return (
    <section className="chapter-comments" aria-label="本章说" data-testid="chapter-comments">
      <Link to={threadHref(workId, order, null)} className="btn">
        本章说{count > 0 ? `（${count}）` : ""}
      </Link>
      <span className="muted">{count > 0 ? "看看大家怎么说" : "还没有人评论，来说两句吧"}</span>
    </section>
  );
}
