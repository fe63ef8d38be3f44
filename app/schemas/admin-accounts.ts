import { z } from "zod";
import { newPasswordField } from "./admin";
import { asSent, sentText, intentSchema } from "./form-fields";

/** docs/product.md#admin-roles: the four roles and their names. */
export const ADMIN_ROLES = ["super", "operator", "chief_editor", "reviewer"] as const;
export const ADMIN_ROLE_LABELS: Record<(typeof ADMIN_ROLES)[number], string> = {
  super: "超级管理员",
  operator: "运营",
  chief_editor: "总编辑",
  reviewer: "审核员",
};

export const ADMIN_ACCOUNT_MESSAGES = {
  email: "请输入有效的邮箱地址",
  role: "请选择角色",
  emailTaken: "该邮箱已是管理员",
  adminMissing: "管理员不存在",
  lastSuper: "至少需要保留一位启用中的超级管理员",
  notSelf: "不能停用自己的账号",
  selfRole: "不能修改自己的角色",
  code: "请输入认证器上的6位数字验证码",
  wrongCode: "验证码不正确或已使用，请输入认证器上的最新验证码",
  totpNotStarted: "请先生成新的密钥",
  totpAlreadyOn: "两步验证已开启",
  totpOff: "两步验证未开启",
  totpExpired: "登录已超时，请重新输入邮箱和密码",
  secondFactor: "请输入认证器上的6位数字验证码，或一个恢复码",
  recoveryCodesShown: "请把这10个恢复码保存在安全的地方：每个只能使用一次，且只显示这一次",
} as const;

/** Recovery codes (docs/decisions/167): ten, each 16 characters of Crockford's base32. */
export const RECOVERY_CODE_COUNT = 10;
export const RECOVERY_CODE_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** A recovery code as typed (any case, spaces and hyphens, Crockford's i/l/o), normalized. */
function normalizeRecoveryCode(value: string): string {
  return value.toLowerCase().replace(/[\s-]+/g, "").replace(/[il]/g, "1").replace(/o/g, "0");
}

/** Whether a normalized code has the recovery codes' form (else it is an authenticator code). */
export function isRecoveryCode(code: string): boolean {
  return /^[0-9a-hjkmnp-tv-z]{16}$/.test(code);
}

const id = z.string({ error: ADMIN_ACCOUNT_MESSAGES.adminMissing }).uuid(ADMIN_ACCOUNT_MESSAGES.adminMissing);
const role = z.enum(ADMIN_ROLES, { error: ADMIN_ACCOUNT_MESSAGES.role });

export const addAdminSchema = z.object({
  intent: z.literal("add"),
  email: z
    .string({ error: ADMIN_ACCOUNT_MESSAGES.email })
    .trim()
    .max(254, "邮箱地址过长")
    .email(ADMIN_ACCOUNT_MESSAGES.email)
    .transform((v) => v.toLowerCase()),
  password: newPasswordField,
  role,
});
const adminRoleSchema = z.object({ intent: z.literal("role"), id, role });
const adminDisableSchema = z.object({ intent: z.literal("disable"), id });
const adminEnableSchema = z.object({ intent: z.literal("enable"), id });
const adminResetPasswordSchema = z.object({ intent: z.literal("reset-password"), id, password: newPasswordField });
export const adminAccountActionSchema = z.discriminatedUnion("intent", [
  addAdminSchema,
  adminRoleSchema,
  adminDisableSchema,
  adminEnableSchema,
  adminResetPasswordSchema,
]);

/** A TOTP code as typed: six digits, spaces allowed ("123 456"). */
const totpCode = z
  .string({ error: ADMIN_ACCOUNT_MESSAGES.code })
  .transform((v) => v.replace(/\s+/g, ""))
  .pipe(z.string().regex(/^\d{6}$/, ADMIN_ACCOUNT_MESSAGES.code));

/** Where two-factor is on: a 6-digit authenticator code or a recovery code, normalized. */
const secondFactorCode = z
  .string({ error: ADMIN_ACCOUNT_MESSAGES.secondFactor })
  .transform((v) => (/^[\d\s]+$/.test(v) ? v.replace(/\s+/g, "") : normalizeRecoveryCode(v)))
  .pipe(z.string().refine((v) => /^\d{6}$/.test(v) || isRecoveryCode(v), ADMIN_ACCOUNT_MESSAGES.secondFactor));

const totpStartSchema = z.object({ intent: z.literal("totp-start") });
export const totpConfirmSchema = z.object({ intent: z.literal("totp-confirm"), code: totpCode });
export const totpDisableSchema = z.object({ intent: z.literal("totp-disable"), code: secondFactorCode });
export const totpRecoverySchema = z.object({ intent: z.literal("totp-recovery-codes"), code: secondFactorCode });
export const totpActionSchema = z.discriminatedUnion("intent", [totpStartSchema, totpConfirmSchema, totpDisableSchema, totpRecoverySchema]);
export const totpLoginSchema = z.object({ code: secondFactorCode, redirectTo: asSent });

/** /xbbadmin's two steps: the code step (`intent` code) or the e-mail and password. */
export const adminLoginIntentSchema = intentSchema(["code", "password"], "password");

/** /admin/account's forms: any `totp-…` intent is the two-step verification's (totpActionSchema tells them apart), anything else the password's. */
export const adminAccountIntentSchema = z.object({
  intent: z.unknown().transform((value) => (typeof value === "string" && value.startsWith("totp-") ? ("totp" as const) : ("password" as const))),
});

/** /admin/admins: the intent and the admin's id as sent, kept in every reply to say which form (which row's) it answers. */
export const adminAccountReplyKeySchema = z.object({ intent: sentText, id: sentText });

/** 站点名称 (docs/product.md#back-office): shown in the shell's top bar and sidebar, and in mails. */
export const SITE_TITLE_MAX = 30;
export const siteTitleSchema = z.object({
  title: z.string({ error: "请输入站点名称" }).trim().min(1, "请输入站点名称").max(SITE_TITLE_MAX, `站点名称不能超过${SITE_TITLE_MAX}个字符`),
});
