import { Link } from "react-router";
import { AuthorNote } from "./author-note";

const KIND_LABELS = { leave: "请假条", about: "作品相关" } as const;

/**
 * A notice chapter (请假条, 作品相关: docs/decisions/203): no number, free, shown whole
 * (notices are short), with no prev/next of its own: the 正文 chapters' navigation does
 * not pass through notices, so the way on is the 目录.
 */
export function NoticeChapter({
  workId,
  notice,
}: {
  workId: number;
  notice: { id: number; title: string; kind: "leave" | "about"; paragraphs: string[]; authorNote: string[] | null };
}) {
  return (
    <article className="chapter notice-chapter" aria-labelledby="chapter-title">
      <p className="notice-kind">
        <span className="badge">{KIND_LABELS[notice.kind]}</span>
      </p>
      <h1 id="chapter-title" className="chapter-title">
        {notice.title}
      </h1>
      <div className="chapter-text" data-testid="chapter-text">
        {notice.paragraphs.map((text, i) => (
          <p key={i}>{text}</p>
        ))}
      </div>
      <AuthorNote paragraphs={notice.authorNote} />
      <nav className="chapter-nav" aria-label="章节导航">
        <Link to={`/works/${workId}#toc`} className="btn">
          返回目录
        </Link>
      </nav>
    </article>
  );
}
