import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * 关注作者 (docs/product.md#author-pages, decision 230): a reader follows an author; when the
 * author puts a new work where readers can see it, the reader's inbox gets a line.
 */
export const authorFollows = pgTable(
  "author_follows",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    authorId: uuid("author_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "author_follows_pkey", columns: [t.userId, t.authorId] }),
    check("author_follows_not_self", sql`${t.userId} <> ${t.authorId}`),
    // An author's followers: the count on their page and the new-work lines.
    index("author_follows_author_idx").on(t.authorId, t.userId),
  ],
);
