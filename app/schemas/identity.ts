import { z } from "zod";
import { sentText } from "./form-fields";

/**
 * 实名认证 (docs/product.md#author-identity, decision 204): the checks of a legal name and
 * a document number, shared by the author's form (in the browser) and the domain function
 * (which checks again against today's date in Beijing).
 */

export const IDENTITY_DOCUMENTS = ["resident_id", "passport", "hmt_permit"] as const;
export type IdentityDocument = (typeof IDENTITY_DOCUMENTS)[number];

export const IDENTITY_DOCUMENT_LABELS: Record<IdentityDocument, string> = {
  resident_id: "居民身份证",
  passport: "护照",
  hmt_permit: "港澳台居民通行证/居住证",
};

export const IDENTITY_STATUS_LABELS = { none: "未提交", pending: "审核中", approved: "已通过", rejected: "已退回" } as const;

/** An author must be this old (on the day of submission, in Beijing). */
export const IDENTITY_MIN_AGE = 16;
export const LEGAL_NAME_MAX = 50;
export const IDENTITY_NOTE_MAX = 200;
export const REVEAL_REASON_MAX = 200;

export const IDENTITY_MESSAGES = {
  documentType: "请选择证件类型",
  nameRequired: "请填写真实姓名",
  nameFormat: `真实姓名应为 2-${LEGAL_NAME_MAX} 个字，只含汉字、字母、空格和间隔号“·”`,
  numberRequired: "请填写证件号码",
  residentFormat: "身份证号应为 18 位：17 位数字加 1 位数字或 X",
  residentRegion: "身份证号的地区码无效",
  residentCheckDigit: "身份证号校验位不正确，请核对",
  otherFormat: "证件号码应为 5-20 位字母或数字",
  birthRequired: "请填写出生日期",
  birthInvalid: "出生日期无效",
  birthFuture: "出生日期不能晚于今天",
  tooYoung: `作者须年满 ${IDENTITY_MIN_AGE} 周岁才能进行实名认证`,
  off: "实名认证未开启",
  alreadyPending: "你的实名认证正在审核中，请耐心等待",
  alreadyApproved: "你已通过实名认证",
  notFound: "认证申请不存在",
  alreadyDecided: "该认证申请已处理",
  claimedByOther: (email: string) => `该申请已由 ${email} 领取`,
  noteRequired: "退回时请填写原因",
  noteTooLong: `原因不能超过 ${IDENTITY_NOTE_MAX} 字`,
  reasonRequired: "查看完整信息前请填写原因",
  reasonTooLong: `原因不能超过 ${REVEAL_REASON_MAX} 字`,
  superOnly: "只有超级管理员可以查看完整实名信息",
  undecryptable: "实名信息无法解密：密文已损坏或密钥不符，请联系技术人员核查",
} as const;

/** The province-level codes a 居民身份证号 may start with (GB/T 2260, with 71 台湾, 81 香港, 82 澳门, 83 台湾居住证). */
const PROVINCES = new Set([
  11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46, 50, 51, 52, 53, 54, 61, 62, 63, 64, 65, 71, 81, 82, 83,
]);
const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const CHECK_DIGITS = "10X98765432";

/** GB 11643's check digit of the first 17 digits. @internal */
export function residentCheckDigit(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * WEIGHTS[i];
  return CHECK_DIGITS[sum % 11];
}

