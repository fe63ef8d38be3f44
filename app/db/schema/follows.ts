import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
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

/**
 * 屏蔽作者 (docs/product.md#blocking, decision 233): the blocked author's works leave every
 * listing this reader sees. Read whole for the reader (the primary key's prefix) once per
 * listing request.
 */
export const authorBlocks = pgTable(
  "author_blocks",
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
    primaryKey({ name: "author_blocks_pkey", columns: [t.userId, t.authorId] }),
    check("author_blocks_not_self", sql`${t.userId} <> ${t.authorId}`),
  ],
);

/** 屏蔽标签 (decision 233): works carrying the tag leave this reader's listings. */
export const tagBlocks = pgTable(
  "tag_blocks",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tag: text("tag").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "tag_blocks_pkey", columns: [t.userId, t.tag] }),
    check("tag_blocks_tag_length", sql`char_length(${t.tag}) between 1 and 20`),
  ],
);
