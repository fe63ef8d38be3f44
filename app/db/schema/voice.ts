import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { works } from "./works";

/**
 * The author's voice (docs/product.md#author-voice, docs/decisions/257): per work, the
 * passages the author marks as their 文风 (from their chapters, pasted, or accepted AI
 * text), sent with 连载续写 within the context budget; and their own 套话 to avoid, on top
 * of the site's default list. Both belong to the work and go with it.
 */
export const voicePassages = pgTable(
  "voice_passages",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    content: text("content").notNull(),
    /** 摘自章节, 粘贴, or 采纳的AI文字. */
    source: text("source", { enum: ["chapter", "pasted", "ai"] }).notNull().default("pasted"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("voice_passages_work_idx").on(t.workId, t.id),
    // One passage once per work (md5: a passage may exceed a btree entry's size).
    uniqueIndex("voice_passages_content_unique").on(t.workId, sql`md5(${t.content})`),
    check("voice_passages_content_length", sql`char_length(${t.content}) between 1 and 2000`),
    check("voice_passages_source", sql`${t.source} in ('chapter', 'pasted', 'ai')`),
  ],
);

/** The author's own 套话 for a work (the defaults are in code, app/schemas/voice.ts). */
export const workCliches = pgTable(
  "work_cliches",
  {
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    phrase: text("phrase").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "work_cliches_pkey", columns: [t.workId, t.phrase] }),
    check("work_cliches_phrase_length", sql`char_length(${t.phrase}) between 2 and 20`),
  ],
);
