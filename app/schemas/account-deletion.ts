import { z } from "zod";
import { PASSWORD_MAX_BYTES } from "./auth";

/** 注销账号's cool-off (decision 231): the account works until then, and 撤销 stops it. */
export const ACCOUNT_DELETION_DAYS = 15;
/** What a deleted account shows as, everywhere its name was shown (decision 231). */
export const DELETED_NICKNAME = "已注销用户";

/** docs/product.md#account-deletion: the messages of 注销账号 and 导出我的数据. */
export const ACCOUNT_DELETION_MESSAGES = {
  passwordRequired: "请输入当前密码以确认注销",
  passwordWrong: "密码错误，注销申请未提交",
  worksRequired: "请选择注销后如何处理你的作品",
  confirmRequired: "请勾选“我已了解注销的后果”",
  alreadyRequested: (due: string) => `你已提交注销申请，账号将于 ${due} 删除；如需保留账号，请撤销申请`,
  nothingToCancel: "没有待处理的注销申请",
  payoutPending: "你有提现申请正在处理中，处理完成后才能申请注销",
  tooManyAttempts: "尝试次数过多，请稍后再试",
  requested: (due: string) => `注销申请已提交，账号将于 ${due} 删除。在此之前可随时撤销`,
  cancelled: "已撤销注销申请，账号将继续保留",
} as const;

/** The request (password re-entered, the works' fate, the consequences confirmed) and the 撤销, one intent each. */
export const deletionRequestSchema = z.object({
  intent: z.literal("request"),
  password: z
    .string({ error: ACCOUNT_DELETION_MESSAGES.passwordRequired })
    .min(1, ACCOUNT_DELETION_MESSAGES.passwordRequired)
    .refine((v) => new TextEncoder().encode(v).length <= PASSWORD_MAX_BYTES, ACCOUNT_DELETION_MESSAGES.passwordWrong),
  works: z.enum(["take_down", "keep"], { error: ACCOUNT_DELETION_MESSAGES.worksRequired }),
  confirm: z.literal("on", { error: ACCOUNT_DELETION_MESSAGES.confirmRequired }),
});
export const accountDeletionSchema = z.discriminatedUnion("intent", [deletionRequestSchema, z.object({ intent: z.literal("cancel") })]);
