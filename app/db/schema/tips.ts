import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { chapterComments } from "./comments";
import { users } from "./users";
import { chapters, works } from "./works";

/**
 * 打赏 (docs/product.md#tips-and-fans, decision 207): one row per tip, written in the tip's
 * transaction with the tipper's debit, the author's income row and (from a chapter's end)
 * the notice in that chapter's 本章说 (`comment_id`).
 */
export const workTips = pgTable(
  "work_tips",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Kept when the work is deleted (set null), as the ledgers' rows are: check:ledger sums tips by tipper and author. */
    workId: bigint("work_id", { mode: "number" }).references(() => works.id, { onDelete: "set null" }),
    /** The work's author when tipped: the income row's owner. */
    authorId: uuid("author_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The chapter whose end it was given from; null from the work page. */
    chapterId: bigint("chapter_id", { mode: "number" }).references(() => chapters.id, { onDelete: "set null" }),
    amount: integer("amount").notNull(),
    /** The reader's message as written ('' without one); readers see it masked. */
    message: text("message").notNull().default(""),
    /** The tip notice in 本章说, when given from a chapter's end. */
    commentId: bigint("comment_id", { mode: "number" }).references(() => chapterComments.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("work_tips_amount_positive", sql`${t.amount} >= 1`),
    check("work_tips_message_length", sql`char_length(${t.message}) <= 100`),
    index("work_tips_work_created_idx").on(t.workId, t.createdAt),
    index("work_tips_user_created_idx").on(t.userId, t.createdAt),
    index("work_tips_author_idx").on(t.authorId),
  ],
);

/**
 * 粉丝值: one row per reader and work, the credits the reader spent on the work (tips and
 * purchases, decision 207), added in the spending transaction. The 粉丝榜 reads the
 * (work, value) index from its top.
 */
export const workFans = pgTable(
  "work_fans",
  {
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    fanValue: bigint("fan_value", { mode: "number" }).notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "work_fans_pkey", columns: [t.workId, t.userId] }),
    check("work_fans_value_nonnegative", sql`${t.fanValue} >= 0`),
    index("work_fans_ranking_idx").on(t.workId, t.fanValue.desc(), t.userId),
  ],
);
