import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";
import { works } from "./works";

/**
 * Outlines of a serial (docs/product.md#outlines, docs/decisions/255): the work's 总纲
 * (`series`, one per work), its 卷纲 (`volume`: a named span of chapter numbers, the
 * reader's numbering) and each chapter's 细纲 (`chapter`, keyed by the chapter number
 * from_chapter = to_chapter, its beats in `beats`). Chapter numbers, not chapter rows:
 * a 细纲 plans a chapter that is not written yet.
 */
export const OUTLINE_KINDS = ["series", "volume", "chapter"] as const;

/** One beat of a 细纲: what happens, and about how many 字 it takes. */
export interface OutlineBeat {
  text: string;
  words: number;
}

export const outlines = pgTable(
  "outlines",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: OUTLINE_KINDS }).notNull(),
    fromChapter: integer("from_chapter").notNull().default(0),
    toChapter: integer("to_chapter").notNull().default(0),
    title: text("title").notNull().default(""),
    body: text("body").notNull().default(""),
    beats: jsonb("beats").$type<OutlineBeat[]>().notNull().default([]),
    /** 1 for the first save, one more for each later save or restore. */
    version: integer("version").notNull().default(1),
    source: text("source", { enum: ["author", "ai"] }).notNull().default("author"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("outlines_series_unique").on(t.workId).where(sql`${t.kind} = 'series'`),
    uniqueIndex("outlines_chapter_unique").on(t.workId, t.fromChapter).where(sql`${t.kind} = 'chapter'`),
    index("outlines_work_idx").on(t.workId, t.kind, t.fromChapter),
    check("outlines_kind", sql`${t.kind} in ('series', 'volume', 'chapter')`),
    check("outlines_span", sql`(${t.kind} = 'series') or (${t.fromChapter} between 1 and 100000 and ${t.toChapter} between ${t.fromChapter} and 100000)`),
    check("outlines_title_length", sql`char_length(${t.title}) <= 50`),
    check("outlines_body_length", sql`char_length(${t.body}) <= 20000`),
    check("outlines_source", sql`${t.source} in ('author', 'ai')`),
  ],
);

/** Earlier versions of an outline (the newest kept ones; the current text is in outlines). */
export const outlineVersions = pgTable(
  "outline_versions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    outlineId: bigint("outline_id", { mode: "number" })
      .notNull()
      .references(() => outlines.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    title: text("title").notNull().default(""),
    body: text("body").notNull().default(""),
    beats: jsonb("beats").$type<OutlineBeat[]>().notNull().default([]),
    source: text("source", { enum: ["author", "ai"] }).notNull().default("author"),
    savedAt: timestamp("saved_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("outline_versions_unique").on(t.outlineId, t.version)],
);

/**
 * AI 细纲 drafting for a 卷纲's chapters, in batches (docs/decisions/255): each run drafts
 * `batch` chapters from `next_chapter` and moves it on, so a job stopped by a restart
 * resumes where it was. Claimed like summary_jobs (FOR UPDATE SKIP LOCKED and a lease).
 */
export const outlineJobs = pgTable(
  "outline_jobs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    volumeId: bigint("volume_id", { mode: "number" })
      .notNull()
      .references(() => outlines.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    nextChapter: integer("next_chapter").notNull(),
    toChapter: integer("to_chapter").notNull(),
    batch: integer("batch").notNull(),
    state: text("state", { enum: ["pending", "done", "skipped", "failed"] }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    /** Why it was skipped or failed, or why the last attempt failed (shown to the author). */
    reason: text("reason"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("outline_jobs_due_idx").on(t.nextAttemptAt, t.id).where(sql`${t.state} = 'pending'`),
    index("outline_jobs_volume_idx").on(t.volumeId, t.id),
    uniqueIndex("outline_jobs_one_pending").on(t.volumeId).where(sql`${t.state} = 'pending'`),
    check("outline_jobs_state", sql`${t.state} in ('pending', 'done', 'skipped', 'failed')`),
    check("outline_jobs_batch", sql`${t.batch} between 1 and 10`),
  ],
);
