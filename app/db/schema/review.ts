import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid, type AnyPgColumn } from "drizzle-orm/pg-core";
import { admins } from "./admins";
import { chapterComments } from "./comments";
import { users } from "./users";
import { chapters, works, type WorkMeta } from "./works";

/**
 * A review item's life (docs/product.md#review): 待审 (pending, claimed or not), then one
 * decision: 通过 (approved), 退回修改 (returned), 拒绝 (rejected); or withdrawn when the
 * author changed the chapter or took it back before anyone decided.
 */
export const reviewStatus = pgEnum("review_status", ["pending", "approved", "returned", "rejected", "withdrawn"]);

/**
 * What an item asks a reviewer (decision 206): `release`, a chapter held before readers see
 * it; `sample`, a chapter already out, drawn for 跟踪审读; `appeal`, the author's appeal of
 * a 退回修改 or 拒绝 (for a 总编辑); `comment`, a comment held by a 审核 word; `edit`, an
 * edit of a published chapter, held while readers keep the approved text (decision 213);
 * `work`, a work's title, description, cover and tags (decision 214).
 */
export const reviewKind = pgEnum("review_kind", ["release", "sample", "appeal", "comment", "edit", "work"]);

/**
 * One submission of a chapter for review (先审后发, docs/product.md#review, decision 196):
 * the exact text submitted (its SHA-256 and the chapter's revision), who claimed it and
 * when, and the decision. A chapter has at most one pending item.
 */
export const reviewItems = pgTable(
  "review_items",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** The chapter; null for a work's own item (kind `work`, holding `editMeta`). */
    chapterId: bigint("chapter_id", { mode: "number" }).references(() => chapters.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    authorId: uuid("author_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: reviewKind("kind").notNull().default("release"),
    /** The held comment (kind `comment`). */
    commentId: bigint("comment_id", { mode: "number" }).references(() => chapterComments.id, { onDelete: "cascade" }),
    /** The decided item an appeal asks to overturn (kind `appeal`): one appeal per decision. */
    appealOf: bigint("appeal_of", { mode: "number" }).references((): AnyPgColumn => reviewItems.id, { onDelete: "cascade" }),
    status: reviewStatus("status").notNull().default("pending"),
    /** SHA-256 (hex) of the title and text submitted, and the chapter's revision then: the version reviewed. */
    contentHash: text("content_hash").notNull(),
    revision: integer("revision").notNull(),
    /** Why the chapter waits: 新作者, 先审名单, AI 标注. */
    reason: text("reason").notNull(),
    submittedAt: timestamp("submitted_at", { withTimezone: true }).notNull().defaultNow(),
    claimedBy: uuid("claimed_by").references(() => admins.id, { onDelete: "set null" }),
    claimedAt: timestamp("claimed_at", { withTimezone: true }),
    decidedBy: uuid("decided_by").references(() => admins.id, { onDelete: "set null" }),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    /** The author's note with an appeal. */
    authorNote: text("author_note"),
    /** The reviewer's reason for 退回修改 or 拒绝, shown to the author beside the chapter. */
    note: text("note"),
    /**
     * An edit (kind `edit`, decision 213): the title, text and 作者的话 submitted, applied
     * to the chapter when approved; the chapter keeps what readers have until then.
     */
    editTitle: text("edit_title"),
    editContent: text("edit_content"),
    editAuthorNote: text("edit_author_note"),
    /** A work's item (kind `work`, decision 214): the title, description, cover and tags submitted. */
    editMeta: jsonb("edit_meta").$type<WorkMeta>(),
    /**
     * A work's item once approved (decision 239): what readers had before it, for a 总编辑
     * taking the approval back; `meta: null` for a new work put on its listing by it. Null
     * on items approved before this was kept, and on every other item.
     */
    approvedOver: jsonb("approved_over").$type<{ meta: WorkMeta | null }>(),
  },
  (t) => [
    // The queue, oldest first, and the dashboard's oldest.
    index("review_items_pending_idx").on(t.submittedAt, t.id).where(sql`${t.status} = 'pending'`),
    index("review_items_chapter_idx").on(t.chapterId, t.id),
    // One open submission of a chapter's text (a release, a sample or an appeal); comments and edits apart.
    // (Edits are told by their text: a migration may not name an enum value it adds, decision 213.)
    uniqueIndex("review_items_one_pending").on(t.chapterId).where(sql`${t.status} = 'pending' and ${t.kind} <> 'comment' and ${t.editContent} is null`),
    // One pending edit of a published chapter, beside a 跟踪审读 sample of the text readers have.
    uniqueIndex("review_items_one_edit").on(t.chapterId).where(sql`${t.status} = 'pending' and ${t.editContent} is not null`),
    uniqueIndex("review_items_one_appeal").on(t.appealOf),
    uniqueIndex("review_items_comment").on(t.commentId),
    // One pending item of a work's title, description, cover and tags (told by its missing chapter).
    uniqueIndex("review_items_one_work").on(t.workId).where(sql`${t.status} = 'pending' and ${t.chapterId} is null`),
    // A work's item (or an appeal of one, decision 239) holds the metadata submitted, and only it has no chapter.
    check("review_items_work_meta", sql`(${t.chapterId} is null) = (${t.editMeta} is not null) and (${t.editMeta} is null or (${t.commentId} is null and ${t.editContent} is null))`),
    // (An appeal's appeal_of is not required here: a restore inserts it empty and sets it after, decision 147.)
    check("review_items_kind_refs", sql`(${t.kind} = 'comment') = (${t.commentId} is not null) and (${t.appealOf} is null or ${t.kind} = 'appeal')`),
    // An edit's title, text and note come together, and only on an item of no comment or appeal.
    check(
      "review_items_edit_text",
      sql`(${t.editContent} is null) = (${t.editTitle} is null) and (${t.editContent} is null) = (${t.editAuthorNote} is null) and (${t.editContent} is null or (${t.commentId} is null and ${t.appealOf} is null))`,
    ),
    check("review_items_decided", sql`(${t.status} in ('pending', 'withdrawn')) = (${t.decidedAt} is null)`),
  ],
);
