import { sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { admins, type authorIdentities, type reviewItems } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";

/**
 * The claims of the back office's queues (the chapters' review, decision 196; 实名审核,
 * decision 204): a pending row, oldest first, held by one admin for CLAIM_MINUTES.
 */

const CLAIM_MINUTES = 30;

type QueueTable = typeof reviewItems | typeof authorIdentities;

/** A claim still held: claimed less than CLAIM_MINUTES ago. */
export function heldClaimSql(table: QueueTable) {
  return sql`${table.claimedBy} is not null and ${table.claimedAt} > now() - make_interval(mins => ${CLAIM_MINUTES})`;
}

/** A row this admin may claim: nobody holds it, they do, or the claim has lapsed. */
function claimableBy(adminId: string) {
  return sql`(claimed_by is null or claimed_by = ${adminId} or claimed_at <= now() - make_interval(mins => ${CLAIM_MINUTES}))`;
}

/**
 * What an item's page shows of its claim and decision: who holds it (the id, whether the
 * claim is still live, the e-mail) and who decided it.
 */
export function claimFacts(table: QueueTable) {
  return {
    claimedBy: table.claimedBy,
    held: sql<boolean>`${heldClaimSql(table)}`,
    claimer: sql<string | null>`(select email from ${admins} a where a.id = ${table.claimedBy})`,
    decidedBy: sql<string | null>`(select email from ${admins} a where a.id = ${table.decidedBy})`,
  };
}

/**
 * Claims the oldest pending row nobody holds (or the one this admin holds already); null
 * when none waits. The row is locked with SKIP LOCKED: an admin claiming at the same moment
 * in another process takes the next one.
 */
export async function claimNextPending(
  table: QueueTable,
  adminId: string,
  /** A further condition on the rows this admin may take (the review queue's appeals, decision 206). */
  only: SQL = sql`true`,
): Promise<number | null> {
  const rows = rowsOf<{ id: string | number }>(
    await db.execute(sql`
      update ${table} set claimed_by = ${adminId}, claimed_at = now()
      where id = (
        select id from ${table}
        where status = 'pending' and ${only}
          and ${claimableBy(adminId)}
        order by (claimed_by is not distinct from ${adminId}) desc, submitted_at, id
        limit 1
        for update skip locked)
      returning id`),
  );
  return rows[0] ? Number(rows[0].id) : null;
}

/**
 * Claims row `id` from its page when it is pending, matches `only` and this admin may claim
 * it; false when it may not (the caller says why). One conditional update, so of two admins
 * claiming at once in any processes one gets it.
 */
export async function claimPendingRow(table: QueueTable, adminId: string, id: number, only: SQL = sql`true`): Promise<boolean> {
  const rows = rowsOf<{ id: string | number }>(
    await db.execute(sql`
      update ${table} set claimed_by = ${adminId}, claimed_at = now()
      where id = ${id} and status = 'pending' and ${only} and ${claimableBy(adminId)}
      returning id`),
  );
  return rows.length > 0;
}
