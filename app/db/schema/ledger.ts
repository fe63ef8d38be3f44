import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import {
  creditTransactionType,
  paymentOrderStatus,
  redeemCodeStatus,
  tokenMetering,
  tokenTransactionType,
} from "./enums";
import { users } from "./users";

export const credits = pgTable(
  "credits",
  {
    userId: uuid("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    balance: bigint("balance", { mode: "number" }).notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("credits_balance_nonnegative", sql`${t.balance} >= 0`)],
);

/** Every credits movement; amount is always positive, the type gives the sign. */
export const creditTransactions = pgTable(
  "credit_transactions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    amount: bigint("amount", { mode: "number" }).notNull(),
    type: creditTransactionType("type").notNull(),
    description: text("description").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("credit_transactions_amount_positive", sql`${t.amount} > 0`),
    index("credit_transactions_user_created_idx").on(t.userId, t.createdAt, t.id),
  ],
);

/** Every token movement; amount is signed (grants positive, generation charges negative). */
export const tokenTransactions = pgTable(
  "token_transactions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    amount: bigint("amount", { mode: "number" }).notNull(),
    type: tokenTransactionType("type").notNull(),
    description: text("description").notNull(),
    promptChars: integer("prompt_chars"),
    outputChars: integer("output_chars"),
    model: text("model"),
    plotId: text("plot_id"),
    /**
     * A settled generation's receipt (docs/product.md D15, decision 125): the input and
     * output tokens it was charged on, and whether the provider reported them (actual) or
     * they are the 1-per-4-characters estimate. Null on other rows and while streaming.
     */
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    metering: tokenMetering("metering"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("token_transactions_amount_nonzero", sql`${t.amount} <> 0`),
    index("token_transactions_user_created_idx").on(t.userId, t.createdAt, t.id),
    // The dashboard's tokens used by day, from the index alone (docs/benchmarks.md#dashboard).
    index("token_transactions_generation_day_idx").on(t.createdAt, t.amount).where(sql`type = 'generation'`),
  ],
);

export const paymentOrders = pgTable(
  "payment_orders",
  {
    outTradeNo: text("out_trade_no").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Whole yuan; 1 yuan buys 1 credit. */
    amount: integer("amount").notNull(),
    status: paymentOrderStatus("status").notNull().default("pending"),
    tradeNo: text("trade_no"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    paidAt: timestamp("paid_at", { withTimezone: true }),
    /**
     * How a paid order was credited (decision 136): `notify` (the gateway's signed notify),
     * `query` (an administrator's 查单 found it paid at the gateway) or `manual` (补单, with
     * the administrator and reason in `creditNote`).
     */
    creditedVia: text("credited_via"),
    creditedBy: uuid("credited_by"),
    creditNote: text("credit_note"),
    /** A refund of the order's credits by an administrator (the money goes back outside the site). */
    refundedAt: timestamp("refunded_at", { withTimezone: true }),
    refundedBy: uuid("refunded_by"),
    refundReason: text("refund_reason"),
  },
  (t) => [
    check("payment_orders_amount_positive", sql`${t.amount} >= 1`),
    check("payment_orders_credited_via", sql`${t.creditedVia} IN ('notify', 'query', 'manual')`),
    check("payment_orders_refund_paid", sql`${t.refundedAt} IS NULL OR (${t.status} = 'paid' AND ${t.refundReason} IS NOT NULL)`),
    check(
      "payment_orders_paid_at",
      sql`(${t.status} = 'paid') = (${t.paidAt} IS NOT NULL)`,
    ),
    index("payment_orders_user_idx").on(t.userId, t.createdAt),
    // The dashboard's top-ups by day.
    index("payment_orders_paid_day_idx").on(t.paidAt, t.amount).where(sql`status = 'paid'`),
    index("payment_orders_created_idx").on(t.createdAt),
    index("payment_orders_refunded_day_idx").on(t.refundedAt, t.amount).where(sql`refunded_at IS NOT NULL`),
    // The finance exports' keyset batches in order (decision 226): without the order number
    // beside the time, every batch sorts the rest of the range again.
    index("payment_orders_paid_keyset_idx").on(t.paidAt, t.outTradeNo).where(sql`status = 'paid'`),
    index("payment_orders_refunded_keyset_idx").on(t.refundedAt, t.outTradeNo).where(sql`refunded_at IS NOT NULL`),
  ],
);

/**
 * Every notify as it arrived (decision 136), for 支付通知 in the back office: what the
 * handler decided and the fields sent, the signature cut short. Kept 90 days.
 */
export const paymentNotifies = pgTable(
  "payment_notifies",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    outTradeNo: text("out_trade_no"),
    method: text("method").notNull(),
    outcome: text("outcome").notNull(),
    params: jsonb("params").$type<Record<string, string>>().notNull(),
    address: text("address"),
  },
  (t) => [index("payment_notifies_received_idx").on(t.receivedAt), index("payment_notifies_order_idx").on(t.outTradeNo, t.receivedAt)],
);

export const redeemCodes = pgTable(
  "redeem_codes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    code: text("code").notNull().unique(),
    amount: integer("amount").notNull(),
    status: redeemCodeStatus("status").notNull().default("unused"),
    usedBy: uuid("used_by").references(() => users.id, { onDelete: "set null" }),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** The named batch it was generated in (docs/product.md#back-office-redeem-codes); null before batches. */
    batch: text("batch"),
    /** After this moment the code no longer redeems; null: no end. */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /** Voided by an administrator while unused: it no longer redeems. */
    voidedAt: timestamp("voided_at", { withTimezone: true }),
  },
  (t) => [
    check("redeem_codes_code_format", sql`${t.code} ~ '^[1-9][0-9]{9}$'`),
    check("redeem_codes_void_unused", sql`${t.voidedAt} IS NULL OR ${t.status} = 'unused'`),
    index("redeem_codes_batch_idx").on(t.batch, t.createdAt),
    check("redeem_codes_amount_positive", sql`${t.amount} > 0`),
    check("redeem_codes_used_at", sql`(${t.status} = 'used') = (${t.usedAt} IS NOT NULL)`),
    index("redeem_codes_status_created_idx").on(t.status, t.createdAt),
  ],
);
