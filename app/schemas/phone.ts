import { z } from "zod";
import { PHONE_MESSAGES } from "./phone-rules";

/**
 * 绑定手机号 (docs/product.md#phone-verification, decision 235): a mainland number and the
 * 6-digit code sent to it.
 */

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
