import { z } from "zod";
import { asSent, flag } from "./form-fields";

/** 解除禁言 on the work's muted list (decision 173): unmuteUser checks the user's id. */
export const unmuteSchema = z.object({ intent: z.literal("unmute"), userId: asSent });

/**
 * The comment page's forms (decision 173): 发表 and 回复 (the body), 点赞 / 隐藏 / 禁言 (`on`,
 * 1 or 0), 举报 (a reason), each on a comment; `enhanced` is 1 from the reader's dialog. The
 * comment functions check the id, the body and the reason.
 */
export const commentActionSchema = z.object({
  intent: z.enum(["post", "reply", "like", "hide", "mute", "report"]),
  comment: asSent,
  body: asSent,
  reason: asSent,
  on: flag,
  enhanced: flag,
});
