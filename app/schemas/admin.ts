import { z } from "zod";
import { normalizeLinesIn } from "~/utils/text";
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH } from "./auth";
import { asSent, intentSchema, rowId } from "./form-fields";

/**
 * Schemas of the administrator back office (docs/product.md: Rules, Messages), shared by the
 * forms (Conform on the client) and the actions (on the server).
 */

export const ADMIN_MESSAGES = {
  wrongPassword: "密码错误",
  tooManyAttempts: "尝试次数过多，请稍后再试",
  passwordChanged: "密码修改成功",
  currentPasswordWrong: "当前密码错误",
  saved: "保存成功",
  saveFailed: "保存失败，请重试",
  deleted: "删除成功",
  deleteFailed: "删除失败，请重试",
  loadFailed: "加载失败，请重试",
  uploadFailed: "上传失败，请重试",
  exportFailed: "导出失败，请重试",
  setFailed: "设置失败，请重试",
  testFailed: "测试失败，请重试",
  createFailed: "创建失败，请重试",
  setDefault: "已设为默认",
  promptCode: "请输入提示词代码",
  promptTitle: "请输入提示词标题",
  promptSystem: "请输入系统提示词",
  promptUser: "请输入用户提示词",
  promptCodeExists: "提示词代码已存在",
  promptMissing: "提示词不存在",
  superOnly: "只有超级管理员可以进行此操作",
  staffOnly: "只有超级管理员和运营可以进行此操作",
  reviewersOnly: "只有审核员、总编辑和超级管理员可以审核",
  chiefOnly: "只有总编辑和超级管理员可以修改审核规则",
  adminDisabled: "该管理员账号已停用",
  totpRequired: "请先在“我的账户”中开启两步验证",
  builtInPromptDelete: "内置提示词不能删除，只能修改内容",
  builtInPromptCode: "内置提示词的代码不能修改",
  apiConfigIncomplete: "请填写完整信息",
  apiTestIncomplete: "请填写接口地址和API密钥",
  apiConnectionFailed: "API连接失败",
  apiInvalidFormat: "API响应格式无效",
  apiConnected: "API连接成功",
  chatTestFailed: "云端API连接失败",
  chatTestOk: "测试成功，API响应正常",
  ratio: "请输入有效的积分兑换比例",
  initialTokens: "请输入有效的初始Tokens数量",
  dailyTokenCap: "每日上限请填写0或正整数（0或留空表示不限）",
  gatewayUrl: "请输入支付网关地址",
  merchantPid: "请输入商户PID",
  merchantKey: "请输入商户密钥",
  codesGenerated: "兑换码生成成功！",
  noUnusedCodes: "暂无未使用的兑换码",
  quantity: "请输入1到100之间的数量",
  denomination: "请选择有效的面额",
  workMissing: "无法加载导出：作品不存在",
  noChapters: "未找到章节内容",
  workEmpty: "作品内容为空",
  nickname: "请输入昵称",
  userMissing: "用户不存在",
  userDeleted: "该账号已注销，不能重置密码",
  balance: "请输入有效的积分余额（不小于0的整数）",
  balanceChange: "请输入有效的调整数量（非零整数，如 +100 或 -50）",
  unauthorized: "请先登录管理后台",
  tokenName: "请输入令牌名称",
} as const;

const requiredText = (message: string, max: number, maxMessage = `不能超过${max}个字符`) =>
  z.string({ error: message }).trim().min(1, message).max(max, maxMessage);

const password = (message: string) =>
  z
    .string({ error: message })
    .min(1, message)
    .refine((v) => new TextEncoder().encode(v).length <= PASSWORD_MAX_BYTES, "密码过长");

/** /xbbadmin: e-mail and password against the admins table. */
export const adminLoginSchema = z.object({
  email: z
    .string({ error: "请输入邮箱" })
    .trim()
    .min(1, "请输入邮箱")
    .max(254, "邮箱地址过长")
    .transform((v) => v.toLowerCase()),
  password: password("请输入密码"),
  redirectTo: z.string().max(2000).optional(),
});

