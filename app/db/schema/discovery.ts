import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, smallint, timestamp } from "drizzle-orm/pg-core";
import { works } from "./works";

/**
 * Each work's counts for rankings and sorting (docs/decisions/122): recomputed for every
 * work by one app process at a time, at least every 10 minutes
 * (app/server/catalog/work-stats.server.ts). A work without a row counts as all zeros.
 */
export const workStats = pgTable(
  "work_stats",
  {
    workId: bigint("work_id", { mode: "number" })
      .primaryKey()
      .references(() => works.id, { onDelete: "cascade" }),
    /** Followers (favourites) now. */
    favorites: integer("favorites").notNull().default(0),
    /** Buyers, ever. */
    purchases: integer("purchases").notNull().default(0),
    /** Credits readers spent on the work in the last 7 and 30 days (畅销). */
    credits7d: bigint("credits_7d", { mode: "number" }).notNull().default(0),
    credits30d: bigint("credits_30d", { mode: "number" }).notNull().default(0),
    /** 热门: distinct readers + 3 × new followers + 5 × buyers over the last 7 days. */
    hot7d: integer("hot_7d").notNull().default(0),
  },
  (t) => [
    index("work_stats_favorites_idx").on(t.favorites, t.workId),
    index("work_stats_purchases_idx").on(t.purchases, t.workId),
    index("work_stats_credits_7d_idx").on(t.credits7d, t.workId),
    index("work_stats_credits_30d_idx").on(t.credits30d, t.workId),
    index("work_stats_hot_idx").on(t.hot7d, t.workId),
  ],
);

/** One row (id 1): when work_stats were last recomputed. Its row lock elects the process. */
export const statsRefreshes = pgTable(
  "stats_refreshes",
  {
    id: smallint("id").primaryKey(),
    refreshedAt: timestamp("refreshed_at", { withTimezone: true }),
  },
  (t) => [check("stats_refreshes_one_row", sql`${t.id} = 1`)],
);

/**
 * Works whose counts changed since work_stats were last written (docs/decisions/267): a row
 * per statement and work, added by statement triggers on favorites, work_purchases,
 * chapter_purchases, income_transactions and chapter_reads (drizzle/0062), taken and
 * recounted every second by one process (refreshChangedWorkStats). No foreign key: a
 * deleted work's row is taken like any other and its counts dropped.
 */
export const workStatsQueue = pgTable("work_stats_queue", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  workId: bigint("work_id", { mode: "number" }).notNull(),
});
