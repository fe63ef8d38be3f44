import { sql } from "drizzle-orm";
import { bigint, check, date, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";
import { works } from "./works";

/**
 * 月票 and 推荐票 (docs/product.md#votes, decision 222). A reader's votes are counters on
 * their own rows, changed by one conditional statement in the cast's transaction, so two
 * casts at once can never spend the same vote.
 */

/**
 * One row per reader and China-time month (`month`: its first day): the credits spent on
 * works that month (chapters, whole works, tips; added in the spending transaction) and
 * the 月票 cast. 月票 held = floor(spent / N) - used; next month is a new row, so the
 * month's votes expire with it.
 */
export const readerVoteMonths = pgTable(
  "reader_vote_months",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    month: date("month").notNull(),
    spent: bigint("spent", { mode: "number" }).notNull().default(0),
    monthlyUsed: integer("monthly_used").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "reader_vote_months_pkey", columns: [t.userId, t.month] }),
    check("reader_vote_months_nonnegative", sql`${t.spent} >= 0 and ${t.monthlyUsed} >= 0`),
  ],
);

/** One row per reader and China-time day a 推荐票 was cast: how many that day. */
export const readerVoteDays = pgTable(
  "reader_vote_days",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    recommendUsed: integer("recommend_used").notNull().default(0),
  },
  (t) => [primaryKey({ name: "reader_vote_days_pkey", columns: [t.userId, t.day] }), check("reader_vote_days_nonnegative", sql`${t.recommendUsed} >= 0`)],
);

/** Every cast: who, which work, 月票 or 推荐票, how many. */
export const workVotes = pgTable(
  "work_votes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["monthly", "recommend"] }).notNull(),
    count: integer("count").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("work_votes_kind", sql`${t.kind} in ('monthly', 'recommend')`),
    check("work_votes_count_positive", sql`${t.count} >= 1`),
    index("work_votes_work_created_idx").on(t.workId, t.createdAt),
    index("work_votes_user_created_idx").on(t.userId, t.createdAt),
  ],
);

/**
 * The rankings by 月票, 推荐票 and 打赏 (decision 222): a work's total per China-time day,
 * week (from Monday) and month, added in the cast's or the tip's transaction. A board
 * reads the (metric, period, start, total) index from its top.
 */
export const workRankingTallies = pgTable(
  "work_ranking_tallies",
  {
    metric: text("metric", { enum: ["monthly", "recommend", "tip"] }).notNull(),
    period: text("period", { enum: ["day", "week", "month"] }).notNull(),
    startsOn: date("starts_on").notNull(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    total: bigint("total", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "work_ranking_tallies_pkey", columns: [t.metric, t.period, t.startsOn, t.workId] }),
    check("work_ranking_tallies_metric", sql`${t.metric} in ('monthly', 'recommend', 'tip')`),
    check("work_ranking_tallies_period", sql`${t.period} in ('day', 'week', 'month')`),
    index("work_ranking_tallies_board_idx").on(t.metric, t.period, t.startsOn, t.total.desc(), t.workId),
  ],
);
