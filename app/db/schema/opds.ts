import { bigint, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * A reader's personal tokens for reading apps (docs/product.md#reading-apps, decision 201):
 * the OPDS catalog at /opds/<token> lists and serves the reader's EPUBs. Only the
 * token's SHA-256 is kept (as the admins' API tokens); revoking deletes the row, so a
 * revoked token finds nothing. At most OPDS_TOKEN_LIMIT per reader.
 */
export const readerOpdsTokens = pgTable(
  "reader_opds_tokens",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (t) => [index("reader_opds_tokens_user_idx").on(t.userId)],
);