/** "YYYY-MM-DD" when y/m/d is a real calendar day (no 2月30日), else null. */
function realDay(y: number, m: number, d: number): string | null {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (y < 1900 || date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** A birth date ("YYYY-MM-DD") checked against `today` ("YYYY-MM-DD", Beijing): a message, or null when fine. */
function birthDateProblem(birth: string, today: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birth);
  const day = match ? realDay(Number(match[1]), Number(match[2]), Number(match[3])) : null;
  if (!day) return IDENTITY_MESSAGES.birthInvalid;
  if (day > today) return IDENTITY_MESSAGES.birthFuture;
  // Sixteen on the birthday (a 29 February birthday counts on 1 March of a common year: the string compare does that).
  const sixteenth = `${String(Number(day.slice(0, 4)) + IDENTITY_MIN_AGE).padStart(4, "0")}${day.slice(4)}`;
  if (sixteenth > today) return IDENTITY_MESSAGES.tooYoung;
  return null;
}

/** The 居民身份证号 in its one spelling (upper-case X, no spaces). */
function normalizeDocumentNumber(value: string): string {
  return value.replace(/\s+/g, "").toUpperCase();
}

/**
 * A 居民身份证号 (GB 11643) checked: 18 characters, a region code of the right shape, a real
 * birth date not after `today`, an author of 16 or more, the check digit. The first problem
 * found as a message, or null. @internal
 */
export function residentIdProblem(number: string, today: string): string | null {
  if (!/^\d{17}[\dX]$/.test(number)) return IDENTITY_MESSAGES.residentFormat;
  if (!PROVINCES.has(Number(number.slice(0, 2))) || number.slice(2, 6) === "0000") return IDENTITY_MESSAGES.residentRegion;
  const birth = `${number.slice(6, 10)}-${number.slice(10, 12)}-${number.slice(12, 14)}`;
  const problem = birthDateProblem(birth, today);
  if (problem) return problem;
  if (residentCheckDigit(number.slice(0, 17)) !== number[17]) return IDENTITY_MESSAGES.residentCheckDigit;
  return null;
}

const NAME_PATTERN = /^[\p{Script=Han}A-Za-z][\p{Script=Han}A-Za-z ·.]*[\p{Script=Han}A-Za-z]$/u;

function legalNameProblem(name: string): string | null {
  if (!name) return IDENTITY_MESSAGES.nameRequired;
  if (Array.from(name).length > LEGAL_NAME_MAX || !NAME_PATTERN.test(name)) return IDENTITY_MESSAGES.nameFormat;
  return null;
}

/** 张三 → 张*, 欧阳娜娜 → 欧***: the first character, then one * for each other. */
export function maskName(name: string): string {
  const chars = Array.from(name);
  return chars[0] + "*".repeat(Math.max(1, chars.length - 1));
}

/** 110101200001011234 → 1101**********1234; a shorter document number keeps two at each end. */
export function maskDocumentNumber(number: string): string {
  const keep = number.length >= 15 ? 4 : 2;
  return number.slice(0, keep) + "*".repeat(Math.max(1, number.length - keep * 2)) + number.slice(-keep);
}

export interface IdentityInput {
  documentType: IdentityDocument;
  legalName: string;
  documentNumber: string;
  /** Only for a passport or a permit; a 居民身份证号 carries its own. */
  birthDate: string;
}

/** Every problem of a submission, by field (empty when fine): the form and the domain function both use it. */
export function identityProblems(input: { documentType: string; legalName: string; documentNumber: string; birthDate: string }, today: string) {
  const problems: Partial<Record<keyof IdentityInput, string>> = {};
  if (!(IDENTITY_DOCUMENTS as readonly string[]).includes(input.documentType)) problems.documentType = IDENTITY_MESSAGES.documentType;
  const name = legalNameProblem(input.legalName);
  if (name) problems.legalName = name;
  if (!input.documentNumber) problems.documentNumber = IDENTITY_MESSAGES.numberRequired;
  else if (input.documentType === "resident_id") {
    const problem = residentIdProblem(input.documentNumber, today);
    if (problem) problems.documentNumber = problem;
  } else if (!/^[A-Z0-9]{5,20}$/.test(input.documentNumber)) problems.documentNumber = IDENTITY_MESSAGES.otherFormat;
  if (input.documentType !== "resident_id" && problems.documentType === undefined) {
    const birth = input.birthDate ? birthDateProblem(input.birthDate, today) : IDENTITY_MESSAGES.birthRequired;
    if (birth) problems.birthDate = birth;
  }
  return problems;
}

/** The form's fields, trimmed and normalised; checked by `identityProblems`. */
export function readIdentityInput(value: { documentType: string; legalName: string; documentNumber: string; birthDate: string }): IdentityInput {
  return {
    documentType: value.documentType as IdentityDocument,
    legalName: value.legalName.trim().replace(/\s+/g, " "),
    documentNumber: normalizeDocumentNumber(value.documentNumber),
    birthDate: value.birthDate.trim(),
  };
}

/** 实名认证's form as sent: submitIdentity checks it (identityProblems, against today in Beijing). */
export const identitySubmitSchema = z.object({
  documentType: sentText,
  legalName: sentText,
  documentNumber: sentText,
  birthDate: sentText,
});

/** The identity queue's item page: 领取, or 通过 / 退回 with a reason the author sees. */
export const identityDecisionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("claim") }),
  z.object({
    intent: z.literal("decide"),
    decision: z.enum(["approve", "reject"], { error: "未知操作" }),
    note: z.string().trim().max(IDENTITY_NOTE_MAX, IDENTITY_MESSAGES.noteTooLong).optional().default(""),
  }),
]);

/** 查看完整信息: a reason, written to the audit log. */
export const identityRevealSchema = z.object({
  reason: z
    .string({ error: IDENTITY_MESSAGES.reasonRequired })
    .trim()
    .min(1, IDENTITY_MESSAGES.reasonRequired)
    .max(REVEAL_REASON_MAX, IDENTITY_MESSAGES.reasonTooLong),
});

/** The operator's switches (稿酬与定价): 实名认证 required before selling and payouts; selling allowed while the feature is off. */
export const identityPolicySchema = z.object({
  intent: z.literal("identity"),
  required: z.unknown().optional().transform((v) => v === "on"),
  sellWithoutKey: z.unknown().optional().transform((v) => v === "on"),
});