/** A new password: non-empty (docs/product.md: Rules) and at least as long as a user's. */
export const newPasswordField = password("请输入新密码").refine(
  (v) => v.length >= PASSWORD_MIN_LENGTH,
  `密码至少需要 ${PASSWORD_MIN_LENGTH} 个字符`,
);

export const adminPasswordSchema = z
  .object({
    currentPassword: password("请输入当前密码"),
    newPassword: newPasswordField,
    confirmPassword: z.string({ error: "请再次输入新密码" }).min(1, "请再次输入新密码"),
  })
  .refine((v) => v.newPassword === v.confirmPassword, {
    path: ["confirmPassword"],
    message: "两次输入的密码不一致",
  });

/** A whole number typed into a form, checked as text first so "1.5" and "1e3" fail. */
const wholeNumber = (message: string, min: number, max: number) =>
  z
    .string({ error: message })
    .trim()
    .regex(/^\d{1,15}$/, message)
    .transform(Number)
    .pipe(z.number().int(message).min(min, message).max(max, message));

const MAX_BALANCE = 1_000_000_000;

export const nicknameSchema = z.object({
  intent: z.literal("nickname"),
  nickname: requiredText(ADMIN_MESSAGES.nickname, 30, "昵称不能超过30个字符"),
});
/**
 * A change of the credits balance (decision 137): signed ("+100", "-50", "100"), never 0,
 * with a required reason that goes into the ledger row.
 */
export const balanceSchema = z.object({
  intent: z.literal("balance"),
  change: z
    .string({ error: ADMIN_MESSAGES.balanceChange })
    .trim()
    .regex(/^[+-]?\d{1,10}$/, ADMIN_MESSAGES.balanceChange)
    .transform(Number)
    .pipe(z.number().int().refine((n) => n !== 0 && Math.abs(n) <= MAX_BALANCE, ADMIN_MESSAGES.balanceChange)),
  reason: requiredText("请填写调整原因", 200, "原因不能超过200个字"),
});
/** yyyy-mm-dd (a ban ends at the start of that day, China time) or empty: no end. */
const optionalDay = z
  .string()
  .trim()
  .optional()
  .transform((v) => v ?? "")
  .refine((v) => v === "" || /^\d{4}-\d{2}-\d{2}$/.test(v), "请输入有效的日期，如 2026-12-31")
  .transform((v, ctx) => {
    if (!v) return null;
    const date = new Date(`${v}T00:00:00+08:00`);
    if (Number.isNaN(date.getTime()) || new Date(date.getTime() + 8 * 3600_000).toISOString().slice(0, 10) !== v) {
      ctx.addIssue({ code: "custom", message: "请输入有效的日期，如 2026-12-31" });
      return z.NEVER;
    }
    return date;
  });
export const banSchema = z.object({
  intent: z.literal("ban"),
  reason: requiredText("请填写封禁原因", 200, "封禁原因不能超过200个字"),
  until: optionalDay,
});
const unbanSchema = z.object({ intent: z.literal("unban") });
const endSessionsSchema = z.object({ intent: z.literal("end-sessions") });
/** 先审名单 (docs/product.md#review): "1" puts the author on it, anything else takes them off. */
const reviewRequiredSchema = z.object({ intent: z.literal("review-required"), required: z.unknown().optional().transform((v) => v === "1") });
/** 签约状态 (decision 236): the value is checked by setContract. */
const contractSchema = z.object({ intent: z.literal("contract"), contract: z.string().optional() });
export const resetPasswordSchema = z.object({ intent: z.literal("password"), password: newPasswordField });
/** An administrator's message to the user's inbox (docs/product.md#notifications). */
export const userMessageSchema = z.object({
  intent: z.literal("message"),
  body: requiredText("请填写消息内容", 2000, "消息不能超过 2000 字"),
});
export const userActionSchema = z.discriminatedUnion("intent", [
  nicknameSchema,
  balanceSchema,
  resetPasswordSchema,
  userMessageSchema,
  banSchema,
  unbanSchema,
  endSessionsSchema,
  reviewRequiredSchema,
  contractSchema,
]);

