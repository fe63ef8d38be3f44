import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { users } from "./users";
import { chapters, works } from "./works";

/**
 * Where a chapter's 段评 sit (docs/decisions/102-comment-anchors.md): one row per
 * paragraph that has 段评, with the paragraph's index and its words, shared by every
 * 段评 on it. Re-anchoring after an edit moves these rows (a few thousand at most), never
 * the comments themselves (tens of thousands). `paragraph_index` null: the paragraph was
 * edited away, and its 段评 show in 本章说 with `paragraph_text` quoted.
 */
export const commentAnchors = pgTable(
  "comment_anchors",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    paragraphIndex: integer("paragraph_index"),
    paragraphText: text("paragraph_text").notNull(),
  },
  (t) => [
    check("comment_anchors_paragraph_nonnegative", sql`${t.paragraphIndex} is null or ${t.paragraphIndex} >= 0`),
    index("comment_anchors_chapter_paragraph_idx").on(t.chapterId, t.paragraphIndex),
  ],
);

/**
 * Readers' comments on a chapter (docs/decisions/090-comments.md). A top-level comment
 * is a 段评 when it has an anchor (`anchor_id`: its paragraph, decision 102) and a 本章说
 * otherwise; a 段评 whose anchor lost its paragraph shows in 本章说 with the anchor's
 * words quoted. Replies (楼中楼) point at a top-level comment through `parent_id` and
 * carry no anchor of their own.
 */
export const chapterComments = pgTable(
  "chapter_comments",
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
    parentId: bigint("parent_id", { mode: "number" }).references((): AnyPgColumn => chapterComments.id, {
      onDelete: "cascade",
    }),
    anchorId: bigint("anchor_id", { mode: "number" }).references(() => commentAnchors.id, { onDelete: "cascade" }),
    body: text("body").notNull(),
    likeCount: integer("like_count").notNull().default(0),
    replyCount: integer("reply_count").notNull().default(0),
    hiddenAt: timestamp("hidden_at", { withTimezone: true }),
    /** Held by a 审核 word until a reviewer decides (decision 206): hidden too, and only a reviewer shows it. */
    heldAt: timestamp("held_at", { withTimezone: true }),
    /** A tip notice (打赏, decision 207): the credits tipped; its body is the tip's message, possibly empty. */
    tipAmount: integer("tip_amount"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check(
      "chapter_comments_body_length",
      sql`(${t.tipAmount} is null and char_length(${t.body}) between 1 and 500) or (${t.tipAmount} >= 1 and char_length(${t.body}) <= 100)`,
    ),
    check("chapter_comments_counts_nonnegative", sql`${t.likeCount} >= 0 and ${t.replyCount} >= 0`),
    check("chapter_comments_reply_has_no_anchor", sql`${t.parentId} is null or ${t.anchorId} is null`),
    // The bubbles' counts and a paragraph's thread: visible 段评 per anchor.
    index("chapter_comments_anchor_idx").on(t.anchorId).where(sql`${t.parentId} is null and ${t.hiddenAt} is null`),
    // The count of a chapter's own 本章说 (not moved 段评).
    index("chapter_comments_talk_idx")
      .on(t.chapterId)
      .where(sql`${t.anchorId} is null and ${t.parentId} is null and ${t.hiddenAt} is null`),
    index("chapter_comments_chapter_created_idx").on(t.chapterId, t.createdAt),
    index("chapter_comments_parent_idx").on(t.parentId, t.createdAt),
    index("chapter_comments_user_idx").on(t.userId),
  ],
);

export const commentLikes = pgTable(
  "comment_likes",
  {
    commentId: bigint("comment_id", { mode: "number" })
      .notNull()
      .references(() => chapterComments.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "comment_likes_pkey", columns: [t.commentId, t.userId] }), index("comment_likes_user_idx").on(t.userId)],
);

/** Reports for the moderators' queue (the admin side lands with the operator console). */
export const commentReports = pgTable(
  "comment_reports",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    commentId: bigint("comment_id", { mode: "number" })
      .notNull()
      .references(() => chapterComments.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
  },
  (t) => [
    check("comment_reports_reason_length", sql`char_length(${t.reason}) between 1 and 200`),
    unique("comment_reports_once").on(t.commentId, t.userId),
    index("comment_reports_open_idx").on(t.createdAt).where(sql`${t.resolvedAt} is null`),
  ],
);

/** Users a work's author has muted: they can no longer comment on that work. */
export const commentMutes = pgTable(
  "comment_mutes",
  {
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "comment_mutes_pkey", columns: [t.workId, t.userId] })],
);
