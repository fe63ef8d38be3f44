import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { admins } from "./admins";
import { users } from "./users";

/**
 * One row per creating form that succeeded (docs/decisions/077-one-time-form-tokens.md): the
 * hidden one-time token the form carried, and what it created. Written in the creating
 * transaction, so a repeated submission of the same form (a double click, a retry after
 * a cut connection) finds the first one's result instead of creating another. The form's
 * sender is a reader or author (user_id) or an administrator (admin_id), exactly one of
 * them (docs/decisions/172-back-office-form-tokens.md).
 */
export const formSubmissions = pgTable(
  "form_submissions",
  {
    token: text("token").primaryKey(),
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    adminId: uuid("admin_id").references(() => admins.id, { onDelete: "cascade" }),
    /** A FormKind of app/server/platform/form-tokens.server.ts (or continuation, decision 141). */
    kind: text("kind").notNull(),
    /** The work id, chapter id, order number, … it created. */
    resultId: text("result_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("form_submissions_created_at_idx").on(t.createdAt),
    check("form_submissions_one_sender", sql`num_nonnulls(${t.userId}, ${t.adminId}) = 1`),
  ],
);
