import { Link } from "react-router";
import type { EditReviewFacts, ReviewNoteFacts, WorkReviewFacts } from "~/types/studio";

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

/** Beside a published chapter whose edit waits for review or was sent back (decision 213). */
export function EditReviewNote({ edit }: { edit: EditReviewFacts }) {
  return (
    <p className="chapter-review-note" role="note" data-testid="edit-review-note">
      {edit.status === "pending"
        ? "修改审核中：审核通过前，读者看到的仍是上次通过的版本"
        : `${edit.status === "returned" ? "修改被退回" : "修改未通过审核"}：${edit.note}（读者看到的仍是上次通过的版本；修改后再次保存即重新提交）`}
    </p>
  );
}

/** On the owner's work card and settings: the work's title, description, cover and tags under review (decision 214). */
export function WorkReviewNote({ review }: { review: WorkReviewFacts }) {
  const readers = review.newWork ? "通过前读者看不到这部作品，通过后按你选择的方式上架" : "通过前读者看到的仍是上次通过的书名、简介、封面和标签";
  return (
    <p className="chapter-review-note" role="note" data-testid="work-review-note">
      {review.sentBack
        ? `作品信息${review.sentBack.status === "returned" ? "被退回修改" : "未通过审核"}：${review.sentBack.note}（${readers}；在作品设置中修改后保存即重新提交）`
        : `作品信息审核中：${readers}`}
    </p>
  );
}
