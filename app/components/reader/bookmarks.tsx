import { Link } from "react-router";
import type { ChapterMark, ListedMark } from "~/types/reader-marks";
import { MarkList } from "./mark-list";

/**
 * 书签 beside a paragraph (decision 241): a bookmarked paragraph shows its mark; any other a
 * discreet link (in sight without JavaScript on a touch screen, where the selection bar is
 * not there) to the page that adds a bookmark or highlights the paragraph, with a note.
 * The link has no text of its own (named by aria-label, drawn by CSS), so the paragraph's
 * text stays the author's words alone, as with the 段评 bubble.
 */
export function ParagraphMarkLink({ workId, chapterId, index, marks }: { workId: number; chapterId: number; index: number; marks: ChapterMark[] }) {
  const bookmark = marks.find((mark) => mark.kind === "bookmark");
  const href = `/works/${workId}/marks?chapterId=${chapterId}&p=${index}`;
  return bookmark ? (
    <Link
      to={href}
      className="mark-link mark-set"
      data-testid="paragraph-bookmark"
      aria-label={`第 ${index + 1} 段的书签${bookmark.note ? `：${bookmark.note}` : ""}`}
      title={bookmark.note || undefined}
    />
  ) : (
    <Link to={href} className="mark-link mark-add" aria-label={`为第 ${index + 1} 段加书签或划线`} />
  );
}

/** The work page's 我的书签和划线: the newest of this reader's marks in the work, and the way to all. */
export function WorkMarks({ workId, marks, total }: { workId: number; marks: ListedMark[]; total: number }) {
  if (total === 0) return null;
  return (
    <section className="work-marks" aria-labelledby="work-marks-title">
      <h2 id="work-marks-title">我的书签和划线（{total}）</h2>
      <MarkList marks={marks.slice(0, 5)} back={`/works/${workId}`} showWork={false} />
      {total > 5 ? (
        <p>
          <Link to={`/bookmarks?work=${workId}`}>查看全部 {total} 条</Link>
        </p>
      ) : null}
    </section>
  );
}
