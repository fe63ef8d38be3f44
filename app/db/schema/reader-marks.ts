import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";
import { chapters, works } from "./works";

/**
 * 书签 and 划线 (decision 241): a reader's marks in a chapter, kept with the account. A
 * bookmark points at a paragraph (`quote` the start of its text as it was, for the list);
 * a highlight at `quote`, the characters `start_offset`..`end_offset` (UTF-16 units, the
 * text as readers see it) of the paragraph. Both carry an optional note. The natural keys
 * are unique (a bookmark per paragraph, a highlight per range), so a form sent twice
 * changes the one row's note instead of adding a second.
 */
export const readerMarks = pgTable(
  "reader_marks",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["bookmark", "highlight"] }).notNull(),
    paragraph: integer("paragraph").notNull(),
    startOffset: integer("start_offset").notNull().default(0),
    endOffset: integer("end_offset").notNull().default(0),
    quote: text("quote").notNull(),
    note: text("note").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("reader_marks_kind", sql`${t.kind} in ('bookmark', 'highlight')`),
    check("reader_marks_range", sql`${t.paragraph} >= 0 and ${t.startOffset} >= 0 and ${t.endOffset} >= ${t.startOffset}`),
    check("reader_marks_note_length", sql`char_length(${t.note}) <= 500`),
    check("reader_marks_quote_length", sql`char_length(${t.quote}) between 1 and 3000`),
    uniqueIndex("reader_marks_place_key").on(t.userId, t.chapterId, t.kind, t.paragraph, t.startOffset, t.endOffset),
    // A chapter's marks for the reader page, a work's for its page and the limit.
    index("reader_marks_user_work_idx").on(t.userId, t.workId, t.chapterId),
    // /bookmarks, newest first.
    index("reader_marks_user_created_idx").on(t.userId, t.createdAt.desc(), t.id.desc()),
  ],
);
