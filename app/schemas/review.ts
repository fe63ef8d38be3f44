import { z } from "zod";

/** 先审后发 (docs/product.md#review): the queue's and the policy's messages and forms. */

export const REVIEW_NOTE_MAX = 500;
const REVIEW_TRUSTED_MAX = 1000;

const STATUS_LABELS = { pending: "待审核", approved: "已通过", returned: "已退回修改", rejected: "已拒绝", withdrawn: "已被作者撤回或修改" } as const;

export const REVIEW_MESSAGES = {
  notFound: "审核稿件不存在",
  alreadyDecided: (status: keyof typeof STATUS_LABELS) => `该稿件${STATUS_LABELS[status]}，本次操作未做任何更改`,
  claimedByOther: (email: string) => `该稿件已由 ${email} 领取，本次操作未做任何更改`,
  notClaimed: "请先领取该稿件再做决定",
  changed: "章节在审核期间已被修改，本次操作未做任何更改",
  workChanged: "作品信息在审核期间已被修改，本次操作未做任何更改",
  noteRequired: "退回修改或拒绝时请填写原因，作者会看到",
  noteTooLong: `原因不能超过${REVIEW_NOTE_MAX}个字`,
  decision: "请选择审核结果",
  queueEmpty: "暂无待审核的稿件",
  trustedAfter: `请输入 0 到 ${REVIEW_TRUSTED_MAX} 之间的整数`,
  samplePercent: "请输入 0 到 100 之间的整数",
  appealForChief: "申诉由总编辑处理，本次操作未做任何更改",
  decisionNotFor: (kind: ReviewKind) => `${REVIEW_KIND_LABELS[kind]}只能选择：${REVIEW_KIND_DECISIONS[kind].map((d) => REVIEW_DECISION_LABELS_BY_KIND[kind][d]).join("、")}`,
  appealNote: "请写明申诉理由",
  appealTooLong: `申诉理由不能超过${REVIEW_NOTE_MAX}个字`,
  appealNotAllowed: "只有被退回修改或拒绝、且未再修改的章节可以申诉",
  appealWorkNotAllowed: "只有被退回修改或拒绝、且未再修改的作品信息可以申诉",
  takeBackUnkept: "这次通过之前读者看到的作品信息没有保留，无法撤销；如需对读者隐藏，请下架作品。本次操作未做任何更改",
  appealTwice: "这次审核结果已经申诉过，每次结果只能申诉一次",
} as const;

/** What each kind of item asks (decision 206). */
const REVIEW_KINDS = ["release", "sample", "appeal", "comment", "edit", "work"] as const;
export type ReviewKind = (typeof REVIEW_KINDS)[number];
export const REVIEW_KIND_LABELS: Record<ReviewKind, string> = { release: "发布审核", sample: "跟踪审读", appeal: "申诉", comment: "评论", edit: "修改审核", work: "作品信息" };

export const REVIEW_STATUS_LABELS = STATUS_LABELS;

const REVIEW_DECISIONS = ["approve", "return", "reject"] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];
const REVIEW_DECISION_LABELS: Record<ReviewDecision, string> = { approve: "通过", return: "退回修改", reject: "拒绝" };
/**
 * The decisions each kind allows: a 跟踪审读 item's chapter is already out (退回修改 tells
 * its author to revise; taking it down is the works' 下架); an appeal is granted or
 * refused; a held comment is shown or not; an edit of a published chapter goes out, goes
 * back to its author, or is refused (readers keep the approved text either way, decision 213);
 * a work's title, description, cover and tags likewise (decision 214).
 */
export const REVIEW_KIND_DECISIONS: Record<ReviewKind, readonly ReviewDecision[]> = {
  release: REVIEW_DECISIONS,
  sample: ["approve", "return"],
  appeal: ["approve", "reject"],
  comment: ["approve", "reject"],
  edit: REVIEW_DECISIONS,
  work: REVIEW_DECISIONS,
};
export const REVIEW_DECISION_LABELS_BY_KIND: Record<ReviewKind, Record<ReviewDecision, string>> = {
  release: REVIEW_DECISION_LABELS,
  sample: { approve: "无问题", return: "要求作者修改", reject: "拒绝" },
  appeal: { approve: "申诉成立，发布", return: "退回修改", reject: "驳回申诉" },
  comment: { approve: "通过，公开评论", return: "退回修改", reject: "不予公开" },
  edit: { approve: "通过，读者看到修改", return: "退回修改", reject: "拒绝修改" },
  work: { approve: "通过，读者看到这些信息", return: "退回修改", reject: "拒绝" },
};
/** The item's status each decision leaves. */
export const REVIEW_DECISION_STATUS = { approve: "approved", return: "returned", reject: "rejected" } as const;

/** The queue page's 领取下一篇, and an item page's 领取 and decision forms. */
export const reviewQueueSchema = z.object({ intent: z.literal("claim-next") });

export const reviewItemSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("claim") }),
  z.object({
    intent: z.literal("decide"),
    decision: z.enum(REVIEW_DECISIONS, { error: REVIEW_MESSAGES.decision }),
    note: z
      .string()
      .trim()
      .max(REVIEW_NOTE_MAX, REVIEW_MESSAGES.noteTooLong)
      .optional()
      .transform((v) => v ?? ""),
  }),
]);

const onOff = z
  .union([z.literal("on"), z.literal("1"), z.literal("true")])
  .optional()
  .transform((v) => v !== undefined);

/** The review policy (/admin/settings/review): 总编辑 and 超级管理员. */
export const reviewPolicySchema = z.object({
  newAuthors: onOff,
  trustedAfter: z
    .string({ error: REVIEW_MESSAGES.trustedAfter })
    .trim()
    .regex(/^\d{1,4}$/, REVIEW_MESSAGES.trustedAfter)
    .transform(Number)
    .pipe(z.number().int().min(0, REVIEW_MESSAGES.trustedAfter).max(REVIEW_TRUSTED_MAX, REVIEW_MESSAGES.trustedAfter)),
  aiWorks: onOff,
  unsignedAuthors: onOff,
  samplePercent: z
    .string({ error: REVIEW_MESSAGES.samplePercent })
    .trim()
    .regex(/^\d{1,3}$/, REVIEW_MESSAGES.samplePercent)
    .transform(Number)
    .pipe(z.number().int().min(0, REVIEW_MESSAGES.samplePercent).max(100, REVIEW_MESSAGES.samplePercent)),
});

/** The author's appeal of a 退回修改 or 拒绝 (the studio's chapter list), once per decision. */
export const reviewAppealSchema = z.object({
  note: z.string({ error: REVIEW_MESSAGES.appealNote }).trim().min(1, REVIEW_MESSAGES.appealNote).max(REVIEW_NOTE_MAX, REVIEW_MESSAGES.appealTooLong),
});
