import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  timestamp,
  uuid,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { tokenTransactions } from "./ledger";
import { users } from "./users";
import { works } from "./works";

/**
 * AI-assisted writing (docs/product.md D7): characters, plots, generated plot contents and
 * drafts live on the server, per user and writing project, so nothing is lost on reload
 * or on another device.
 */
export const writingKind = pgEnum("writing_kind", ["free", "short"]);
export const plotVersionKind = pgEnum("plot_version_kind", ["generation", "manual"]);
/**
 * The editor's operations on a selection (docs/product.md D15, decision 130): 续写 from the
 * cursor, 改写, 扩写, 缩写, 润色.
 */
export const textOperationKind = pgEnum("text_operation_kind", ["continue", "rewrite", "expand", "condense", "polish"]);
export const textOperationStatus = pgEnum("text_operation_status", ["open", "accepted", "rejected"]);
export const textCandidateStatus = pgEnum("text_candidate_status", ["generating", "ready", "failed"]);

/** A writing project: free writing or short-piece imitation, named and reopenable. */
export const writingProjects = pgTable(
  "writing_projects",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: writingKind("kind").notNull(),
    name: text("name").notNull(),
    /** The overall setting (整体设定), the prompt's synopsis. */
    theme: text("theme").notNull().default(""),
    /** The draft panel's free text. */
    draft: text("draft").notNull().default(""),
    /** Short-piece imitation: the analysed source, a work or pasted text. */
    sourceWorkId: bigint("source_work_id", { mode: "number" }).references(() => works.id, { onDelete: "set null" }),
    sourceTitle: text("source_title"),
    sourceText: text("source_text"),
    analyzedAt: timestamp("analyzed_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("writing_projects_name_length", sql`char_length(${t.name}) between 1 and 50`),
    index("writing_projects_user_kind_idx").on(t.userId, t.kind, t.updatedAt),
  ],
);

export const writingCharacters = pgTable(
  "writing_characters",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => writingProjects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    personality: text("personality").notNull(),
    appearance: text("appearance").notNull(),
    other: text("other").notNull().default(""),
    position: integer("position").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("writing_characters_project_idx").on(t.projectId, t.position)],
);

export const writingPlots = pgTable(
  "writing_plots",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => writingProjects.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    summary: text("summary").notNull(),
    environment: text("environment").notNull(),
    expectedWords: integer("expected_words").notNull().default(1000),
    additionalNotes: text("additional_notes").notNull().default(""),
    /** The plot's current text: the chosen version, or what the author typed. */
    content: text("content").notNull().default(""),
    currentVersionId: uuid("current_version_id").references((): AnyPgColumn => plotVersions.id, { onDelete: "set null" }),
    position: integer("position").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("writing_plots_expected_words", sql`${t.expectedWords} between 100 and 20000`),
    index("writing_plots_project_idx").on(t.projectId, t.position),
  ],
);

/** Who appears in a plot. Deleting a character removes it from every plot (cascade). */
export const writingPlotCharacters = pgTable(
  "writing_plot_characters",
  {
    plotId: uuid("plot_id")
      .notNull()
      .references(() => writingPlots.id, { onDelete: "cascade" }),
    characterId: uuid("character_id")
      .notNull()
      .references(() => writingCharacters.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ name: "writing_plot_characters_pkey", columns: [t.plotId, t.characterId] }),
    index("writing_plot_characters_character_idx").on(t.characterId),
  ],
);

/**
 * Every generation of a plot (and every saved hand edit) is kept: its text, the model,
 * the tokens it cost and when. The token_transactions row is the charge itself.
 */
export const plotVersions = pgTable(
  "plot_versions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    plotId: uuid("plot_id")
      .notNull()
      .references((): AnyPgColumn => writingPlots.id, { onDelete: "cascade" }),
    kind: plotVersionKind("kind").notNull(),
    content: text("content").notNull(),
    model: text("model"),
    tokensCharged: integer("tokens_charged").notNull().default(0),
    promptChars: integer("prompt_chars"),
    outputChars: integer("output_chars"),
    /** Why the generation ended: complete, tokens-exhausted, aborted or limit. */
    endReason: text("end_reason"),
    /** An accepted operation on a selection (decision 130): which one made this version. */
    operation: textOperationKind("operation"),
    transactionId: bigint("transaction_id", { mode: "number" }).references(() => tokenTransactions.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("plot_versions_tokens_nonnegative", sql`${t.tokensCharged} >= 0`),
    index("plot_versions_plot_created_idx").on(t.plotId, t.createdAt),
  ],
);

/**
 * One operation on a plot's text (decision 130): what was selected (UTF-16 offsets into the
 * text it was based on, whose SHA-256 is kept so accepting refuses a text changed since)
 * and how many candidates were asked for. `request_key` comes from the page (a fresh one
 * per form or button press), unique per user: the same request posted twice (two tabs,
 * a resubmitted form) creates and charges once.
 */
export const textOperations = pgTable(
  "text_operations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    plotId: uuid("plot_id")
      .notNull()
      .references(() => writingPlots.id, { onDelete: "cascade" }),
    requestKey: text("request_key").notNull(),
    kind: textOperationKind("kind").notNull(),
    selectionStart: integer("selection_start").notNull(),
    selectionEnd: integer("selection_end").notNull(),
    /** The selected text (empty for 续写). */
    source: text("source").notNull(),
    baseHash: text("base_hash").notNull(),
    candidateCount: integer("candidate_count").notNull(),
    status: textOperationStatus("status").notNull().default("open"),
    acceptedIndex: integer("accepted_index"),
    versionId: uuid("version_id").references(() => plotVersions.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("text_operations_count", sql`${t.candidateCount} between 1 and 3`),
    check("text_operations_range", sql`0 <= ${t.selectionStart} and ${t.selectionStart} <= ${t.selectionEnd}`),
    uniqueIndex("text_operations_user_key_idx").on(t.userId, t.requestKey),
    index("text_operations_plot_idx").on(t.plotId, t.createdAt),
  ],
);

/** One candidate of an operation: one metered generation (its token_transactions row is the receipt). */
export const textCandidates = pgTable(
  "text_candidates",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    operationId: uuid("operation_id")
      .notNull()
      .references(() => textOperations.id, { onDelete: "cascade" }),
    index: integer("index").notNull(),
    status: textCandidateStatus("status").notNull().default("generating"),
    content: text("content").notNull().default(""),
    model: text("model"),
    tokensCharged: integer("tokens_charged").notNull().default(0),
    endReason: text("end_reason"),
    error: text("error"),
    transactionId: bigint("transaction_id", { mode: "number" }).references(() => tokenTransactions.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("text_candidates_index", sql`${t.index} between 0 and 2`),
    uniqueIndex("text_candidates_operation_index_idx").on(t.operationId, t.index),
  ],
);

/**
 * The generation log as the AI labels read it (decision 126): fingerprints of every text
 * a user's generations delivered (hashes of 12-character runs, whitespace removed, a
 * sample of one in four), one row per user and fingerprint. A chapter's share of
 * characters covered by them gives its AI level.
 */
export const aiTextMarks = pgTable(
  "ai_text_marks",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    mark: integer("mark").notNull(),
  },
  (t) => [primaryKey({ name: "ai_text_marks_pkey", columns: [t.userId, t.mark] })],
);
