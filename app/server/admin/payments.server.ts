import { and, desc, eq, gte, ilike, isNotNull, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { paymentNotifies, paymentOrders, profiles } from "~/db/schema";
import { pageWithin } from "~/utils/pagination";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { creditPaymentOrder, refundPaymentOrder, type PaymentRefundResult } from "~/server/economy/ledger.server";
import { NOTIFY_OUTCOME_LABELS, parseMoneyCents } from "~/server/economy/epay.server";
import { getSiteConfig } from "~/server/platform/site-config.server";
import { SITE_TIME_ZONE } from "./dashboard.server";
import { shanghaiDate } from "~/utils/shanghai-time";
import { OutboundError, outboundRequest } from "~/server/platform/outbound-http.server";
import { escapeLike } from "~/server/platform/db-utils.server";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";

/**
 * 充值订单 and 支付通知 in the back office (docs/product.md: Back office, orders and money;
 * decision 136): the order list, 查单 (asking the gateway), 补单 (crediting by hand), refunds
 * of unspent credits, the notifies as they arrived, and the money figures by day. Every
 * credit goes through ledger.server.ts's creditPaymentOrder, the notify's own path.
 */

const ORDERS_PAGE_SIZE = 30;
const NOTIFIES_PAGE_SIZE = 50;

import { type OrderFilter } from "~/utils/order-labels";

export interface OrderListInput {
  status: OrderFilter;
  /** An order number or a user's e-mail (substring). */
  query: string;
  /** yyyy-mm-dd in China time, inclusive, or "". */
  from: string;
  to: string;
  page: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A yyyy-mm-dd typed into a filter, or "" when it is not a real date. */
export function parseDay(value: string | null | undefined): string {
  const v = (value ?? "").trim();
  if (!DAY.test(v)) return "";
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v ? v : "";
}

const dayStart = (day: string) => sql`(${day}::date::timestamp at time zone ${SITE_TIME_ZONE})`;

function orderWhere(input: Omit<OrderListInput, "page">): SQL | undefined {
  const parts: (SQL | undefined)[] = [];
  if (input.status === "pending") parts.push(eq(paymentOrders.status, "pending"));
  if (input.status === "paid") parts.push(and(eq(paymentOrders.status, "paid"), isNull(paymentOrders.refundedAt)));
  if (input.status === "refunded") parts.push(isNotNull(paymentOrders.refundedAt));
  const q = input.query.trim();
  if (q) {
    parts.push(or(eq(paymentOrders.outTradeNo, q), eq(paymentOrders.tradeNo, q), ilike(profiles.email, `%${escapeLike(q)}%`)));
  }
  if (input.from) parts.push(gte(paymentOrders.createdAt, dayStart(input.from)));
  if (input.to) parts.push(lt(paymentOrders.createdAt, sql`${dayStart(input.to)} + interval '1 day'`));
  return and(...parts);
}

const orderColumns = {
  outTradeNo: paymentOrders.outTradeNo,
  userId: paymentOrders.userId,
  email: profiles.email,
  nickname: profiles.nickname,
  amount: paymentOrders.amount,
  status: paymentOrders.status,
  tradeNo: paymentOrders.tradeNo,
  createdAt: paymentOrders.createdAt,
  paidAt: paymentOrders.paidAt,
  creditedVia: paymentOrders.creditedVia,
  creditNote: paymentOrders.creditNote,
  refundedAt: paymentOrders.refundedAt,
  refundReason: paymentOrders.refundReason,
};

/** Orders, 30 a page, newest first, with the user's e-mail. */
export async function listPaymentOrders(input: OrderListInput) {
  const where = orderWhere(input);
  const [{ total }] = await db
    .select({ total: sql<number>`count(*)`.mapWith(Number) })
    .from(paymentOrders)
    .innerJoin(profiles, eq(profiles.id, paymentOrders.userId))
    .where(where);
  const { page, pageCount } = pageWithin(input.page, total, ORDERS_PAGE_SIZE);
  const orders = await db
    .select(orderColumns)
    .from(paymentOrders)
    .innerJoin(profiles, eq(profiles.id, paymentOrders.userId))
    .where(where)
    .orderBy(desc(paymentOrders.createdAt), desc(paymentOrders.outTradeNo))
    .limit(ORDERS_PAGE_SIZE)
    .offset((page - 1) * ORDERS_PAGE_SIZE);
  return { orders, total, page, pageCount };
}

/** One order with the notifies that named it (newest first). */
export async function getPaymentOrderForAdmin(outTradeNo: string) {
  if (!outTradeNo || outTradeNo.length > 64) throw new DomainError("订单不存在", 404);
  const [order] = await db
    .select(orderColumns)
    .from(paymentOrders)
    .innerJoin(profiles, eq(profiles.id, paymentOrders.userId))
    .where(eq(paymentOrders.outTradeNo, outTradeNo));
  if (!order) throw new DomainError("订单不存在", 404);
  const notifies = await db
    .select()
    .from(paymentNotifies)
    .where(eq(paymentNotifies.outTradeNo, outTradeNo))
    .orderBy(desc(paymentNotifies.receivedAt), desc(paymentNotifies.id))
    .limit(50);
  return { order, notifies: notifies.map(withLabel) };
}

function withLabel<T extends { outcome: string }>(row: T): T & { label: string } {
  return { ...row, label: NOTIFY_OUTCOME_LABELS[row.outcome as keyof typeof NOTIFY_OUTCOME_LABELS] ?? row.outcome };
}

/** The last notifies, 50 a page, newest first; `query` filters by order number. */
export async function listPaymentNotifies({ query, outcome, page }: { query: string; outcome: "all" | "refused"; page: number }) {
  const where = and(
    query.trim() ? eq(paymentNotifies.outTradeNo, query.trim()) : undefined,
    outcome === "refused" ? sql`${paymentNotifies.outcome} not in ('credited', 'already-paid')` : undefined,
  );
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(paymentNotifies).where(where);
  const { page: current, pageCount } = pageWithin(page, total, NOTIFIES_PAGE_SIZE);
  const rows = await db
    .select()
    .from(paymentNotifies)
    .where(where)
    .orderBy(desc(paymentNotifies.receivedAt), desc(paymentNotifies.id))
    .limit(NOTIFIES_PAGE_SIZE)
    .offset((current - 1) * NOTIFIES_PAGE_SIZE);
  return { notifies: rows.map(withLabel), total, page: current, pageCount };
}

export type OrderActionResult =
  | { status: "credited"; amount: number }
  | { status: "already-paid" }
  | { status: "unpaid" }
  | { status: "mismatch"; money: string };

async function pendingOrder(outTradeNo: string) {
  const { order } = await getPaymentOrderForAdmin(outTradeNo);
  return order;
}

/** The gateway's order API beside its submit page: …/submit.php → …/api.php (docs/protocols.md). */
function gatewayApiUrl(submitUrl: string): string {
  const url = new URL(submitUrl);
  url.pathname = url.pathname.replace(/[^/]*$/, "api.php");
  url.search = "";
  url.hash = "";
  return url.toString();
}

interface GatewayOrderAnswer {
  code: number;
  msg?: string;
  status?: number | string;
  money?: string;
  trade_no?: string;
  out_trade_no?: string;
  pid?: string | number;
}

/**
 * 查单 (docs/protocols.md, epay's `api.php?act=order`): asks the gateway about the order with
 * the merchant's pid and key (the protocol puts the key in the query string; the URL is never
 * logged). When the gateway says it is paid (status 1) for the order's amount, the order is
 * credited through the notify's own path, so a notify arriving before or after credits
 * nothing more. A gateway that cannot be reached or answers nonsense is a 502 with the reason.
 */
export async function queryGatewayOrder(actor: AdminActor, outTradeNo: string): Promise<OrderActionResult> {
  const order = await pendingOrder(outTradeNo);
  const config = await getSiteConfig(["payment_gateway_url", "merchant_pid", "merchant_key"] as const);
  const pid = config.merchant_pid.trim();
  if (!config.payment_gateway_url.trim() || !pid || !config.merchant_key) throw new DomainError("支付接口未配置，无法查单", 409);
  let apiUrl: URL;
  try {
    apiUrl = new URL(gatewayApiUrl(config.payment_gateway_url.trim()));
  } catch {
    throw new DomainError("支付网关地址无效，无法查单", 409);
  }
  apiUrl.search = new URLSearchParams({ act: "order", pid, key: config.merchant_key, out_trade_no: order.outTradeNo }).toString();
  let answer: GatewayOrderAnswer;
  try {
    const response = await outboundRequest(apiUrl.toString(), { method: "GET", timeoutMs: 10_000 });
    if (response.status !== 200) throw new DomainError(`查单失败：网关返回 HTTP ${response.status}`, 502);
    answer = JSON.parse(response.text.replace(/^\uFEFF/, "")) as GatewayOrderAnswer;
    if (typeof answer !== "object" || answer === null) throw new SyntaxError("not an object");
  } catch (error) {
    if (error instanceof DomainError && !(error instanceof OutboundError)) throw error;
    if (error instanceof OutboundError) throw new DomainError(`查单失败：${error.message}`, 502);
    throw new DomainError("查单失败：网关的回答无法解析", 502);
  }
  if (Number(answer.code) !== 1) throw new DomainError(`查单失败：网关返回“${String(answer.msg ?? "未知错误").slice(0, 100)}”`, 502);
  if (answer.out_trade_no !== undefined && String(answer.out_trade_no) !== order.outTradeNo) {
    throw new DomainError("查单失败：网关返回的订单号与本订单不符", 502);
  }
  if (Number(answer.status) !== 1) return { status: "unpaid" };
  const money = String(answer.money ?? "");
  const cents = parseMoneyCents(money);
  if (cents === null || cents !== order.amount * 100) return { status: "mismatch", money };
  const tradeNo = typeof answer.trade_no === "string" && answer.trade_no ? answer.trade_no.slice(0, 128) : null;
  const credited = await creditPaymentOrder(order.outTradeNo, cents, tradeNo, { via: "query", adminId: actor.admin.id }, (tx) =>
    recordAdminAction(tx, actor, {
      action: "order.query-credit",
      targetType: "payment_order",
      targetId: order.outTradeNo,
      before: { status: "pending" },
      after: { status: "paid", credits: order.amount, userId: order.userId, tradeNo },
    }),
  );
  if (credited.status === "credited") return { status: "credited", amount: credited.amount };
  if (credited.status === "already-paid") return { status: "already-paid" };
  return { status: "mismatch", money };
}

const MAX_REASON = 200;

function reasonOf(raw: unknown, message: string): string {
  const reason = typeof raw === "string" ? raw.trim() : "";
  if (!reason) throw new DomainError(message, 400);
  if (reason.length > MAX_REASON) throw new DomainError(`原因不能超过${MAX_REASON}个字`, 400);
  return reason;
}

/**
 * 补单: credits a pending order by hand (the payment arrived but no notify did), with a
 * required reason and the gateway's trade number when known, through the same path as the
 * notify: exactly one of them credits.
 */
export async function creditOrderByHand(actor: AdminActor, outTradeNo: string, rawReason: unknown, rawTradeNo: unknown): Promise<OrderActionResult> {
  const reason = reasonOf(rawReason, "请填写补单原因");
  const tradeNo = typeof rawTradeNo === "string" && rawTradeNo.trim() ? rawTradeNo.trim().slice(0, 128) : null;
  const order = await pendingOrder(outTradeNo);
  if (order.status === "paid") return { status: "already-paid" };
  const source = { via: "manual" as const, adminId: actor.admin.id, reason };
  const credited = await creditPaymentOrder(order.outTradeNo, order.amount * 100, tradeNo, source, (tx) =>
    recordAdminAction(tx, actor, {
      action: "order.manual-credit",
      targetType: "payment_order",
      targetId: order.outTradeNo,
      before: { status: "pending" },
      after: { status: "paid", credits: order.amount, userId: order.userId, tradeNo },
      reason,
    }),
  );
  if (credited.status === "credited") return { status: "credited", amount: credited.amount };
  return { status: "already-paid" };
}

/** Refunds a paid order's unspent credits (the money goes back outside the site). */
export async function refundOrder(actor: AdminActor, outTradeNo: string, rawReason: unknown): Promise<PaymentRefundResult> {
  const reason = reasonOf(rawReason, "请填写退款原因");
  await pendingOrder(outTradeNo);
  return refundPaymentOrder(actor.admin.id, outTradeNo, reason, (tx, refund) =>
    recordAdminAction(tx, actor, {
      action: "order.refund",
      targetType: "payment_order",
      targetId: outTradeNo,
      before: { refunded: false },
      after: { refunded: true, credits: -refund.amount, userId: refund.userId, balance: refund.balance },
      reason,
    }),
  );
}

export interface MoneyDay {
  day: string;
  topUps: number;
  topUpOrders: number;
  refunds: number;
  purchases: number;
  /** What readers tipped (decision 207), in credits; its author's share is in authorIncome. */
  tips: number;
  authorIncome: number;
  /** Payouts paid on the day less payouts whose money came back on the day (款项退回), in yuan. */
  payouts: number;
  /** Income tax withheld on the day less the tax reversed on the day (decision 209), in fen. */
  taxFen: number;
}

export type MoneyTotals = Omit<MoneyDay, "day">;

/**
 * Money by day in China time from `from` to `to` (yyyy-mm-dd, both included), newest first:
 * top-ups (paid orders, by the time paid), refunds (by the time refunded), purchases and tips
 * (what buyers paid, from the income ledger), the authors' share of both, payouts paid less
 * payouts returned, and the tax withheld less the tax reversed (decision 226). The finance
 * exports (exports/finance.server.ts) sum the same rows by the same times, so their totals
 * are these. One round trip; each part reads its own partial index.
 */
export async function moneyByRange(from: string, to: string): Promise<MoneyDay[]> {
  const start = dayStart(from);
  const end = sql`(${dayStart(to)} + interval '1 day')`;
  const result = await db.execute(sql`
    with topups as (
      select (paid_at at time zone ${SITE_TIME_ZONE})::date as day, sum(amount)::bigint as total, count(*)::int as orders
      from payment_orders where status = 'paid' and paid_at >= ${start} and paid_at < ${end} group by 1
    ),
    refunds as (
      select (refunded_at at time zone ${SITE_TIME_ZONE})::date as day, sum(amount)::bigint as total
      from payment_orders where refunded_at >= ${start} and refunded_at < ${end} group by 1
    ),
    sales as (
      select (created_at at time zone ${SITE_TIME_ZONE})::date as day,
        coalesce(sum(gross) filter (where type = 'sale'), 0)::bigint as gross,
        coalesce(sum(gross) filter (where type = 'tip'), 0)::bigint as tips,
        sum(amount)::bigint as share
      from income_transactions where type in ('sale', 'tip') and created_at >= ${start} and created_at < ${end} group by 1
    ),
    paid as (
      select (settled_at at time zone ${SITE_TIME_ZONE})::date as day, sum(amount)::bigint as total
      from payout_requests where status in ('paid', 'returned') and settled_at >= ${start} and settled_at < ${end} group by 1
    ),
    returned as (
      select (created_at at time zone ${SITE_TIME_ZONE})::date as day, sum(amount)::bigint as total
      from income_transactions where type = 'payout_returned' and created_at >= ${start} and created_at < ${end} group by 1
    ),
    tax as (
      select (created_at at time zone ${SITE_TIME_ZONE})::date as day, sum(tax_fen)::bigint as total
      from payout_statements where created_at >= ${start} and created_at < ${end} group by 1
    )
    select to_char(d.day, 'YYYY-MM-DD') as day,
      coalesce(t.total, 0) as top_ups, coalesce(t.orders, 0) as top_up_orders, coalesce(r.total, 0) as refunds,
      coalesce(s.gross, 0) as purchases, coalesce(s.tips, 0) as tips, coalesce(s.share, 0) as author_income,
      coalesce(p.total, 0) - coalesce(b.total, 0) as payouts, coalesce(x.total, 0) as tax_fen
    from (select generate_series(${from}::date, ${to}::date, interval '1 day')::date as day) d
    left join topups t on t.day = d.day
    left join refunds r on r.day = d.day
    left join sales s on s.day = d.day
    left join paid p on p.day = d.day
    left join returned b on b.day = d.day
    left join tax x on x.day = d.day
    order by d.day desc`);
  return rowsOf<Record<string, string | number>>(result).map((r) => ({
    day: String(r.day),
    topUps: Number(r.top_ups),
    topUpOrders: Number(r.top_up_orders),
    refunds: Number(r.refunds),
    purchases: Number(r.purchases),
    tips: Number(r.tips),
    authorIncome: Number(r.author_income),
    payouts: Number(r.payouts),
    taxFen: Number(r.tax_fen),
  }));
}

/** The range's sums, as 资金报表's 合计 row shows them. */
export function moneyTotals(days: readonly MoneyDay[]): MoneyTotals {
  const totals: MoneyTotals = { topUps: 0, topUpOrders: 0, refunds: 0, purchases: 0, tips: 0, authorIncome: 0, payouts: 0, taxFen: 0 };
  for (const d of days) for (const key of Object.keys(totals) as (keyof MoneyTotals)[]) totals[key] += d[key];
  return totals;
}

/**
 * The last `days` China-time days up to today (the bench's and the tests' view).
 * @internal
 */
export async function moneyByDay(days = 30): Promise<MoneyDay[]> {
  const span = Math.min(Math.max(1, Math.trunc(days)), 366);
  const today = shanghaiDate(new Date());
  const from = new Date(Date.parse(`${today}T00:00:00Z`) - (span - 1) * 86_400_000).toISOString().slice(0, 10);
  return moneyByRange(from, today);
}
