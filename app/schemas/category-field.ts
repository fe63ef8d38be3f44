import { z } from "zod";

/** docs/product.md#discovery: the category of a work (docs/decisions/121). */
export const CATEGORY_NAME_MAX = 20;

export const DISCOVERY_MESSAGES = {
  categoryMissing: "分类不存在",
  categoryName: "请输入分类名称",
  categoryNameTooLong: `分类名称不能超过${CATEGORY_NAME_MAX}个字`,
  categoryTaken: "已有同名分类",
  categoryAdded: "分类已添加",
  categorySaved: "分类已保存",
  categoryDeleted: "分类已删除，其中的作品变为未分类",
  alreadyFirst: "已经是第一个了",
  alreadyLast: "已经是最后一个了",
} as const;

/**
 * A form's category: "none" is 未分类 (null); absent (or empty, which the form reader
 * treats alike) leaves it as it is (undefined). Anything else must be an id; whether it
 * exists is checked on the server.
 */
export const NO_CATEGORY = "none";

export const categoryField = z
  .string()
  .trim()
  // An id is a positive number: 0 (or 007) is no category of ours, not a 500 from the foreign key.
  .regex(/^([1-9]\d{0,14}|none)?$/, DISCOVERY_MESSAGES.categoryMissing)
  .transform((v) => (v === "" ? undefined : v === NO_CATEGORY ? null : Number(v)))
  .optional();

