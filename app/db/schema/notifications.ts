import { sql } from "drizzle-orm";
import { bigint, check, date, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { chapterComments } from "./comments";
import { users } from "./users";
import { chapters, works } from "./works";

/**
 * A user's inbox (docs/product.md#notifications, decision 115). One row per line the user
 * sees: new chapters of a followed work are grouped into one row per work and China-time
 * day (`count` chapters, the latest in `chapter_id`, all of them in `chapter_ids`), written
 * by the background delivery in batches, never inside the author's request; a purchase of
 * the user's work, a reply to their comment, a settled payout and a message from an
 * administrator are one row each.
 */
export const notifications = pgTable(
  "notifications",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["chapters", "purchase", "reply", "admin", "payout", "review", "tip", "new-work", "typo"] }).notNull(),
    workId: bigint("work_id", { mode: "number" }).references(() => works.id, { onDelete: "cascade" }),
    chapterId: bigint("chapter_id", { mode: "number" }).references(() => chapters.id, { onDelete: "set null" }),
    commentId: bigint("comment_id", { mode: "number" }).references(() => chapterComments.id, { onDelete: "cascade" }),
    /** Who caused it: the buyer, the replier, a new work's author (null for chapters and administrators). */
    actorId: uuid("actor_id").references(() => users.id, { onDelete: "set null" }),
    /**
     * chapters: every chapter the line stands for (the inbox counts and links those still
     * published); purchase: the chapters bought (null: the whole work). Null on older rows.
     */
    chapterIds: bigint("chapter_ids", { mode: "number" }).array(),
    /** chapters: the China-time day the line groups. */
    day: date("day", { mode: "string" }),
    /** chapters: how many chapters the line stands for. */
    count: integer("count").notNull().default(1),
    /**
     * An administrator's message, or a settled payout's line; a purchase's price as text is
     * not needed (the ledger has it).
     */
    body: text("body"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** The inbox sorts by this: a grouped line moves up when another chapter joins it. */
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    readAt: timestamp("read_at", { withTimezone: true }),
  },
  (t) => [
    check("notifications_kind", sql`${t.kind} in ('chapters', 'purchase', 'reply', 'admin', 'payout', 'review', 'tip', 'new-work', 'typo')`),
    check("notifications_count_positive", sql`${t.count} >= 1`),
    check("notifications_body_length", sql`${t.body} is null or char_length(${t.body}) <= 2000`),
    // One line per user, work and day for new chapters: the delivery adds to it.
    uniqueIndex("notifications_chapters_day_unique").on(t.userId, t.workId, t.day).where(sql`${t.kind} = 'chapters'`),
    index("notifications_user_updated_idx").on(t.userId, t.updatedAt, t.id),
    // The bell's count reads only unread rows.
    index("notifications_user_unread_idx").on(t.userId).where(sql`${t.readAt} is null`),
  ],
);

/** Works whose notifications a user does not want (静音): no new-chapter or purchase lines. */
export const notificationMutes = pgTable(
  "notification_mutes",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "notification_mutes_pkey", columns: [t.userId, t.workId] })],
);

/**
 * Chapters published whose followers are still to be told (decision 115): one row per
 * publication (a work and the chapters published together), written in the publishing
 * transaction. Every app process delivers them in batches of followers, claiming a row
 * with `FOR UPDATE SKIP LOCKED`; `after_user` is the last follower told, advanced in the
 * batch's own transaction, so each follower is told once whatever the processes.
 */
export const notificationJobs = pgTable(
  "notification_jobs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    /** The last published of the chapters (the line links to it). */
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    chapterCount: integer("chapter_count").notNull(),
    /** The chapters published together (null on jobs written before the column). */
    chapterIds: bigint("chapter_ids", { mode: "number" }).array(),
    day: date("day", { mode: "string" }).notNull(),
    afterUser: uuid("after_user"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("notification_jobs_count_positive", sql`${t.chapterCount} >= 1`)],
);
