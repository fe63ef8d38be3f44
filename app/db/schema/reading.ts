import { sql } from "drizzle-orm";
import { bigint, boolean, check, date, index, integer, pgTable, primaryKey, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";
import { chapters, works } from "./works";

/**
 * Where a signed-in reader left off in a work: one row per user and work, pointing at
 * a chapter and the index of its first visible paragraph (empty lines not counted).
 */
export const readingProgress = pgTable(
  "reading_progress",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    paragraph: integer("paragraph").notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * 阅读记录 (decision 234): removed from the reader's history (and 继续阅读) but kept as the
     * position the 书架 counts from; the next save of a position shows it again.
     */
    historyHidden: boolean("history_hidden").notNull().default(false),
  },
  (t) => [
    primaryKey({ name: "reading_progress_pkey", columns: [t.userId, t.workId] }),
    check("reading_progress_paragraph_nonnegative", sql`${t.paragraph} >= 0`),
    index("reading_progress_user_updated_idx").on(t.userId, t.updatedAt),
  ],
);

/**
 * Who opened which chapter on which day (China time): the author's statistics count
 * distinct readers by day from it (docs/decisions/099). One row per reader, chapter and
 * day, written at most once (INSERT ... ON CONFLICT DO NOTHING, skipped altogether when
 * this process already wrote it today). Signed-in readers only.
 */
export const chapterReads = pgTable(
  "chapter_reads",
  {
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ name: "chapter_reads_pkey", columns: [t.chapterId, t.day, t.userId] }),
    // The work's distinct readers by day, answered from the index alone.
    index("chapter_reads_work_day_idx").on(t.workId, t.day, t.userId),
    // The dashboard's active readers by day, from the index alone.
    index("chapter_reads_day_user_idx").on(t.day, t.userId),
  ],
);
