import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, pgTable, primaryKey, smallint, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";
import { works } from "./works";

/**
 * 书评 (docs/product.md#book-reviews, decision 211): one review per reader per work, with a
 * 1-10 rating and text; the work's author may mark it 精华, pin it (置顶) and answer it once
 * (`author_reply`, editable). `hidden_at`: hidden by an operator after a report. The
 * unique (work, user) is what keeps it one per reader, under any race.
 */
export const bookReviews = pgTable(
  "book_reviews",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    rating: smallint("rating").notNull(),
    body: text("body").notNull(),
    featured: boolean("featured").notNull().default(false),
    pinnedAt: timestamp("pinned_at", { withTimezone: true }),
    authorReply: text("author_reply"),
    authorRepliedAt: timestamp("author_replied_at", { withTimezone: true }),
    likeCount: integer("like_count").notNull().default(0),
    hiddenAt: timestamp("hidden_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("book_reviews_one_per_reader").on(t.workId, t.userId),
    check("book_reviews_rating_range", sql`${t.rating} between 1 and 10`),
    check("book_reviews_body_length", sql`char_length(${t.body}) between 10 and 5000`),
    check("book_reviews_reply_length", sql`${t.authorReply} is null or char_length(${t.authorReply}) between 1 and 1000`),
    check("book_reviews_likes_nonnegative", sql`${t.likeCount} >= 0`),
    // 最新 and the average of a work's shown reviews.
    index("book_reviews_work_created_idx").on(t.workId, t.createdAt),
    index("book_reviews_user_idx").on(t.userId),
  ],
);

export const bookReviewLikes = pgTable(
  "book_review_likes",
  {
    reviewId: bigint("review_id", { mode: "number" })
      .notNull()
      .references(() => bookReviews.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "book_review_likes_pkey", columns: [t.reviewId, t.userId] }), index("book_review_likes_user_idx").on(t.userId)],
);

/** Readers' reports of a review, for the back office's 书评举报 (like comment_reports). */
export const bookReviewReports = pgTable(
  "book_review_reports",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    reviewId: bigint("review_id", { mode: "number" })
      .notNull()
      .references(() => bookReviews.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
  },
  (t) => [
    check("book_review_reports_reason_length", sql`char_length(${t.reason}) between 1 and 200`),
    unique("book_review_reports_once").on(t.reviewId, t.userId),
    index("book_review_reports_open_idx").on(t.createdAt).where(sql`${t.resolvedAt} is null`),
  ],
);
