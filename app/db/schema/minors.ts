import { sql } from "drizzle-orm";
import { check, date, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * 青少年模式 turned on by the reader (docs/product.md#minor-mode, decision 218): the row is
 * the mode. Leaving it needs the 4-digit PIN (`pin_hash`, scrypt like passwords); five wrong
 * PINs in a row lock the exit until `locked_until`. A reader whose verified identity says
 * they are under 18 is in the mode with or without a row (author_identities.adult_on).
 */
export const minorModes = pgTable(
  "minor_modes",
  {
    userId: uuid("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    pinHash: text("pin_hash").notNull(),
    failedPins: integer("failed_pins").notNull().default(0),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("minor_modes_failed_pins", sql`${t.failedPins} >= 0`)],
);

/**
 * A reader's money in 青少年模式 per China-time month (decision 218): the row is also the
 * lock every capped top-up and spend takes (FOR UPDATE through the upsert), so 50 at once
 * are counted one after another in the transaction that debits. `spent` is credits spent
 * on works, chapters, 购买全部 and tips; top-ups are summed from payment_orders under it.
 */
export const minorSpending = pgTable(
  "minor_spending",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The first day of the China-time month. */
    month: date("month").notNull(),
    spent: integer("spent").notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.month] }), check("minor_spending_spent", sql`${t.spent} >= 0`)],
);
