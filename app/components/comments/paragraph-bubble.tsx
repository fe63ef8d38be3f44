import { Link } from "react-router";
import { threadHref } from "./comment-links";

/**
 * The count of a paragraph's 段评 beside it (or a discreet "+"); opens the paragraph's
 * thread (a page). The number is drawn by CSS from `data-count` and the link is named by
 * its aria-label, so the paragraph's text stays the author's words alone.
 */
export function ParagraphBubble({ workId, order, index, count }: { workId: number; order: number; index: number; count: number }) {
  if (count === 0) {
    // Discreet until the paragraph is hovered, tapped or the link focused: the way to the first 段评.
    return (
      <Link
        to={threadHref(workId, order, index)}
        className="comment-bubble comment-add"
        aria-label={`为第 ${index + 1} 段写段评`}
        data-count="+"
      />
    );
  }
  return (
    <Link
      to={threadHref(workId, order, index)}
      className="comment-bubble"
      aria-label={`第 ${index + 1} 段的段评：${count} 条`}
      data-testid="comment-bubble"
      data-count={count > 99 ? "99+" : String(count)}
    />
  );
}
