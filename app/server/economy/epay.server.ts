import { createHash, randomInt, timingSafeEqual } from "node:crypto";
import { and, eq, lt, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { paymentNotifies, paymentOrders } from "~/db/schema";
import { pgErrorCode, UNIQUE_VIOLATION } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { oncePerFormToken, type RecordResult } from "~/server/platform/form-tokens.server";
import { creditPaymentOrder } from "./ledger.server";
import { checkMinorTopUp } from "./minor-caps.server";
import { getSiteConfig } from "~/server/platform/site-config.server";

/**
 * Online top-up through an epay (易支付) gateway (docs/product.md D6, docs/protocols.md):
 * the order is created here, the browser is sent to the gateway's submit page with a
 * signature computed here, and only the gateway's signed notify (/api/notify) marks the
 * order paid and credits it. The merchant key never leaves the server.
 */

/** docs/product.md: Messages, payment messages. @internal */
export const PAYMENT_MESSAGES = {
  notConfigured: "支付接口未配置",
  incomplete: "支付配置不完整",
  orderFailed: "创建订单失败，请重试",
  signFailed: "签名生成失败",
} as const;

/** What the order is called on the gateway's page and in the user's payment app. */
const ORDER_NAME = "积分充值";

/** @internal */
export type EpayParams = Record<string, string>;

/**
 * The epay platform's signature: every parameter except sign and sign_type whose value is
 * not empty ("0" stays, nothing is trimmed), sorted by key in byte order, joined as
 * k=v with & (values raw, not URL-encoded), the merchant key appended with no
 * separator, MD5, lowercase hex.
 * @internal
 */
export function epaySign(params: EpayParams, key: string): string {
  const text = Object.keys(params)
    .filter((k) => k !== "sign" && k !== "sign_type" && params[k] !== undefined && params[k] !== "")
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map((k) => `${k}=${params[k]}`)
    .join("&");
  return createHash("md5").update(text + key, "utf8").digest("hex");
}

/** Compares the lowercase hex exactly (an uppercase sign is a mismatch), in constant time. @internal */
export function verifyEpaySign(params: EpayParams, key: string): boolean {
  const expected = Buffer.from(epaySign(params, key), "utf8");
  const given = Buffer.from(typeof params.sign === "string" ? params.sign : "", "utf8");
  // The length (32) is no secret; only equal lengths can be compared in constant time.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Whole cents from an amount as the gateway writes it ("10.00", "10.5", "10"), without
 * ever going through a float; null for anything else (signs, exponents, spaces, "10.",
 * three decimals, absurd sizes).
 */
export function parseMoneyCents(money: string): number | null {
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(money);
  if (!match) return null;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  return Number.isSafeInteger(cents) ? cents : null;
}

/** "10.00" for 10 yuan: the submit page's money format. */
function formatMoney(yuan: number): string {
  return `${yuan}.00`;
}

/**
 * A new out_trade_no: prefix, the time to the millisecond (yyyyMMddHHmmssSSS, UTC+8 as
 * the gateways' dashboards show it) and 9 random digits; 28 characters, letters and
 * digits only, within the 32 every epay clone accepts. The primary key refuses a repeat.
 * @internal
 */
export function newOutTradeNo(now = new Date()): string {
  const t = new Date(now.getTime() + 8 * 3600 * 1000).toISOString().replace(/\D/g, "").slice(0, 17);
  return `IK${t}${String(randomInt(0, 1_000_000_000)).padStart(9, "0")}`;
}

interface PaymentApiConfig {
  gatewayUrl: string;
  pid: string;
  key: string;
}

/**
 * The payment interface settings, when online payment is the configured method
 * (payment_method_v2 = payment_api): 支付接口未配置 when it is not, or nothing is set;
 * 支付配置不完整 when the gateway address, merchant PID or key is missing or unusable.
 */
async function getPaymentApiConfig(): Promise<PaymentApiConfig> {
  const config = await getSiteConfig(["payment_method_v2", "payment_gateway_url", "merchant_pid", "merchant_key"] as const);
  const gatewayUrl = config.payment_gateway_url.trim();
  const pid = config.merchant_pid.trim();
  const key = config.merchant_key;
  if (config.payment_method_v2 !== "payment_api" || (!gatewayUrl && !pid && !key)) {
    throw new DomainError(PAYMENT_MESSAGES.notConfigured, 409);
  }
  if (!gatewayUrl || !pid || !key || !isHttpUrl(gatewayUrl)) throw new DomainError(PAYMENT_MESSAGES.incomplete, 409);
  return { gatewayUrl, pid, key };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** Whether the /credits page should offer online top-up. */
export async function isOnlinePaymentEnabled(): Promise<boolean> {
  return getPaymentApiConfig().then(
    () => true,
    () => false,
  );
}

export interface CreatedOrder {
  outTradeNo: string;
  /** The gateway's submit page with the signed parameters in its query string. */
  redirectUrl: string;
  params: EpayParams;
}

/**
 * Creates a pending order of `amount` yuan (= credits) for the user and the signed
 * gateway URL the browser is sent to. `origin` is this site's origin: the gateway calls
 * origin + /api/notify and sends the payer back to origin + /payment/success.
 */
export async function createPaymentOrder(userId: string, amount: number, origin: string, formToken: string | null = null): Promise<CreatedOrder> {
  if (!Number.isSafeInteger(amount) || amount < 1) throw new DomainError("请输入有效的充值金额", 400, "amount");
  const config = await getPaymentApiConfig();
  // The same top-up form sent twice sends the payer to the first one's order (docs/decisions/077).
  return oncePerFormToken(
    userId,
    "top-up",
    formToken,
    async (record) => signedOrder(config, await insertOrder(userId, amount, record), amount, origin),
    async (outTradeNo) => {
      const [order] = await db
        .select({ amount: paymentOrders.amount })
        .from(paymentOrders)
        .where(and(eq(paymentOrders.outTradeNo, outTradeNo), eq(paymentOrders.userId, userId)));
      if (!order) throw new DomainError(PAYMENT_MESSAGES.orderFailed, 409);
      return signedOrder(config, outTradeNo, Number(order.amount), origin);
    },
  );
}

/** A new pending order's number, recorded with the form's token in one transaction. */
async function insertOrder(userId: string, amount: number, record: RecordResult): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const candidate = newOutTradeNo();
    let inserted: boolean;
    try {
      inserted = await db.transaction(async (tx) => {
        await checkMinorTopUp(tx, userId, amount);
        const rows = await tx
          .insert(paymentOrders)
          .values({ outTradeNo: candidate, userId, amount, status: "pending" })
          .onConflictDoNothing({ target: paymentOrders.outTradeNo })
          .returning({ outTradeNo: paymentOrders.outTradeNo });
        if (rows.length === 1) await record(tx, candidate);
        return rows.length === 1;
      });
    } catch (error) {
      // The form's token taken meanwhile: oncePerFormToken answers with the first order.
      if (pgErrorCode(error) === UNIQUE_VIOLATION) throw error;
      // 青少年模式's cap (decision 218): its own message.
      if (error instanceof DomainError) throw error;
      console.error("payment order insert failed", error);
      throw new DomainError(PAYMENT_MESSAGES.orderFailed, 409);
    }
    if (inserted) return candidate;
    if (attempt >= 2) {
      console.error("payment order insert failed: three order numbers in a row were taken");
      throw new DomainError(PAYMENT_MESSAGES.orderFailed, 409);
    }
  }
}

/**
 * The order's submit parameters, signed, on the gateway's address. A gateway address
 * with its own query (…/submit.php?channel=7) keeps it, and its parameters are signed
 * with the site's: the gateway checks the signature over every parameter it receives, so
 * one left out of the signature would fail every top-up (docs/decisions/165).
 * The site's own parameters win over the address's (the settings form refuses such an
 * address: gatewayQueryProblem).
 */
function signedOrder(config: PaymentApiConfig, outTradeNo: string, amount: number, origin: string): CreatedOrder {
  const url = new URL(config.gatewayUrl);
  const params: EpayParams = {
    ...Object.fromEntries(url.searchParams),
    pid: config.pid,
    type: "alipay",
    out_trade_no: outTradeNo,
    notify_url: `${origin}/api/notify`,
    return_url: `${origin}/payment/success`,
    name: ORDER_NAME,
    money: formatMoney(amount),
  };
  let sign: string;
  try {
    sign = epaySign(params, config.key);
  } catch (error) {
    console.error("epay signing failed", error);
    throw new DomainError(PAYMENT_MESSAGES.signFailed, 409);
  }
  const signed = { ...params, sign, sign_type: "MD5" };
  url.search = "";
  url.hash = "";
  for (const [k, v] of Object.entries(signed)) url.searchParams.set(k, v);
  return { outTradeNo, redirectUrl: url.toString(), params: signed };
}

/** The fields every notify must carry (`param` and `sign_type` may be absent). */
const NOTIFY_FIELDS = ["pid", "trade_no", "out_trade_no", "type", "name", "money", "trade_status", "sign"] as const;

export type NotifyOutcome =
  | "credited"
  | "already-paid"
  | "malformed"
  | "not-configured"
  | "wrong-pid"
  | "bad-sign"
  | "not-success"
  | "bad-money"
  | "unknown-order"
  | "amount-mismatch";

/** What the gateway is told: `success` stops its retries, anything else has it retry. */
export function notifyAnswer(outcome: NotifyOutcome): "success" | "fail" {
  return outcome === "credited" || outcome === "already-paid" ? "success" : "fail";
}

/**
 * Handles one notify (docs/product.md D6): every field present and single; the merchant
 * configured and the pid ours; the signature right (constant-time compare); trade_status
 * TRADE_SUCCESS; money parsed as whole cents; then the order is marked paid and credited
 * in one transaction that must change exactly one pending row. A repeat for an order
 * already paid with the same amount is `already-paid` (answered `success`, crediting
 * nothing). Everything else credits nothing.
 */
async function handleNotify(entries: Iterable<[string, string]>): Promise<NotifyOutcome> {
  const params: EpayParams = {};
  for (const [k, v] of entries) {
    if (k === "__proto__") return "malformed";
    // A repeated field is ambiguous: which one did the gateway sign?
    if (Object.hasOwn(params, k)) return "malformed";
    params[k] = v;
  }
  if (NOTIFY_FIELDS.some((k) => !params[k])) return "malformed";
  if (params.sign_type !== undefined && params.sign_type.toUpperCase() !== "MD5") return "malformed";
  if (params.out_trade_no.length > 64 || params.trade_no.length > 128) return "malformed";

  const config = await getSiteConfig(["merchant_pid", "merchant_key"] as const);
  if (!config.merchant_pid.trim() || !config.merchant_key) return "not-configured";
  if (params.pid !== config.merchant_pid.trim()) return "wrong-pid";
  if (!verifyEpaySign(params, config.merchant_key)) return "bad-sign";
  if (params.trade_status !== "TRADE_SUCCESS") return "not-success";
  const cents = parseMoneyCents(params.money);
  if (cents === null || cents <= 0) return "bad-money";

  const result = await creditPaymentOrder(params.out_trade_no, cents, params.trade_no, { via: "notify" });
  if (result.status === "credited") return "credited";
  if (result.status === "already-paid") return "already-paid";
  return result.status;
}

/** What 支付通知 in the back office says about each outcome (decision 136). */
export const NOTIFY_OUTCOME_LABELS: Record<NotifyOutcome | "error", string> = {
  credited: "验签通过，已入账",
  "already-paid": "验签通过，订单此前已入账（重复通知，未再入账）",
  malformed: "拒绝：参数缺失、重复或格式不对",
  "not-configured": "拒绝：网站未配置商户PID或密钥",
  "wrong-pid": "拒绝：商户PID不是本站的",
  "bad-sign": "拒绝：签名校验失败",
  "not-success": "拒绝：交易状态不是 TRADE_SUCCESS",
  "bad-money": "拒绝：金额格式不对",
  "unknown-order": "拒绝：本站没有这个订单",
  "amount-mismatch": "拒绝：金额与订单不符",
  error: "处理出错（数据库），未入账，网关会重试",
};

const MAX_RECORDED_FIELDS = 30;
const MAX_RECORDED_VALUE = 200;

/**
 * The fields of a notify as 支付通知 keeps them: at most 30, each value cut to 200
 * characters, and the signature cut to its first 8 characters (enough to tell two apart,
 * useless to replay). The merchant key is never sent in a notify, so nothing else is secret.
 */
function redactNotifyParams(entries: [string, string][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of entries.slice(0, MAX_RECORDED_FIELDS)) {
    const key = k.slice(0, 40);
    if (Object.hasOwn(out, key) || key === "__proto__") continue;
    out[key] = key === "sign" ? `${v.slice(0, 8)}…` : v.slice(0, MAX_RECORDED_VALUE);
  }
  return out;
}

/**
 * Handles a notify and records it with its outcome in payment_notifies (decision 136).
 * Recording is best effort and after the decision: a failed insert is logged and never
 * changes what the gateway is told. One call in 200 also drops records older than 90 days.
 */
export async function receiveNotify(
  entries: [string, string][],
  meta: { method: string; address: string },
): Promise<NotifyOutcome | "error"> {
  let outcome: NotifyOutcome | "error";
  try {
    outcome = await handleNotify(entries);
  } catch (error) {
    // Nothing was committed: the gateway will try again.
    console.error("payment notify failed", error);
    outcome = "error";
  }
  const outTradeNo = entries.find(([k]) => k === "out_trade_no")?.[1]?.slice(0, 64) ?? null;
  try {
    await db.insert(paymentNotifies).values({
      outTradeNo,
      method: meta.method.slice(0, 10),
      outcome,
      params: redactNotifyParams(entries),
      address: meta.address.slice(0, 64),
    });
    if (randomInt(0, 200) === 0) {
      await db.delete(paymentNotifies).where(lt(paymentNotifies.receivedAt, sql`now() - interval '90 days'`));
    }
  } catch (error) {
    console.error("payment notify could not be recorded", error);
  }
  return outcome;
}
