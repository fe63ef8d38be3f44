import { z } from "zod";
import { sentText } from "./form-fields";

/** 屏蔽 (decision 233): at most this many authors, and as many tags, per reader. */
export const BLOCK_LIMIT = 200;

export const BLOCK_MESSAGES = {
  self: "不能屏蔽自己",
  authorMissing: "找不到这位作者",
  authorTwice: "你已经屏蔽了这位作者",
  tagTwice: "你已经屏蔽了这个标签",
  tagEmpty: "请填写要屏蔽的标签",
  tagTooLong: "标签最多20个字",
  tooMany: `最多屏蔽${BLOCK_LIMIT}位作者和${BLOCK_LIMIT}个标签`,
  unknown: "未知操作",
} as const;

/**
 * 屏蔽 / 取消屏蔽, posted to /settings/blocks from a work's page, an author's page, a tag's
 * page or the settings list: which kind, the author's id or the tag, and the page to go
 * back to (checked by safeRedirectPath). The domain function checks the value itself.
 */
export const blockFormSchema = z.object({
  intent: z.enum(["block", "unblock"], { error: BLOCK_MESSAGES.unknown }),
  kind: z.enum(["author", "tag"], { error: BLOCK_MESSAGES.unknown }),
  value: sentText,
  back: sentText,
});
