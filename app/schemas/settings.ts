import { z } from "zod";
import { newPasswordSchema, PASSWORD_MAX_BYTES } from "./auth";
import { rowId } from "./form-fields";

export const NICKNAME_MAX = 30;
export const PIXIV_ID_MAX = 32;
/** 阅读App（OPDS）: a token's label, and how many tokens a reader may hold (decision 201). */
export const OPDS_LABEL_MAX = 30;
export const OPDS_TOKEN_LIMIT = 5;

/** docs/product.md: Rules, Messages: the settings pages' messages. */
export const SETTINGS_MESSAGES = {
  nicknameRequired: "请输入昵称",
  nicknameTooLong: `昵称不能超过${NICKNAME_MAX}个字符`,
  pixivRequired: "请输入pixiv ID",
  pixivFormat: "pixiv ID只能包含字母、数字、下划线和连字符",
  pixivTooLong: `pixiv ID不能超过${PIXIV_ID_MAX}个字符`,
  pixivTaken: "此pixiv ID已被使用",
  pixivNotice: "设置后30天内无法再次修改，且旧的pixiv ID将无法再被使用。",
  currentPasswordRequired: "请输入当前密码",
  currentPasswordWrong: "当前密码错误",
  newPasswordRequired: "请输入新密码",
  confirmRequired: "请再次输入新密码",
  passwordsDiffer: "两次输入的新密码不一致",
  adultRequired: "开启 R-18 内容前，请勾选“我已年满 18 周岁”",
  avatarRequired: "请选择头像图片",
  saveFailed: "保存失败，请重试",
  loadFailed: "加载失败，请重试",
  opdsLabelRequired: "请输入令牌名称，如“KOReader”",
  opdsLabelTooLong: `令牌名称不能超过${OPDS_LABEL_MAX}个字符`,
  opdsTooMany: `最多只能创建${OPDS_TOKEN_LIMIT}个阅读App令牌，请先撤销不用的令牌`,
  opdsTokenMissing: "令牌不存在或已撤销",
  /** What a reading app's request without a working token gets (401, no data). */
  opdsUnauthorized: "阅读App令牌无效或已撤销，请在“设置 → 阅读App（OPDS）”中重新创建",
} as const;

/** Counted in characters as a person sees them (an emoji is one), after trimming. */
export const nicknameSchema = z.object({
  nickname: z
    .string({ error: SETTINGS_MESSAGES.nicknameRequired })
    .trim()
    .min(1, SETTINGS_MESSAGES.nicknameRequired)
    .refine((v) => Array.from(v).length <= NICKNAME_MAX, SETTINGS_MESSAGES.nicknameTooLong),
});

export const pixivIdSchema = z.object({
  pixivId: z
    .string({ error: SETTINGS_MESSAGES.pixivRequired })
    .trim()
    .min(1, SETTINGS_MESSAGES.pixivRequired)
    .max(PIXIV_ID_MAX, SETTINGS_MESSAGES.pixivTooLong)
    .regex(/^[A-Za-z0-9_-]+$/, SETTINGS_MESSAGES.pixivFormat),
});

/** A new password and its confirmation: the password change and the reset by e-mail. */
export const newPasswordFields = {
  newPassword: z
    .string({ error: SETTINGS_MESSAGES.newPasswordRequired })
    .min(1, SETTINGS_MESSAGES.newPasswordRequired)
    .pipe(newPasswordSchema),
  confirmPassword: z.string({ error: SETTINGS_MESSAGES.confirmRequired }).min(1, SETTINGS_MESSAGES.confirmRequired),
};

/** The refinement that the two new passwords match, reported by the confirmation field. */
export const newPasswordsMatch: [(v: { newPassword: string; confirmPassword: string }) => boolean, { path: string[]; message: string }] = [
  (v) => v.newPassword === v.confirmPassword,
  { path: ["confirmPassword"], message: SETTINGS_MESSAGES.passwordsDiffer },
];

export const passwordChangeSchema = z
  .object({
    currentPassword: z
      .string({ error: SETTINGS_MESSAGES.currentPasswordRequired })
      .min(1, SETTINGS_MESSAGES.currentPasswordRequired)
      .refine((v) => new TextEncoder().encode(v).length <= PASSWORD_MAX_BYTES, SETTINGS_MESSAGES.currentPasswordWrong),
    ...newPasswordFields,
  })
  .refine(...newPasswordsMatch);

/** 浏览与显示: each toggle is its own small form that posts the value it sets. */
export const displayPreferenceSchema = z.object({
  preference: z.enum(["showR18", "showAi"], { error: SETTINGS_MESSAGES.saveFailed }),
  value: z.enum(["on", "off"], { error: SETTINGS_MESSAGES.saveFailed }).transform((v) => v === "on"),
  /** The 我已年满 18 周岁 checkbox beside the R-18 switch while it is off. */
  adultConfirmed: z.string().optional().transform((v) => v === "yes"),
});

/**
 * 阅读App（OPDS） (/settings/opds): 创建令牌 with a label, or 撤销 one by its id (an unknown
 * or someone else's id is 不存在, said by the domain function).
 */
export const opdsTokenActionSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("create"),
    label: z
      .string({ error: SETTINGS_MESSAGES.opdsLabelRequired })
      .trim()
      .min(1, SETTINGS_MESSAGES.opdsLabelRequired)
      .refine((v) => Array.from(v).length <= OPDS_LABEL_MAX, SETTINGS_MESSAGES.opdsLabelTooLong),
  }),
  z.object({ intent: z.literal("revoke"), id: rowId }),
]);
