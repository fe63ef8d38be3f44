import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { admins } from "./admins";
import { users } from "./users";
import { chapters, works } from "./works";

/**
 * The serial economy (docs/product.md#paying-by-chapter, #author-income). A reader owns a
 * VIP chapter through a row here, or through the whole work (work_purchases).
 */
export const chapterPurchases = pgTable(
  "chapter_purchases",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    /**
     * The chapter's work, for the reader's and the author's per-work queries. No foreign key
     * of its own: the chapter's (cascading with the work's) covers it, and a 购买全部 of
     * 3,000 chapters would pay a third trigger per row (docs/benchmarks.md#economy).
     */
    workId: bigint("work_id", { mode: "number" }).notNull(),
    /** The chapter's fixed price when it was bought (before any whole-book discount). */
    price: integer("price").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The reader's hot path: is this chapter the viewer's? One lookup on this index.
    unique("chapter_purchases_user_chapter_unique").on(t.userId, t.chapterId),
    index("chapter_purchases_user_work_idx").on(t.userId, t.workId),
    index("chapter_purchases_work_created_idx").on(t.workId, t.createdAt),
    // The dashboard's purchases by day, from the index alone.
    index("chapter_purchases_created_idx").on(t.createdAt, t.price),
    check("chapter_purchases_price_nonnegative", sql`${t.price} >= 0`),
  ],
);

/** 自动订阅: opening the next VIP chapter of this work buys it (the reader turned it on). */
export const autoSubscriptions = pgTable(
  "auto_subscriptions",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "auto_subscriptions_pkey", columns: [t.userId, t.workId] })],
);

/**
 * An author's income, apart from their credits: `balance` is what they may withdraw or
 * convert; `held` is what pending payout requests hold. Both only move through
 * app/server/economy/income.server.ts and sale-income.server.ts (a sale's share), with an income_transactions row beside each move.
 */
export const authorIncome = pgTable(
  "author_income",
  {
    userId: uuid("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    balance: bigint("balance", { mode: "number" }).notNull().default(0),
    held: bigint("held", { mode: "number" }).notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("author_income_balance_nonnegative", sql`${t.balance} >= 0`),
    check("author_income_held_nonnegative", sql`${t.held} >= 0`),
  ],
);

export const INCOME_TRANSACTION_TYPES = ["sale", "tip", "bonus", "payout_request", "payout_paid", "payout_refused", "payout_returned", "convert"] as const;
export type IncomeTransactionType = (typeof INCOME_TRANSACTION_TYPES)[number];

/**
 * Every move of an author's income. `amount` is the signed change of `balance`,
 * `heldChange` that of `held`, so each column of author_income is the sum of its ledger.
 * A sale row also keeps what the buyer paid (`gross`) and what was sold.
 */
export const incomeTransactions = pgTable(
  "income_transactions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type", { enum: INCOME_TRANSACTION_TYPES }).notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    heldChange: bigint("held_change", { mode: "number" }).notNull().default(0),
    gross: bigint("gross", { mode: "number" }).notNull().default(0),
    workId: bigint("work_id", { mode: "number" }).references(() => works.id, { onDelete: "set null" }),
    chapterId: bigint("chapter_id", { mode: "number" }).references(() => chapters.id, { onDelete: "set null" }),
    payoutId: bigint("payout_id", { mode: "number" }),
    description: text("description").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("income_transactions_type", sql`${t.type} in ('sale', 'tip', 'bonus', 'payout_request', 'payout_paid', 'payout_refused', 'payout_returned', 'convert')`),
    index("income_transactions_user_created_idx").on(t.userId, t.createdAt, t.id),
    index("income_transactions_work_idx").on(t.workId, t.createdAt),
    // /admin/money's sales and tips by day (moneyByRange): the type and the summed columns in
    // the index, so the scan reads no table rows (as the dashboard's indexes, decision 135;
    // tips: decision 226).
    index("income_transactions_sale_day_idx").on(t.createdAt, t.type, t.gross, t.amount).where(sql`type in ('sale', 'tip')`),
    // Payouts whose money came back, by day (资金报表 and the payouts export, decision 226).
    index("income_transactions_returned_day_idx").on(t.createdAt, t.amount).where(sql`type = 'payout_returned'`),
  ],
);

/**
 * 全勤奖 paid (docs/product.md#contracts, decision 236): one row per author and China-time
 * month, written with the `bonus` income row in one transaction, so a month is paid once
 * whichever process runs the job, however often.
 */
export const attendanceBonuses = pgTable(
  "attendance_bonuses",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The China-time month, `YYYY-MM`. */
    month: text("month").notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    /** The rule it was paid under: 字 published on every day of the month. */
    minWords: integer("min_words").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "attendance_bonuses_pkey", columns: [t.userId, t.month] }),
    check("attendance_bonuses_amount_positive", sql`${t.amount} > 0`),
    check("attendance_bonuses_month", sql`${t.month} ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`),
  ],
);

/** `returned`: paid, then the money came back (a bounced transfer); decision 209. */
export const PAYOUT_STATUSES = ["pending", "paid", "refused", "returned"] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** 提现申请: the amount is held from the request until an administrator settles it. */
export const payoutRequests = pgTable(
  "payout_requests",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    amount: bigint("amount", { mode: "number" }).notNull(),
    payee: text("payee").notNull(),
    /** 收款人姓名: equal to the verified legal name when 实名认证 is required (decision 205). */
    payeeName: text("payee_name"),
    /**
     * The 收款账户 (payout_accounts) the request pays, decision 210; null on requests made
     * before accounts existed. No foreign key: payout_accounts' schema file reads this one
     * (payout_statements), and an account row is never deleted but with its author.
     */
    accountId: bigint("account_id", { mode: "number" }),
    status: text("status", { enum: PAYOUT_STATUSES }).notNull().default("pending"),
    /** The administrator's payment reference (paid) or reason (refused). */
    reference: text("reference"),
    settledBy: uuid("settled_by").references(() => admins.id, { onDelete: "set null" }),
    settledAt: timestamp("settled_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("payout_requests_amount_positive", sql`${t.amount} > 0`),
    check("payout_requests_status", sql`${t.status} in ('pending', 'paid', 'refused', 'returned')`),
    check("payout_requests_settled", sql`(${t.status} = 'pending') = (${t.settledAt} is null)`),
    index("payout_requests_status_created_idx").on(t.status, t.createdAt),
    index("payout_requests_user_created_idx").on(t.userId, t.createdAt),
    // Paid payouts by day, those returned since included (资金报表, the payouts export; decision 226).
    index("payout_requests_paid_day_idx").on(t.settledAt, t.amount).where(sql`status in ('paid', 'returned')`),
  ],
);
