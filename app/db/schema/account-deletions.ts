import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/** What happens to a deleted author's works (decision 231): 下架 (taken down) or 保留 under 已注销用户. */
export const DELETION_WORK_CHOICES = ["take_down", "keep"] as const;
export type DeletionWorkChoice = (typeof DELETION_WORK_CHOICES)[number];

/**
 * 注销账号 (docs/product.md#account-deletion, decision 231): one row per person who asked.
 * While `deletedAt` is null the request waits out its 15-day cool-off (the account works;
 * 撤销 deletes the row); once `dueAt` passes, the account-deletion job erases the personal
 * data and sets `deletedAt` in the same transaction, so it happens exactly once. The row
 * then stays as the record that this id is an anonymous, closed account.
 */
export const accountDeletions = pgTable(
  "account_deletions",
  {
    userId: uuid("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    dueAt: timestamp("due_at", { withTimezone: true }).notNull(),
    works: text("works", { enum: DELETION_WORK_CHOICES }).notNull(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    check("account_deletions_works", sql`${t.works} in ('take_down', 'keep')`),
    check("account_deletions_due_after_request", sql`${t.dueAt} > ${t.requestedAt}`),
    // The job's claim: requests whose cool-off ended and that are not carried out yet.
    index("account_deletions_due_idx").on(t.dueAt).where(sql`${t.deletedAt} is null`),
  ],
);