export const PROMPT_TYPES = ["free", "imitate", "continue"] as const;
export const PROMPT_TYPE_LABELS: Record<(typeof PROMPT_TYPES)[number], string> = {
  free: "自由创作",
  imitate: "短篇仿写",
  continue: "连载续写",
};
/** The {|id|} placeholders substituted at generation (docs/product.md: Prompts). */
export const PROMPT_VARIABLES: { id: string; label: string }[] = [
  { id: "synopsis", label: "故事梗概" },
  { id: "character-setting", label: "角色设定" },
  { id: "outline", label: "整体大纲" },
  { id: "key-moment", label: "本段情节" },
  { id: "expected-word-count", label: "期望字数" },
  { id: "key-character", label: "出场角色" },
  { id: "key-stage", label: "场景与环境" },
  { id: "additional-information", label: "补充说明" },
];

const checkbox = z
  .union([z.literal("on"), z.literal("true"), z.literal("1")])
  .optional()
  .transform((v) => v !== undefined);

export const promptSchema = z.object({
  code: requiredText(ADMIN_MESSAGES.promptCode, 50, "提示词代码不能超过50个字符"),
  title: requiredText(ADMIN_MESSAGES.promptTitle, 200, "提示词标题不能超过200个字符"),
  systemContent: requiredText(ADMIN_MESSAGES.promptSystem, 50_000, "系统提示词过长"),
  userContent: requiredText(ADMIN_MESSAGES.promptUser, 50_000, "用户提示词过长"),
  type: z.enum(PROMPT_TYPES, { error: "请选择提示词类型" }).default("free"),
  isSystem: checkbox,
});
export type PromptInput = z.infer<typeof promptSchema>;

export const promptActionSchema = z.discriminatedUnion("intent", [
  promptSchema.extend({ intent: z.literal("create") }),
  promptSchema.extend({ intent: z.literal("update"), id: z.coerce.number().int().positive() }),
  z.object({ intent: z.literal("delete"), id: z.coerce.number().int().positive() }),
]);

export const API_PROVIDERS = ["openai", "gemini"] as const;
export const MODEL_PLACEHOLDERS: Record<(typeof API_PROVIDERS)[number], string> = {
  openai: "gpt-4-turbo-preview",
  gemini: "gemini-pro",
};

export const CONTEXT_TOKENS_DEFAULT = 32_000;
export const CONTEXT_TOKENS_MIN = 1_000;
export const CONTEXT_TOKENS_MAX = 2_000_000;
const CONTEXT_TOKENS_MESSAGE = `上下文大小必须是${CONTEXT_TOKENS_MIN}到${CONTEXT_TOKENS_MAX}之间的整数`;

const optionalText = (max: number) => z.string().trim().max(max, `不能超过${max}个字符`).optional().default("");

/**
 * An API config as typed: name, endpoint and key required (key optional when editing: a
 * blank key keeps the stored one, which is never sent to the browser).
 */
const apiConfigFields = {
  name: optionalText(100),
  provider: z.enum(API_PROVIDERS, { error: "请选择服务商" }).default("openai"),
  endpoint: optionalText(2000),
  apiKey: optionalText(2000),
  model: optionalText(200),
  /** The continuation prompt's size limit (docs/decisions/127); empty: the default. */
  contextTokens: z.coerce
    .number({ error: CONTEXT_TOKENS_MESSAGE })
    .int({ error: CONTEXT_TOKENS_MESSAGE })
    .min(CONTEXT_TOKENS_MIN, { error: CONTEXT_TOKENS_MESSAGE })
    .max(CONTEXT_TOKENS_MAX, { error: CONTEXT_TOKENS_MESSAGE })
    .optional(),
};

export const apiConfigActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("create"), ...apiConfigFields }),
  z.object({ intent: z.literal("update"), id: z.uuid(), ...apiConfigFields }),
  z.object({ intent: z.literal("test"), id: z.uuid().optional().or(z.literal("").transform(() => undefined)), ...apiConfigFields }),
  z.object({ intent: z.literal("delete"), id: z.uuid() }),
  z.object({ intent: z.literal("set-default"), id: z.uuid() }),
]);

const PAYMENT_METHODS = ["redeem_code", "payment_api"] as const;

