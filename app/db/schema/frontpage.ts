import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";
import { works } from "./works";

/**
 * The operator's front page (docs/product.md#front-page, docs/decisions/198): 编辑推荐 rows
 * on the home page, works removed from the rankings, and site announcements (公告).
 */

/** A curated row (推荐位) of the home page: its name and its place among the rows. */
export const curatedRows = pgTable(
  "curated_rows",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    name: text("name").notNull(),
    position: integer("position").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("curated_rows_name_length", sql`char_length(${t.name}) between 1 and 30`), index("curated_rows_position_idx").on(t.position, t.id)],
);

/**
 * A work in a curated row, in its place, shown between `startsAt` and `endsAt` (either
 * open). A work is in a row once (the key); a work taken down, private or hidden from the
 * viewer is never shown, whatever is here.
 */
export const curatedRowWorks = pgTable(
  "curated_row_works",
  {
    rowId: bigint("row_id", { mode: "number" })
      .notNull()
      .references(() => curatedRows.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    startsAt: timestamp("starts_at", { withTimezone: true }),
    endsAt: timestamp("ends_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "curated_row_works_pkey", columns: [t.rowId, t.workId] }),
    check("curated_row_works_window", sql`${t.startsAt} is null or ${t.endsAt} is null or ${t.endsAt} > ${t.startsAt}`),
    index("curated_row_works_work_idx").on(t.workId),
  ],
);

/** A work an operator took out of every ranking and computed home row, with the reason. */
export const rankingRemovals = pgTable(
  "ranking_removals",
  {
    workId: bigint("work_id", { mode: "number" })
      .primaryKey()
      .references(() => works.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("ranking_removals_reason_length", sql`char_length(${t.reason}) between 1 and 200`)],
);

/**
 * A site announcement (公告): on the home page and at the top of everyone's inbox while
 * current (from `startsAt`, until `endsAt` when set). One row for everyone; what a reader
 * has read is in `announcement_reads`.
 */
export const announcements = pgTable(
  "announcements",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    startsAt: timestamp("starts_at", { withTimezone: true }).notNull(),
    endsAt: timestamp("ends_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("announcements_title_length", sql`char_length(${t.title}) between 1 and 100`),
    check("announcements_body_length", sql`char_length(${t.body}) between 1 and 5000`),
    check("announcements_window", sql`${t.endsAt} is null or ${t.endsAt} > ${t.startsAt}`),
    index("announcements_starts_idx").on(t.startsAt, t.id),
  ],
);

/** Which reader marked which announcement read: a row only when they did. */
export const announcementReads = pgTable(
  "announcement_reads",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    announcementId: bigint("announcement_id", { mode: "number" })
      .notNull()
      .references(() => announcements.id, { onDelete: "cascade" }),
    readAt: timestamp("read_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "announcement_reads_pkey", columns: [t.userId, t.announcementId] }), index("announcement_reads_announcement_idx").on(t.announcementId)],
);
