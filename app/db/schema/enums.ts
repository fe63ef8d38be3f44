import { pgEnum } from "drizzle-orm/pg-core";

export const workType = pgEnum("work_type", ["single_chapter", "multi_chapter", "series"]);
export const workStatus = pgEnum("work_status", ["completed", "ongoing"]);
export const workVisibility = pgEnum("work_visibility", ["public", "public-vip", "private"]);
/**
 * docs/product.md#author-studio: 存稿 (draft), 定时 (scheduled), 已发布 (published), and 审核中
 * (review: released by its author, waiting for a reviewer, docs/product.md#review).
 */
export const chapterState = pgEnum("chapter_state", ["draft", "scheduled", "published", "review"]);
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
/** docs/product.md#admin-roles: 超级管理员, 运营, 总编辑 (chief_editor) and 审核员 (reviewer). */
export const adminRole = pgEnum("admin_role", ["super", "operator", "chief_editor", "reviewer"]);
/** docs/product.md#screening: a sensitive word's level: 禁止, 审核, 替换 (decision 195). */
export const screeningLevel = pgEnum("screening_level", ["forbid", "review", "replace"]);
