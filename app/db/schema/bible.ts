import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";
import { chapters, volumes, works } from "./works";

/**
 * The story bible of a work (docs/product.md#story-bible, docs/decisions/127): characters,
 * places, items and factions, each with names (its own and aliases) and facts. Chapter
 * numbers in facts and threads are the reader's numbers (published chapters in order),
 * stored as the author wrote them: they are the author's notes, not links to rows.
 */
export const storyEntities = pgTable(
  "story_entities",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["character", "place", "item", "faction"] }).notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /**
     * Whether the continuation prompt carries the entity (decision 154): `auto` when it is
     * named in the plan or the previous chapter's end, `always` (总是带上), `never` (从不带上).
     */
    promptMode: text("prompt_mode", { enum: ["auto", "always", "never"] }).notNull().default("auto"),
    /**
     * 读者百科 (decision 259): null keeps the entity to the author; a chapter number opts it
     * in, shown to readers from that chapter on (where it first appears), with its dated
     * facts and ledger entries up to each reader's chapter.
     */
    wikiFrom: integer("wiki_from"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("story_entities_work_idx").on(t.workId, t.kind, t.id),
    check("story_entities_prompt_mode", sql`${t.promptMode} in ('auto', 'always', 'never')`),
    check("story_entities_kind", sql`${t.kind} in ('character', 'place', 'item', 'faction')`),
    check("story_entities_name_length", sql`char_length(${t.name}) between 1 and 50`),
    check("story_entities_description_length", sql`char_length(${t.description}) <= 2000`),
    check("story_entities_wiki_from", sql`${t.wikiFrom} is null or ${t.wikiFrom} between 1 and 100000`),
  ],
);

/**
 * Every name an entity answers to, its own included: unique per work, so two entities of
 * one work can never share a name or an alias, whatever two tabs do at once.
 */
export const storyEntityNames = pgTable(
  "story_entity_names",
  {
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    entityId: bigint("entity_id", { mode: "number" })
      .notNull()
      .references(() => storyEntities.id, { onDelete: "cascade" }),
    isAlias: boolean("is_alias").notNull().default(true),
  },
  (t) => [
    primaryKey({ name: "story_entity_names_pkey", columns: [t.workId, t.name] }),
    index("story_entity_names_entity_idx").on(t.entityId),
    check("story_entity_names_length", sql`char_length(${t.name}) between 1 and 50`),
  ],
);

/** A fact about an entity, in force from chapter `fromChapter` and until `untilChapter` (both inclusive, either open). */
export const storyFacts = pgTable(
  "story_facts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    entityId: bigint("entity_id", { mode: "number" })
      .notNull()
      .references(() => storyEntities.id, { onDelete: "cascade" }),
    content: text("content").notNull(),
    fromChapter: integer("from_chapter"),
    untilChapter: integer("until_chapter"),
    /** Written by the author, or accepted from the AI's proposals. */
    source: text("source", { enum: ["author", "ai"] }).notNull().default("author"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("story_facts_entity_idx").on(t.entityId, t.id),
    index("story_facts_work_idx").on(t.workId),
    check("story_facts_content_length", sql`char_length(${t.content}) between 1 and 500`),
    check("story_facts_from_positive", sql`${t.fromChapter} is null or ${t.fromChapter} >= 1`),
    check("story_facts_until_positive", sql`${t.untilChapter} is null or ${t.untilChapter} >= 1`),
    check("story_facts_range", sql`${t.fromChapter} is null or ${t.untilChapter} is null or ${t.fromChapter} <= ${t.untilChapter}`),
    check("story_facts_source", sql`${t.source} in ('author', 'ai')`),
  ],
);

/** A plot thread (伏笔): planted in a chapter, due by another, open until resolved. */
export const plotThreads = pgTable(
  "plot_threads",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    note: text("note").notNull().default(""),
    plantedChapter: integer("planted_chapter").notNull(),
    dueChapter: integer("due_chapter"),
    status: text("status", { enum: ["open", "resolved"] }).notNull().default("open"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("plot_threads_work_idx").on(t.workId, t.status, t.dueChapter),
    check("plot_threads_title_length", sql`char_length(${t.title}) between 1 and 100`),
    check("plot_threads_note_length", sql`char_length(${t.note}) <= 1000`),
    check("plot_threads_planted_positive", sql`${t.plantedChapter} >= 1`),
    check("plot_threads_due_after_planted", sql`${t.dueChapter} is null or ${t.dueChapter} >= ${t.plantedChapter}`),
    check("plot_threads_status", sql`${t.status} in ('open', 'resolved')`),
  ],
);

/** The author's (or an accepted AI) summary of a chapter; goes with the chapter. */
export const chapterSummaries = pgTable(
  "chapter_summaries",
  {
    chapterId: bigint("chapter_id", { mode: "number" })
      .primaryKey()
      .references(() => chapters.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    summary: text("summary").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("chapter_summaries_work_idx").on(t.workId),
    check("chapter_summaries_length", sql`char_length(${t.summary}) between 1 and 2000`),
  ],
);

/** A volume's summary: stands for its chapters in older context (docs/decisions/127). */
export const volumeSummaries = pgTable(
  "volume_summaries",
  {
    volumeId: bigint("volume_id", { mode: "number" })
      .primaryKey()
      .references(() => volumes.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    summary: text("summary").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("volume_summaries_length", sql`char_length(${t.summary}) between 1 and 5000`)],
);

/**
 * A published chapter waiting for its AI summary and proposed facts (docs/decisions/128):
 * written in the publishing transaction when the work has AI summaries on; claimed by any
 * app process with FOR UPDATE SKIP LOCKED and a lease (`lockedUntil`), retried with
 * backoff up to SUMMARY_JOB_ATTEMPTS; `state` done / skipped / failed keeps its reason.
 */
export const summaryJobs = pgTable(
  "summary_jobs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    state: text("state", { enum: ["pending", "done", "skipped", "failed"] }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    /** Why it was skipped or failed (shown to the author). */
    reason: text("reason"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("summary_jobs_chapter_unique").on(t.chapterId),
    index("summary_jobs_due_idx").on(t.nextAttemptAt, t.id).where(sql`${t.state} = 'pending'`),
    index("summary_jobs_work_idx").on(t.workId, t.id),
    check("summary_jobs_state", sql`${t.state} in ('pending', 'done', 'skipped', 'failed')`),
  ],
);

/**
 * What the AI proposed after a chapter was published: its summary, a new fact, or a change
 * to an entity's state ledger (`state`, decision 248). The author accepts or rejects each.
 */
export const storyProposals = pgTable(
  "story_proposals",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["summary", "fact", "state"] }).notNull(),
    /** fact and state: the entity's name as the AI wrote it (matched to names and aliases on accepting). */
    entityName: text("entity_name"),
    entityKind: text("entity_kind", { enum: ["character", "place", "item", "faction"] }),
    content: text("content").notNull(),
    fromChapter: integer("from_chapter"),
    /** state: the ledger entry proposed (its kind, value, number, item action, note). */
    state: jsonb("state").$type<{ kind: string; value: string; num: number | null; action: string | null; note: string }>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("story_proposals_work_idx").on(t.workId, t.id),
    check("story_proposals_kind", sql`${t.kind} in ('summary', 'fact', 'state')`),
  ],
);
