import { z } from "zod";
import { rowId } from "./form-fields";

export const HISTORY_MESSAGES = {
  missing: "这条阅读记录不存在",
  removed: "已从阅读记录中删除",
  cleared: "阅读记录已清空",
  empty: "阅读记录已经是空的",
  unknown: "未知操作",
} as const;

/** /history's two forms (decision 234): 删除 one work's entry, or 清空 all of them. */
export const historyFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("remove"), workId: rowId }),
  z.object({ intent: z.literal("clear") }),
]);
