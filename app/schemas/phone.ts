import { z } from "zod";

/**
 * 绑定手机号 (docs/product.md#phone-verification, decision 235): a mainland number and the
 * 6-digit code sent to it.
 */

/** Minutes a code stays valid. */
export const PHONE_CODE_MINUTES = 5;
/** Wrong tries a code allows; the next one needs a new code. */
export const PHONE_CODE_MAX_TRIES = 5;

export const PHONE_MESSAGES = {
  phoneRequired: "请输入手机号",
  phoneInvalid: "请输入正确的 11 位中国大陆手机号",
  codeRequired: "请输入验证码",
  codeInvalid: "验证码是 6 位数字",
  noCode: "请先获取验证码",
  codeWrong: (left: number) => `验证码错误，还可以再试 ${left} 次`,
  codeExpired: `验证码已过期（有效期 ${PHONE_CODE_MINUTES} 分钟），请重新获取`,
  codeUsed: "验证码已使用过，请重新获取",
  tooManyTries: "验证码错误次数过多，请重新获取",
  tooManySends: "验证码发送太频繁，请稍后再试",
  resendWait: "验证码已发送，请 1 分钟后再重新获取",
  taken: "该手机号已绑定其他账号，一个手机号只能绑定一个账号，请换一个号码",
  alreadyMine: "该手机号已绑定到你的账号，无需重新绑定",
  sendFailed: "短信发送失败，请稍后再试",
  /** The comment forms and the server's refusal while the operator requires a phone. */
  required: "发表评论前请先绑定手机号",
} as const;

/**
 * The number as stored: full-width digits folded, spaces and hyphens dropped, a +86 / 0086
 * / 86 prefix removed; null when what is left is not 1[3-9] and 9 more digits.
 */
function normalisePhone(raw: string): string | null {
  let s = raw.normalize("NFKC").replace(/[\s-]/g, "");
  s = s.replace(/^(\+86|0086|86)(?=1\d{10}$)/, "");
  return /^1[3-9]\d{9}$/.test(s) ? s : null;
}

/** 138****8000: what the pages show of a number. */
export function maskPhone(phone: string): string {
  return `${phone.slice(0, 3)}****${phone.slice(7)}`;
}

const phoneField = z
  .string({ error: PHONE_MESSAGES.phoneRequired })
  .trim()
  .min(1, PHONE_MESSAGES.phoneRequired)
  .max(20, PHONE_MESSAGES.phoneInvalid)
  .transform((value, ctx) => {
    const phone = normalisePhone(value);
    if (!phone) {
      ctx.addIssue({ code: "custom", message: PHONE_MESSAGES.phoneInvalid });
      return z.NEVER;
    }
    return phone;
  });

const codeField = z
  .string({ error: PHONE_MESSAGES.codeRequired })
  .trim()
  .min(1, PHONE_MESSAGES.codeRequired)
  .transform((value) => value.normalize("NFKC"))
  .pipe(z.string().regex(/^\d{6}$/, PHONE_MESSAGES.codeInvalid));

/** The two forms of /settings/phone: 获取验证码 (a number) and 绑定 (the code). */
export const phoneSendSchema = z.object({ intent: z.literal("send"), phone: phoneField });
export const phoneConfirmSchema = z.object({ intent: z.literal("confirm"), code: codeField });
export const phoneFormSchema = z.discriminatedUnion("intent", [phoneSendSchema, phoneConfirmSchema]);

/** The operator's switch (站点名称 page): a verified phone before 本章说, 段评, replies and 书评. */
export const phonePolicySchema = z.object({
  intent: z.literal("phone"),
  required: z.unknown().optional().transform((v) => v === "on"),
});
