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

/**
 * On the owner's work card and settings: the work's title, description, cover and tags under
 * review (decision 214), with 申诉 while a 退回修改 or 拒绝 may still be appealed (decision 239).
 */
export function WorkReviewNote({ review, workId }: { review: WorkReviewFacts; workId: number }) {
  const readers = review.newWork ? "通过前读者看不到这部作品，通过后按你选择的方式上架" : "通过前读者看到的仍是上次通过的书名、简介、封面和标签";
  const sentBack = review.sentBack;
  if (!sentBack) {
    return (
      <p className="chapter-review-note" role="note" data-testid="work-review-note">
        作品信息审核中：{readers}
      </p>
    );
  }
  return (
    <p className="chapter-review-note" role="note" data-testid="work-review-note">
      {`作品信息${sentBack.onAppeal ? "的申诉已驳回" : sentBack.status === "returned" ? "被退回修改" : "未通过审核"}：${sentBack.note}（${readers}；在作品设置中修改后保存即重新提交）`}
      {sentBack.appeal === "open" ? (
        <>
          {" "}
          <Link to={`/works/${workId}/appeal`}>申诉</Link>
        </>
      ) : sentBack.appeal === "pending" ? (
        <span className="muted">（申诉处理中）</span>
      ) : null}
    </p>
  );
}
