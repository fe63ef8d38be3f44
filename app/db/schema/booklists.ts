import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";
import { works } from "./works";

/**
 * 书单 (docs/product.md#booklists, decision 232): a reader's public list of works, each with
 * a note; others follow it. `follower_count` is kept in the transaction that adds or
 * removes a follower (the popular lists are read from its index). The entries are counted,
 * not kept in a column: adding one locks the list's row first, so the limit holds under any
 * race, and a deleted work (its entries go by cascade) leaves no count behind.
 */
export const booklists = pgTable(
  "booklists",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    followerCount: integer("follower_count").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("booklists_title_length", sql`char_length(${t.title}) between 1 and 30`),
    check("booklists_description_length", sql`char_length(${t.description}) <= 500`),
    check("booklists_followers_nonnegative", sql`${t.followerCount} >= 0`),
    // 热门书单 and 最新书单 on /booklists; a person's lists.
    index("booklists_popular_idx").on(t.followerCount.desc(), t.id.desc()),
    index("booklists_created_idx").on(t.createdAt.desc(), t.id.desc()),
    index("booklists_user_idx").on(t.userId, t.createdAt),
  ],
);

/** A work in a 书单, at `position` (the owner's order, smallest first), with the owner's note. */
export const booklistEntries = pgTable(
  "booklist_entries",
  {
    booklistId: bigint("booklist_id", { mode: "number" })
      .notNull()
      .references(() => booklists.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    note: text("note").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "booklist_entries_pkey", columns: [t.booklistId, t.workId] }),
    check("booklist_entries_note_length", sql`char_length(${t.note}) <= 200`),
    index("booklist_entries_order_idx").on(t.booklistId, t.position),
    index("booklist_entries_work_idx").on(t.workId),
  ],
);

/** 关注书单: a reader follows another's list. */
export const booklistFollows = pgTable(
  "booklist_follows",
  {
    booklistId: bigint("booklist_id", { mode: "number" })
      .notNull()
      .references(() => booklists.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "booklist_follows_pkey", columns: [t.booklistId, t.userId] }), index("booklist_follows_user_idx").on(t.userId, t.createdAt)],
);
