import { Link } from "react-router";
import { threadHref } from "./comment-links";

/** The count of a paragraph's 段评 beside it (or a discreet "+"); opens the paragraph's thread (a page). */
export function ParagraphBubble({ workId, order, index, count }: { workId: number; order: number; index: number; count: number }) {
  if (count === 0) {
    // Discreet until the paragraph is hovered, tapped or the link focused: the way to the first 段评.
    return (
      <Link to={threadHref(workId, order, index)} className="comment-bubble comment-add" aria-label={`为第 ${index + 1} 段写段评`}>
        +
      </Link>
    );
  }
  return (
    <Link
      to={threadHref(workId, order, index)}
      className="comment-bubble"
      aria-label={`第 ${index + 1} 段的段评：${count} 条`}
      data-testid="comment-bubble"
    >
      {count > 99 ? "99+" : count}
    </Link>
  );
}
