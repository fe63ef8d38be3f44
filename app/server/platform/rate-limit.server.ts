import { sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { rowsOf } from "./db-utils.server";

export interface RateLimitRule {
  /** Attempts allowed per window. */
  limit: number;
  windowSeconds: number;
}

/**
 * Counts one attempt against `key` and says whether it is still within the limit.
 * The counter is a single atomic upsert in the database, so the limit holds across
 * every app process. A window that has passed starts again at 1.
 */
export async function hitRateLimit(key: string, rule: RateLimitRule): Promise<boolean> {
  const interval = `${rule.windowSeconds} seconds`;
  const result = await db.execute(sql`
    insert into rate_limits (key, window_start, count) values (${key}, now(), 1)
    on conflict (key) do update set
      count = case when rate_limits.window_start <= now() - ${interval}::interval
                   then 1 else rate_limits.count + 1 end,
      window_start = case when rate_limits.window_start <= now() - ${interval}::interval
                   then now() else rate_limits.window_start end
    returning count`);
  const [row] = rowsOf<{ count: number | string }>(result);
  return Number(row.count) <= rule.limit;
}

/** Forget a key's attempts (after a successful login, the e-mail's failures no longer count). */
export async function resetRateLimit(key: string): Promise<void> {
  await db.execute(sql`delete from rate_limits where key = ${key}`);
}