const httpUrl = (message: string) =>
  z
    .string()
    .trim()
    .max(2000, "地址过长")
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === "http:" || u.protocol === "https:";
      } catch {
        return false;
      }
    }, message);

export const paymentMethodSchema = z.object({
  method: z.enum(PAYMENT_METHODS, { error: "请选择支付方式" }),
  storeUrl: z
    .string()
    .trim()
    .max(2000, "地址过长")
    .optional()
    .default("")
    .refine((v) => v === "" || httpUrl("").safeParse(v).success, "请输入有效的商店链接（http或https开头）"),
});

/** The parameters the site itself sends to an epay gateway (docs/protocols.md). */
const EPAY_SUBMIT_PARAMS = ["pid", "type", "out_trade_no", "notify_url", "return_url", "name", "money", "sitename", "param", "sign", "sign_type"] as const;

/**
 * What is wrong with a gateway address's own query (…/submit.php?channel=7), or null. Its
 * parameters are sent and signed with the site's (epay.server.ts signedOrder,
 * docs/decisions/165), so each may appear once and none may be one of the site's own.
 */
function gatewayQueryProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const keys = [...url.searchParams.keys()];
  const taken = keys.find((k) => (EPAY_SUBMIT_PARAMS as readonly string[]).includes(k));
  if (taken) return `支付网关地址不能带参数 ${taken}：它由本站在下单时填写并签名，请从地址中去掉`;
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  if (twice) return `支付网关地址中的参数 ${twice} 重复了，每个参数只能出现一次`;
  if (url.hash) return "支付网关地址不能带 # 之后的部分";
  return null;
}

/** The merchant key may be left blank to keep the stored one (it is never shown again). */
export const paymentApiSchema = z.object({
  gatewayUrl: z
    .string({ error: ADMIN_MESSAGES.gatewayUrl })
    .trim()
    .min(1, ADMIN_MESSAGES.gatewayUrl)
    .pipe(httpUrl("请输入有效的支付网关地址（http或https开头）"))
    .superRefine((value, ctx) => {
      const problem = gatewayQueryProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  merchantPid: requiredText(ADMIN_MESSAGES.merchantPid, 100),
  merchantKey: z.string().trim().max(500, "商户密钥过长").optional().default(""),
});

export const tokensSchema = z.object({
  ratio: wholeNumber(ADMIN_MESSAGES.ratio, 1, 1_000_000_000),
  initialTokens: wholeNumber(ADMIN_MESSAGES.initialTokens, 0, 1_000_000_000_000),
  /** Tokens one user's AI generations may take per day (China's calendar day); 0 or empty: no cap (decision 125). */
  dailyTokenCap: z.preprocess(
    (v) => (v === undefined || (typeof v === "string" && v.trim() === "") ? "0" : v),
    wholeNumber(ADMIN_MESSAGES.dailyTokenCap, 0, 1_000_000_000_000),
  ),
});

export const SITE_DESCRIPTION_MAX = 2000;
const LEGAL_CONTENT_MAX = 200_000;

export const descriptionSchema = z.object({
  description: z.preprocess(normalizeLinesIn, z.string().max(SITE_DESCRIPTION_MAX, `站点简介不能超过${SITE_DESCRIPTION_MAX}个字符`).default("")),
});

export const legalSchema = z.object({
  content: z.preprocess(normalizeLinesIn, z.string().max(LEGAL_CONTENT_MAX, "内容过长").default("")),
  /** 预览 shows the text as the public page will, without saving; anything else saves. */
  intent: z.enum(["preview", "save"]).catch("save"),
});

export const CODE_DENOMINATIONS = [10, 20, 50, 100] as const;
export const CODE_BATCH_MAX = 100;

/** A YYYY-MM-DD that is a real day (2026-02-30 is not). */
const isRealDay = (v: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
};

export const generateCodesSchema = z.object({
  quantity: wholeNumber(ADMIN_MESSAGES.quantity, 1, CODE_BATCH_MAX),
  /** A batch name, e.g. 双十一活动 (docs/product.md#back-office-redeem-codes). */
  batch: z.string().trim().max(50, "批次名称不能超过50个字符").optional(),
  /** The last day the codes redeem (China time), or none. */
  expiresOn: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || isRealDay(v), "请输入有效的日期（年-月-日）"),
  amount: z
    .string({ error: ADMIN_MESSAGES.denomination })
    .refine((v) => (CODE_DENOMINATIONS as readonly number[]).includes(Number(v)) && /^\d+$/.test(v), ADMIN_MESSAGES.denomination)
    .transform(Number),
});

export const CODE_STATUS_FILTERS = ["all", "unused", "used", "void", "expired"] as const;

/** Void one unused code, or every unused code of a batch. */
/** /admin/codes' forms: 作废 one code or a batch (voidCodesSchema), anything else 生成 (generateCodesSchema). */
export const codesIntentSchema = intentSchema(["void", "void-batch", "generate"], "generate");

export const voidCodesSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("void"), id: z.string().regex(/^\d{1,15}$/, "兑换码不存在").transform(Number) }),
  z.object({ intent: z.literal("void-batch"), batch: z.string({ error: "请输入批次名称" }).trim().min(1, "请输入批次名称").max(50) }),
]);
export type CodeStatusFilter = (typeof CODE_STATUS_FILTERS)[number];

