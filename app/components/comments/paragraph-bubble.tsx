import type { MouseEvent } from "react";
import { Link, useNavigate } from "react-router";
import { threadHref } from "./comment-links";

/**
 * The count of a paragraph's 段评 beside it (or a discreet "+"); opens the paragraph's
 * thread. The link is the thread's page (without JavaScript, or opened in a new tab);
 * with JavaScript a plain click opens the thread dialog at `dialogHref` instead
 * (decision 101). The number is drawn by CSS from `data-count` and the link is named by
 * its aria-label, so the paragraph's text stays the author's words alone.
 */
export function ParagraphBubble({
  workId,
  order,
  index,
  count,
  dialogHref,
}: {
  workId: number;
  order: number;
  index: number;
  count: number;
  dialogHref?: string;
}) {
  const navigate = useNavigate();
  const onClick = dialogHref
    ? (event: MouseEvent<HTMLAnchorElement>) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        void navigate(dialogHref, { preventScrollReset: true });
      }
    : undefined;
  if (count === 0) {
    // Discreet until the paragraph is hovered, tapped or the link focused: the way to the first 段评.
    return (
      <Link
        to={threadHref(workId, order, index)}
        onClick={onClick}
        className="comment-bubble comment-add"
        aria-label={`为第 ${index + 1} 段写段评`}
        data-count="+"
      />
    );
  }
  return (
    <Link
      to={threadHref(workId, order, index)}
      onClick={onClick}
      className="comment-bubble"
      aria-label={`第 ${index + 1} 段的段评：${count} 条`}
      data-testid="comment-bubble"
      data-count={count > 99 ? "99+" : String(count)}
    />
  );
}
