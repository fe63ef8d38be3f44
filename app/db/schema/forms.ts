import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * One row per creating form that succeeded (docs/decisions/077-one-time-form-tokens.md): the
 * hidden one-time token the form carried, and what it created. Written in the creating
 * transaction, so a repeated submission of the same form (a double click, a retry after
 * a cut connection) finds the first one's result instead of creating another.
 */
export const formSubmissions = pgTable(
  "form_submissions",
  {
    token: text("token").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** publish | chapter | top-up */
    kind: text("kind").notNull(),
    /** The work id, chapter id or order number it created. */
    resultId: text("result_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("form_submissions_created_at_idx").on(t.createdAt)],
);