export const chatTestSchema = z.object({
  endpoint: z.string({ error: ADMIN_MESSAGES.apiTestIncomplete }).trim().min(1, ADMIN_MESSAGES.apiTestIncomplete).max(2000),
  apiKey: z.string({ error: ADMIN_MESSAGES.apiTestIncomplete }).trim().min(1, ADMIN_MESSAGES.apiTestIncomplete).max(2000),
  model: z.string().trim().max(200).optional().default("qwen-plus").transform((v) => v || "qwen-plus"),
});

const API_TOKEN_EXPIRY_DAYS = ["30", "90", "365", "never"] as const;

export const apiTokenActionSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("create"),
    name: requiredText(ADMIN_MESSAGES.tokenName, 100, "令牌名称不能超过100个字符"),
    expiresIn: z.enum(API_TOKEN_EXPIRY_DAYS, { error: "请选择有效期" }).default("90"),
  }),
  z.object({ intent: z.literal("revoke"), id: z.coerce.number().int().positive() }),
]);

/** The back office's row buttons (decision 173); form-fields.ts says what asSent and rowId hand over. */

/** 举报处理: hide, restore, delete or dismiss one reported comment (anything else is 未知操作). */
export const reportDecisionSchema = z.object({ decision: z.enum(["hide", "restore", "delete", "dismiss"]), commentId: rowId });

/** 提现处理: paid with the transfer's reference, or refused with an optional reason (settlePayout checks it). */
export const payoutOutcomeSchema = z.object({ outcome: z.enum(["paid", "refused"]), id: rowId, reference: asSent });

/** 款项退回 on a paid payout's statement page (returnPaidPayout checks the reason). */
export const payoutReturnSchema = z.object({ reason: asSent });

/** 提现代扣个税's rule on 稿酬与定价 (savePayoutTaxRule checks it). */
export const payoutTaxRuleSchema = z.object({ intent: z.literal("tax"), taxRule: asSent });

/** A work's moderation buttons; takeDownWork and deleteWorkAsAdmin check the reason. */
export const workModerationSchema = z.object({ intent: z.enum(["take-down", "restore", "r18", "all-ages", "delete"]), reason: asSent });

/** An order's buttons: 查询, 补单 (a reason and the gateway's trade number), 退款 (a reason). */
export const orderActionSchema = z.object({ intent: z.enum(["query", "credit", "refund"]), reason: asSent, tradeNo: asSent });

/** A site image's page (/admin/settings/cover, logo, hero, icon): 删除 (`intent` remove), anything else uploads the `image` file. */
export const siteImageIntentSchema = intentSchema(["remove", "upload"], "upload");

/** 稿酬与定价's six numbers as sent: saveEconomySettings checks each with its own message. */
export const economySettingsFormSchema = z.object({
  pricePerThousand: asSent,
  pricePerThousandMin: asSent,
  pricePerThousandMax: asSent,
  authorSharePercent: asSent,
  wholeBookDiscountPercent: asSent,
  payoutMinimum: asSent,
});
