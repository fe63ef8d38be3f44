import { sql } from "drizzle-orm";
import { bigint, check, date, integer, pgTable, primaryKey, timestamp } from "drizzle-orm/pg-core";
import { works } from "./works";

/**
 * 写作台 (docs/decisions/261): 字数 written in a work per China-time day, the net change of
 * its chapters' text as the editor saves it (保存, autosave, restore, append) plus the text
 * of chapters added. Net: deleting text counts against the day. Work data like the story
 * bible: goes with the work.
 */
export const writingDays = pgTable(
  "writing_days",
  {
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    /** The China-time calendar day ("2026-12-01"). */
    day: date("day", { mode: "string" }).notNull(),
    words: integer("words").notNull().default(0),
  },
  (t) => [primaryKey({ name: "writing_days_pkey", columns: [t.workId, t.day] })],
);

/** The author's daily word target for a work (今日目标), shown on the desk against today's 字数. */
export const writingTargets = pgTable(
  "writing_targets",
  {
    workId: bigint("work_id", { mode: "number" })
      .primaryKey()
      .references(() => works.id, { onDelete: "cascade" }),
    words: integer("words").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("writing_targets_words", sql`${t.words} between 1 and 50000`)],
);
