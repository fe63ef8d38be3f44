import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { payoutRequests } from "./economy";
import { users } from "./users";

export const PAYOUT_ACCOUNT_KINDS = ["bank", "alipay"] as const;
export type PayoutAccountKind = (typeof PAYOUT_ACCOUNT_KINDS)[number];

/**
 * 收款账户 (docs/product.md#author-income, decision 210): a bank card or an Alipay account.
 * The number and the holder's name are stored only sealed with IDENTITY_KEY (the identity's
 * encryption, decision 204), beside their masked forms (6222 **** **** 1234, 张*). Rows are
 * never edited: saving another account adds a row and the newest is the author's account, so
 * a payout request keeps the account it was asked with (payout_requests.account_id).
 */
export const payoutAccounts = pgTable(
  "payout_accounts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: PAYOUT_ACCOUNT_KINDS }).notNull(),
    /** 开户银行 (a bank card only), in the clear. */
    bankName: text("bank_name"),
    accountCipher: text("account_cipher").notNull(),
    accountMasked: text("account_masked").notNull(),
    holderCipher: text("holder_cipher").notNull(),
    holderMasked: text("holder_masked").notNull(),
    /** The key both ciphers were sealed with (the rotation script's filter). */
    keyId: text("key_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("payout_accounts_user_idx").on(t.userId, t.id),
    index("payout_accounts_key_idx").on(t.keyId),
    check("payout_accounts_kind", sql`${t.kind} in ('bank', 'alipay')`),
    check("payout_accounts_bank_name", sql`(${t.kind} = 'bank') = (${t.bankName} is not null)`),
  ],
);

export const PAYOUT_TAX_RULES = ["labor", "royalty"] as const;
export type PayoutTaxRule = (typeof PAYOUT_TAX_RULES)[number];

/**
 * 提现结算单 (decision 209): one `withholding` row when a payout is paid (gross, the income
 * tax withheld, net, in fen, and the China-time month it counts in), and one `reversal` row,
 * its negation, in the month a paid payout comes back. Written in the settlement's
 * transaction; `npm run check:ledger` recomputes the tax of every month from these rows.
 */
export const payoutStatements = pgTable(
  "payout_statements",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    payoutId: bigint("payout_id", { mode: "number" })
      .notNull()
      .references(() => payoutRequests.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["withholding", "reversal"] }).notNull(),
    /** "2026-11": the China-time month the row counts in. */
    month: text("month").notNull(),
    rule: text("rule", { enum: PAYOUT_TAX_RULES }).notNull(),
    grossFen: bigint("gross_fen", { mode: "number" }).notNull(),
    taxFen: bigint("tax_fen", { mode: "number" }).notNull(),
    netFen: bigint("net_fen", { mode: "number" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("payout_statements_payout_kind").on(t.payoutId, t.kind),
    index("payout_statements_user_month_idx").on(t.userId, t.month, t.id),
    // The tax withheld by day (资金报表, decision 226).
    index("payout_statements_created_idx").on(t.createdAt, t.taxFen),
    check("payout_statements_kind", sql`${t.kind} in ('withholding', 'reversal')`),
    check("payout_statements_rule", sql`${t.rule} in ('labor', 'royalty')`),
    check("payout_statements_sum", sql`${t.grossFen} = ${t.taxFen} + ${t.netFen}`),
    check("payout_statements_sign", sql`case when ${t.kind} = 'withholding' then ${t.grossFen} > 0 and ${t.taxFen} >= 0 and ${t.netFen} >= 0 else ${t.grossFen} < 0 and ${t.taxFen} <= 0 and ${t.netFen} <= 0 end`),
  ],
);
