import { pgEnum } from "drizzle-orm/pg-core";

export const workType = pgEnum("work_type", ["single_chapter", "multi_chapter", "series"]);
export const workStatus = pgEnum("work_status", ["completed", "ongoing"]);
export const workVisibility = pgEnum("work_visibility", ["public", "public-vip", "private"]);
/** docs/product.md#author-studio: 存稿 (draft), 定时 (scheduled), 已发布 (published). */
export const chapterState = pgEnum("chapter_state", ["draft", "scheduled", "published"]);
export const workRating = pgEnum("work_rating", ["all_ages", "r18"]);
export const creditTransactionType = pgEnum("credit_transaction_type", ["recharge", "consume"]);
export const tokenTransactionType = pgEnum("token_transaction_type", [
  "grant",
  "exchange",
  "generation",
  "refund",
  "admin",
]);
export const paymentOrderStatus = pgEnum("payment_order_status", ["pending", "paid"]);
export const promptType = pgEnum("prompt_type", ["free", "imitate", "continue"]);
export const apiProvider = pgEnum("api_provider", ["openai", "gemini"]);
export const redeemCodeStatus = pgEnum("redeem_code_status", ["unused", "used"]);
/** docs/product.md D15: a generation's charge rests on the provider's reported usage, or on the estimate. */
export const tokenMetering = pgEnum("token_metering", ["actual", "estimate"]);
/** docs/product.md D15: a chapter's (and a work's) AI-assistance level: 无, AI辅助, AI生成 (decision 126). */
export const aiLevel = pgEnum("ai_level", ["none", "assisted", "generated"]);
/** docs/product.md#admin-roles: 超级管理员 and 运营. */
export const adminRole = pgEnum("admin_role", ["super", "operator"]);
