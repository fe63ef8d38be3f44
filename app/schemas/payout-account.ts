import { z } from "zod";
import { asSent, sentText } from "./form-fields";

/**
 * 收款账户 (docs/product.md#author-income, decision 210): a bank card (its number checked with
 * the Luhn digit) or an Alipay account (a mainland mobile number or an e-mail address). The
 * checks are shared by the author's form and `savePayoutAccount`, which checks again.
 */

export const PAYOUT_ACCOUNT_MESSAGES = {
  kind: "请选择收款方式",
  cardFormat: "银行卡号应为 12-19 位数字",
  cardCheckDigit: "银行卡号校验位不正确，请核对",
  bankName: "请填写开户银行（2-30 字）",
  alipayFormat: "支付宝账号应为手机号或邮箱",
  holderRequired: "请填写收款人姓名",
  holderFormat: "收款人姓名应为 2-50 个字",
  holderMismatch: "收款账户的户名须与实名认证的姓名一致",
  off: "本站未配置加密密钥（IDENTITY_KEY），暂不能保存收款账户，请联系运营",
  none: "请先添加收款账户（我的收入 → 收款账户），再申请提现",
  undecryptable: "收款账户无法解密：密文已损坏或密钥不符，请联系技术人员核查",
} as const;

export const PAYOUT_ACCOUNT_KIND_LABELS = { bank: "银行卡", alipay: "支付宝" } as const;

/** The Luhn (mod 10) check of a card number's digits. @internal */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export interface PayoutAccountInput {
  kind: "bank" | "alipay";
  /** Digits only for a card; trimmed (an e-mail in lower case) for Alipay. */
  account: string;
  bankName: string | null;
  holderName: string;
}

/** Reads the form as sent: spaces and dashes inside a card number are ignored. */
export function readPayoutAccount(sent: { kind?: unknown; account?: unknown; bankName?: unknown; holderName?: unknown }): {
  input: PayoutAccountInput | null;
  problems: Record<string, string>;
} {
  const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
  const kind = text(sent.kind);
  const problems: Record<string, string> = {};
  if (kind !== "bank" && kind !== "alipay") return { input: null, problems: { kind: PAYOUT_ACCOUNT_MESSAGES.kind } };
  let account = text(sent.account);
  let bankName: string | null = null;
  if (kind === "bank") {
    account = account.replace(/[\s-]/g, "");
    if (!/^\d{12,19}$/.test(account)) problems.account = PAYOUT_ACCOUNT_MESSAGES.cardFormat;
    else if (!luhnValid(account)) problems.account = PAYOUT_ACCOUNT_MESSAGES.cardCheckDigit;
    bankName = text(sent.bankName).replace(/\s+/g, " ");
    if (Array.from(bankName).length < 2 || Array.from(bankName).length > 30) problems.bankName = PAYOUT_ACCOUNT_MESSAGES.bankName;
  } else {
    const phone = /^1[3-9]\d{9}$/.test(account);
    const email = account.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(account);
    if (!phone && !email) problems.account = PAYOUT_ACCOUNT_MESSAGES.alipayFormat;
    if (email) account = account.toLowerCase();
  }
  const holderName = text(sent.holderName).replace(/\s+/g, " ");
  if (!holderName) problems.holderName = PAYOUT_ACCOUNT_MESSAGES.holderRequired;
  else if (Array.from(holderName).length < 2 || Array.from(holderName).length > 50) problems.holderName = PAYOUT_ACCOUNT_MESSAGES.holderFormat;
  return { input: Object.keys(problems).length > 0 ? null : { kind, account, bankName, holderName }, problems };
}

/** 6222021234567890123 → 6222 **** **** 0123; 13812345678 → 138****5678; name@example.com → n***@example.com. */
export function maskPayoutAccount(kind: "bank" | "alipay", account: string): string {
  if (kind === "bank") return `${account.slice(0, 4)} **** **** ${account.slice(-4)}`;
  if (!account.includes("@")) return `${account.slice(0, 3)}****${account.slice(-4)}`;
  const [local, domain] = account.split("@");
  return `${local.slice(0, 1)}***@${domain}`;
}

/** The account form (decision 173: the values as sent; savePayoutAccount checks them). */
export const payoutAccountFormSchema = z.object({ kind: sentText, account: asSent, bankName: asSent, holderName: asSent });
