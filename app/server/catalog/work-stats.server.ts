import { sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { workStatsQueue } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";

/**
 * Each work's counts for the rankings, 热门 and the /works sorts (docs/decisions/122, 267):
 * favourites, buyers (of the work or of its chapters), credits spent over 7 and 30 days, and
 * the 7-day 热门 score. Never counted in a reader's request: every change to a counted row
 * queues its work (triggers, drizzle/0062), and every second the process that gets the row
 * lock of stats_refreshes (FOR UPDATE SKIP LOCKED) recounts the queued works
 * (refreshChangedWorkStats); the whole table is recounted when it is older than
 * STATS_MAX_AGE_MS (refreshWorkStats: what moves with time alone, the 7- and 30-day windows,
 * and a repair). Readers see the old counts until a refresh commits, never half of one.
 */
const STATS_MAX_AGE_MS = 60 * 60_000;
/**
 * The full recount's own statement timeout, above the app's (DATABASE_STATEMENT_TIMEOUT_MS, 30 s
 * by default): at issue 17's scale (30M favourites) it takes 16-24 s on a quiet 2-core
 * machine and over a minute on a saturated one (docs/benchmarks.md, bench:home); at ten times
 * that, minutes (bench:scale).
 * It runs in the background and blocks nobody: readers keep the old counts meanwhile.
 */
const REFRESH_STATEMENT_TIMEOUT = "10min";

/**
 * 热门 over the last 7 days: distinct readers (China-time days, chapter_reads), plus 3 for
 * each new follower and 5 for each buyer.
 */
const HOT_FOLLOWER = 3;
const HOT_BUYER = 5;

/**
 * The statement that recounts works' counts: every work's (ids null: the full recount, which
 * also empties the queue of changed works, decision 267) or those of `ids` only, written
 * where they changed, the rows of works with nothing left deleted.
 */
function recount(ids: number[] | null): SQL {
  const list = ids === null ? null : `{${ids.join(",")}}`;
  const also = (column: string) => (list === null ? sql`` : sql`and ${sql.raw(column)} = any(${list}::bigint[])`);
  const only = (column: string) => (list === null ? sql`` : sql`where ${sql.raw(column)} = any(${list}::bigint[])`);
  return sql`      with fav as (
        select work_id, count(*)::int as n,
               (count(*) filter (where created_at > now() - interval '7 days'))::int as n7
        from favorites ${only("work_id")} group by work_id
      ), pur as (
        -- Buyers: of the whole work or of any of its chapters, each reader once.
        select work_id, count(distinct user_id)::int as n,
               (count(distinct user_id) filter (where created_at > now() - interval '7 days'))::int as n7
        from (
          select work_id, user_id, created_at from work_purchases ${only("work_id")}
          union all
          select work_id, user_id, created_at from chapter_purchases ${only("work_id")}
        ) bought
        group by work_id
      ), spent as (
        -- Credits readers spent: what each sale charged (whole work, one chapter, or
        -- 购买全部 after its discount), as the author's income ledger records it.
        select work_id,
               coalesce(sum(gross) filter (where created_at > now() - interval '7 days'), 0)::bigint as c7,
               coalesce(sum(gross), 0)::bigint as c30
        from income_transactions
        where type = 'sale' and work_id is not null and created_at > now() - interval '30 days' ${also("work_id")}
        group by work_id
      ), rd as (
        select work_id, count(distinct user_id)::int as n
        from chapter_reads
        where day > (now() at time zone 'Asia/Shanghai')::date - 7 ${also("work_id")}
        group by work_id
      ), fresh as (
        select w.id as work_id,
               coalesce(fav.n, 0) as favorites,
               coalesce(pur.n, 0) as purchases,
               coalesce(spent.c7, 0) as credits_7d,
               coalesce(spent.c30, 0) as credits_30d,
               (coalesce(rd.n, 0) + ${HOT_FOLLOWER} * coalesce(fav.n7, 0) + ${HOT_BUYER} * coalesce(pur.n7, 0))::int as hot_7d
        from works w
        left join fav on fav.work_id = w.id
        left join pur on pur.work_id = w.id
        left join spent on spent.work_id = w.id
        left join rd on rd.work_id = w.id
        where (fav.work_id is not null or pur.work_id is not null or spent.work_id is not null or rd.work_id is not null) ${also("w.id")}
      ), written as (
        insert into work_stats (work_id, favorites, purchases, credits_7d, credits_30d, hot_7d)
        select work_id, favorites, purchases, credits_7d, credits_30d, hot_7d from fresh
        on conflict (work_id) do update set
          favorites = excluded.favorites, purchases = excluded.purchases,
          credits_7d = excluded.credits_7d, credits_30d = excluded.credits_30d, hot_7d = excluded.hot_7d
        where (work_stats.favorites, work_stats.purchases, work_stats.credits_7d, work_stats.credits_30d, work_stats.hot_7d)
          is distinct from (excluded.favorites, excluded.purchases, excluded.credits_7d, excluded.credits_30d, excluded.hot_7d)
        returning 1
      )${ids === null ? sql`, cleared as (delete from ${workStatsQueue} returning 1)` : sql``}
      delete from work_stats s where not exists (select 1 from fresh f where f.work_id = s.work_id) ${also("s.work_id")}`;
}

/**
 * Recomputes every work's counts if they are older than `maxAgeMs` (0: always), or if no
 * work has any while some work has followers or buyers (a fresh site, or one restored,
 * whose first counts would otherwise wait for the next full recount: 暂无上榜作品), and no other
 * process is doing it now. Returns whether this call recomputed them. Every process calls
 * it at start and every STATS_POLL_MS (app/server/jobs/stats-poller.server.ts): the empty case is done once, by whichever process
 * gets the row lock, since a refresh over a follower or a buyer leaves a row.
 */
export async function refreshWorkStats(maxAgeMs = STATS_MAX_AGE_MS): Promise<boolean> {
  const due = sql`
      refreshed_at is null or refreshed_at <= now() - make_interval(secs => ${maxAgeMs / 1000})
      or (not exists (select 1 from work_stats)
          and (exists (select 1 from favorites) or exists (select 1 from work_purchases) or exists (select 1 from chapter_purchases)))`;
  return db.transaction(async (tx) => {
    const claimed = await tx.execute(sql`select 1 from stats_refreshes where id = 1 and (${due}) for update skip locked`);
    if (rowsOf(claimed).length === 0) return false;
    // Asked again now that the row is ours, in a statement of its own (a fresh snapshot): a
    // claim that found the row just unlocked by a refresh that committed re-reads that row,
    // but its subqueries still saw the work_stats of before, and it counted a second time.
    if (rowsOf(await tx.execute(sql`select 1 from stats_refreshes where id = 1 and (${due})`)).length === 0) return false;
    await tx.execute(sql.raw(`set local statement_timeout = '${REFRESH_STATEMENT_TIMEOUT}'`));
    // One statement: the new counts of every work with any, written where they changed,
    // the rows of works that have none any more deleted, and the queue of changed works
    // emptied of what this count covers (the same snapshot: decision 267).
    await tx.execute(recount(null));
    await tx.execute(sql`update stats_refreshes set refreshed_at = now() where id = 1`);
    return true;
  });
}

/** Queue rows taken per transaction of the incremental refresh. */
const QUEUE_BATCH = 5_000;

/**
 * The incremental refresh (decision 267): recounts the works queued since the last refresh
 * (app/db/schema/discovery.ts, work_stats_queue, filled by triggers on every counted table),
 * a batch of queue rows per transaction, until the queue is empty. One process at a time, and
 * never during a full recount: it takes the same row lock of stats_refreshes (FOR UPDATE SKIP
 * LOCKED), so a recount never writes counts older than another's. The rows are taken in a
 * statement before the one that counts, so the count sees every change they stand for; a change
 * committed meanwhile has its own row, taken next time. Returns the number of works recounted.
 */
export async function refreshChangedWorkStats(batch = QUEUE_BATCH): Promise<number> {
  let recounted = 0;
  for (;;) {
    // A look without a lock first: most ticks find nothing, and a row lock is a write.
    const [waiting] = rowsOf<{ any: boolean }>(await db.execute(sql`select exists (select 1 from ${workStatsQueue}) as any`));
    if (!waiting.any) return recounted;
    const works = await db.transaction(async (tx) => {
      if (rowsOf(await tx.execute(sql`select 1 from stats_refreshes where id = 1 for update skip locked`)).length === 0) return null;
      const taken = rowsOf<{ work_id: string | number }>(
        await tx.execute(sql`
          delete from ${workStatsQueue} where id in (select id from ${workStatsQueue} order by id limit ${batch})
          returning work_id`),
      );
      const ids = [...new Set(taken.map((r) => Number(r.work_id)))].sort((a, b) => a - b);
      if (ids.length > 0) await tx.execute(recount(ids));
      return ids.length;
    });
    // Another process holds the lock: a full recount, or this same work in its hands.
    if (works === null) return recounted;
    recounted += works;
  }
}
