import { z } from "zod";
import { asSent } from "./form-fields";

/**
 * The inbox's buttons (decision 173): 标为已读 (a line's id), 全部已读, 静音 / 取消静音 (a
 * work's id), each with the page to go back to; the ids are looked up, and the page checked
 * (safeRedirectPath), where they are used.
 */
export const notificationActionSchema = z.object({
  intent: z.enum(["read", "read-all", "mute", "unmute"]),
  id: asSent,
  workId: asSent,
  back: asSent,
});
