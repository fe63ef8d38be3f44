import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { storyEntities } from "./bible";
import { chapters, works } from "./works";

/**
 * State ledgers and continuity checks (docs/product.md#continuity, docs/decisions/247-248).
 * Chapter numbers are the reader's numbers, like the bible's facts.
 */

/** The work's 境界/等级 ladder, lowest rank first; a name appears once (a ladder has no cycle). */
export const storyLadderRungs = pgTable(
  "story_ladder_rungs",
  {
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    rank: integer("rank").notNull(),
    name: text("name").notNull(),
  },
  (t) => [
    primaryKey({ name: "story_ladder_rungs_pkey", columns: [t.workId, t.rank] }),
    uniqueIndex("story_ladder_rungs_name_unique").on(t.workId, t.name),
    check("story_ladder_rungs_rank", sql`${t.rank} >= 1`),
    check("story_ladder_rungs_name_length", sql`char_length(${t.name}) between 1 and 20`),
  ],
);

export const STATE_KINDS = ["realm", "life", "location", "item", "age", "time", "knowledge"] as const;

/**
 * One entry of an entity's state ledger: from chapter `chapter` on, its 境界 (`value`, a
 * rung of the ladder; `note` the cause of a drop), 生死 (`value` alive/dead), 位置, an item
 * gained, lost or given (`action`, `value` the item, `note` to whom), 年龄 (`num`), what it
 * knows; or the story's time (`entity_id` null, `num` the story year). One entry of a
 * single-valued kind per entity and chapter: two that contradict each other cannot both be.
 */
export const storyStates = pgTable(
  "story_states",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    entityId: bigint("entity_id", { mode: "number" }).references(() => storyEntities.id, { onDelete: "cascade" }),
    chapter: integer("chapter").notNull(),
    kind: text("kind", { enum: STATE_KINDS }).notNull(),
    value: text("value").notNull().default(""),
    num: integer("num"),
    action: text("action", { enum: ["gained", "lost", "given"] }),
    note: text("note").notNull().default(""),
    source: text("source", { enum: ["author", "ai"] }).notNull().default("author"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("story_states_work_chapter_idx").on(t.workId, t.chapter, t.id),
    index("story_states_entity_idx").on(t.entityId, t.chapter),
    uniqueIndex("story_states_single_unique").on(t.entityId, t.kind, t.chapter).where(sql`${t.kind} in ('realm', 'life', 'location', 'age')`),
    uniqueIndex("story_states_time_unique").on(t.workId, t.chapter).where(sql`${t.kind} = 'time'`),
    check("story_states_kind", sql`${t.kind} in ('realm', 'life', 'location', 'item', 'age', 'time', 'knowledge')`),
    check("story_states_entity", sql`(${t.kind} = 'time') = (${t.entityId} is null)`),
    check("story_states_chapter", sql`${t.chapter} between 1 and 100000`),
    check("story_states_value_length", sql`char_length(${t.value}) <= 100`),
    check("story_states_note_length", sql`char_length(${t.note}) <= 200`),
    check("story_states_action", sql`(${t.kind} = 'item') = (${t.action} is not null)`),
    check("story_states_num", sql`(${t.kind} in ('age', 'time')) = (${t.num} is not null)`),
    check("story_states_source", sql`${t.source} in ('author', 'ai')`),
  ],
);

/**
 * What the continuity checks found in a chapter when it was last saved or published
 * (replaced each time). `key` names the finding across checks (rule, entity, fact,
 * sentence), so a waiver outlives the check that made it.
 */
export const continuityFindings = pgTable(
  "continuity_findings",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    /** The chapter's reader number when checked. */
    chapterNumber: integer("chapter_number").notNull(),
    rule: text("rule").notNull(),
    key: text("key").notNull(),
    entityId: bigint("entity_id", { mode: "number" }).references(() => storyEntities.id, { onDelete: "cascade" }),
    message: text("message").notNull(),
    quote: text("quote").notNull().default(""),
    /** The ledger entries the finding rests on: [{ chapter, text, stateId? }]. */
    facts: jsonb("facts").$type<{ chapter: number | null; text: string; entityId: number | null }[]>().notNull(),
    /** A deterministic rule's, or the optional AI 审读's (decision 258): a save replaces only the rules' findings. */
    source: text("source", { enum: ["rule", "ai"] }).notNull().default("rule"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("continuity_findings_work_idx").on(t.workId, t.chapterNumber, t.id),
    uniqueIndex("continuity_findings_key_unique").on(t.chapterId, t.key),
    check("continuity_findings_source", sql`${t.source} in ('rule', 'ai')`),
  ],
);

/** A finding the author marked 有意安排, with a note: shown as waived, not counted as open. */
export const continuityWaivers = pgTable(
  "continuity_waivers",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    note: text("note").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("continuity_waivers_key_unique").on(t.chapterId, t.key),
    index("continuity_waivers_work_idx").on(t.workId),
    check("continuity_waivers_note_length", sql`char_length(${t.note}) <= 200`),
  ],
);
