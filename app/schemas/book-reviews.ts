import { z } from "zod";
import { asSent, flag, rowId } from "./form-fields";

/**
 * The 书评区's forms (decision 173): 发表 / 修改 (rating and text), 删除, 点赞 (`on`), 举报 (a
 * reason), and the author's 精华 / 置顶 (`on`) and 回复 (text). The review functions check
 * the id, the rating and the texts with their Chinese messages.
 */
export const bookReviewActionSchema = z.object({
  intent: z.enum(["post", "edit", "delete", "like", "report", "feature", "pin", "reply"]),
  review: asSent,
  rating: asSent,
  body: asSent,
  reason: asSent,
  on: flag,
});

/** 书评举报 in the back office: hide, restore, delete or dismiss one reported review. */
export const reviewReportDecisionSchema = z.object({ decision: z.enum(["hide", "restore", "delete", "dismiss"]), reviewId: rowId });
