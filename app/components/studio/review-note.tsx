import { Link } from "react-router";
import type { ReviewNoteFacts } from "~/types/studio";

/** The reason beside a chapter sent back, with 申诉 while the decision may still be appealed (decision 206). */
export function ReviewNote({ review, appealHref }: { review: ReviewNoteFacts; appealHref: string }) {
  return (
    <p className="chapter-review-note" role="note">
      {review.onAppeal ? "申诉已驳回" : review.status === "returned" ? "审核退回修改" : "审核未通过"}：{review.note}
      {review.appeal === "open" ? (
        <>
          {" "}
          <Link to={appealHref}>申诉</Link>
        </>
      ) : review.appeal === "pending" ? (
        <span className="muted">（申诉处理中）</span>
      ) : null}
    </p>
  );
}
