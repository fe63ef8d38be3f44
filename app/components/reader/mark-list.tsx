import { Form, Link } from "react-router";
import type { ListedMark } from "~/types/reader-marks";
import { formatShanghai } from "~/utils/shanghai-time";

/**
 * A list of the reader's 书签 and 划线 (decision 241): each links to its chapter at the
 * paragraph, shows its quote and note, says 原文已修改 when the chapter's text there
 * changed, and has 删除 (a plain form to /bookmarks, which goes back to `back`).
 */
export function MarkList({ marks, back, showWork = true }: { marks: ListedMark[]; back: string; showWork?: boolean }) {
  return (
    <ol className="mark-list">
      {marks.map((mark) => (
        <li key={mark.id} className="mark-entry" data-testid="mark-entry">
          <div className="mark-text">
            <span className="mark-place">
              <span className="badge">{mark.kind === "bookmark" ? "书签" : "划线"}</span>{" "}
              <Link to={mark.href}>
                {showWork ? `《${mark.workTitle}》` : ""}第 {mark.chapterOrder} 章 · {mark.chapterTitle} · 第 {mark.paragraph + 1} 段
              </Link>
            </span>
            <q className={mark.kind === "highlight" ? "mark-quoted mark-quoted-highlight" : "mark-quoted"}>{mark.quote}</q>
            {mark.changed ? <span className="badge badge-muted">原文已修改</span> : null}
            {mark.note ? <p className="mark-note">笔记：{mark.note}</p> : null}
            <time className="muted" dateTime={mark.createdAt}>
              {formatShanghai(mark.createdAt)}
            </time>
          </div>
          <Form method="post" action="/bookmarks">
            <input type="hidden" name="id" value={mark.id} />
            <input type="hidden" name="back" value={back} />
            <button type="submit" className="btn btn-small" aria-label={`删除${mark.kind === "bookmark" ? "书签" : "划线"}：${Array.from(mark.quote).slice(0, 20).join("")}`}>
              删除
            </button>
          </Form>
        </li>
      ))}
    </ol>
  );
}
