import { z } from "zod";
import { asSent, intentSchema } from "./form-fields";

/** docs/product.md: Rules, Messages: the credits page's messages. */
export const CREDITS_MESSAGES = {
  redeemRequired: "请输入兑换码",
  redeemFailed: "兑换失败，请重试",
  exchangeAmount: "请输入有效的兑换数量（至少1积分的整数）",
  exchangeTooMuch: "兑换数量不能超过当前积分余额",
  topUpAmount: "请输入有效的充值金额",
  topUpTooMuch: "单次充值金额不能超过50000元",
} as const;

/** The largest single online top-up, in yuan (1 yuan = 1 credit). */
export const TOP_UP_MAX = 50_000;
/** Longer than any code; a pasted paragraph is refused before it reaches the database. */
export const REDEEM_CODE_MAX = 32;

/**
 * A whole number typed into a form: digits only, so "1.5", "1e12", "-5", " 0x10" and
 * text are refused by the same rule on the client and the server, never coerced.
 */
function wholeNumber(message: string) {
  return z
    .string({ error: message })
    .trim()
    .regex(/^\d{1,15}$/, message)
    .transform(Number)
    .refine((n) => n >= 1, message);
}

export const redeemSchema = z.object({
  intent: z.literal("redeem"),
  code: z
    .string({ error: CREDITS_MESSAGES.redeemRequired })
    .trim()
    .min(1, CREDITS_MESSAGES.redeemRequired)
    .max(REDEEM_CODE_MAX, "兑换码不存在"),
});

/** The upper bound (the credits balance) is checked by the page and, always, by the server. */
export const exchangeSchema = z.object({
  intent: z.literal("exchange"),
  amount: wholeNumber(CREDITS_MESSAGES.exchangeAmount),
});

export const topUpSchema = z.object({
  intent: z.literal("topup"),
  amount: wholeNumber(CREDITS_MESSAGES.topUpAmount).refine((n) => n <= TOP_UP_MAX, CREDITS_MESSAGES.topUpTooMuch),
});

/** The three forms of /credits share one action, told apart by `intent`. */
export const creditsActionSchema = z.discriminatedUnion("intent", [redeemSchema, exchangeSchema, topUpSchema]);

/** Which of the three forms a reply answers, refused ones included (an intent none of them sends: 兑换码's). */
export const creditsIntentSchema = intentSchema(["redeem", "exchange", "topup"], "redeem");

/**
 * Why `value` (as typed) is not an exchange amount the balance allows, in the server's
 * words; null when it is, or when nothing is typed yet.
 */
export function exchangeAmountProblem(value: string, balance: number): string | null {
  if (value.trim() === "") return null;
  const parsed = exchangeSchema.shape.amount.safeParse(value);
  if (!parsed.success) return CREDITS_MESSAGES.exchangeAmount;
  return parsed.data > balance ? CREDITS_MESSAGES.exchangeTooMuch : null;
}

/** Whether `value` (as typed) is an exchange amount the balance allows. */
export function isValidExchangeAmount(value: string, balance: number): boolean {
  return value.trim() !== "" && exchangeAmountProblem(value, balance) === null;
}

/** 作者收入's two forms (decision 173): 申请提现 (amount, to the saved 收款账户) and 转为积分 (amount); requestPayout and convertIncomeToCredits check the values. */
export const incomeActionSchema = z.object({ intent: z.enum(["payout", "convert"]), amount: asSent });
