import { z } from "zod";
import { flag } from "./form-fields";

/**
 * 关注作者 / 取消关注 on `/authors/:id` (decision 230): the wanted state (`on`, 1 or 0);
 * `enhanced` is 1 from the page's fetcher, which then gets data instead of a redirect.
 */
export const authorFollowSchema = z.object({
  intent: z.literal("follow"),
  on: flag,
  enhanced: flag,
});
