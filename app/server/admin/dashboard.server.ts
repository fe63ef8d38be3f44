import { sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { rowsOf } from "~/server/platform/db-utils.server";

/** The site's day starts at midnight in China, wherever the server runs. */
export const SITE_TIME_ZONE = "Asia/Shanghai";

export interface DashboardStats {
  users: number;
  works: { total: number; public: number; publicVip: number; private: number };
  today: { newUsers: number; purchases: number; purchaseCredits: number; generationTokens: number };
}

/**
 * docs/product.md: Back office: counts of profiles and of works by visibility, plus today's new users,
 * purchases and tokens spent on generation (from the token ledger), in one round trip.
 */
export async function getDashboardStats(): Promise<DashboardStats> {
  const result = await db.execute(sql`
    with today as (
      select (date_trunc('day', now() at time zone ${SITE_TIME_ZONE}) at time zone ${SITE_TIME_ZONE}) as start
    )
    select
      (select count(*) from profiles) as users,
      (select count(*) from works) as works_total,
      (select count(*) from works where visibility = 'public') as works_public,
      (select count(*) from works where visibility = 'public-vip') as works_public_vip,
      (select count(*) from works where visibility = 'private') as works_private,
      (select count(*) from profiles, today where profiles.created_at >= today.start) as new_users,
      (select count(*) from work_purchases, today where work_purchases.created_at >= today.start) as purchases,
      (select coalesce(sum(price), 0) from work_purchases, today where work_purchases.created_at >= today.start) as purchase_credits,
      (select coalesce(sum(-amount), 0) from token_transactions, today
        where token_transactions.type = 'generation' and token_transactions.created_at >= today.start) as generation_tokens`);
  const [row] = rowsOf<Record<string, string | number>>(result);
  const n = (key: string) => Number(row[key] ?? 0);
  return {
    users: n("users"),
    works: { total: n("works_total"), public: n("works_public"), publicVip: n("works_public_vip"), private: n("works_private") },
    today: {
      newUsers: n("new_users"),
      purchases: n("purchases"),
      purchaseCredits: n("purchase_credits"),
      generationTokens: n("generation_tokens"),
    },
  };
}

const CHART_DAYS = 30;

export interface DailySeries {
  /** The site's days (YYYY-MM-DD, China time), oldest first, today last. */
  days: string[];
  newUsers: number[];
  /** Credits topped up: paid payment orders (1 yuan = 1 credit) and redeemed codes. */
  topUps: number[];
  /** Credits spent on works and chapters. */
  purchases: number[];
  /** Tokens charged for generation. */
  tokensUsed: number[];
  /** Distinct signed-in readers who opened a chapter. */
  activeReaders: number[];
}

/**
 * The dashboard's charts (docs/product.md#back-office-dashboard): the last 30 site days in
 * one statement, each figure grouped by day from an index on its time column
 * (docs/benchmarks.md#dashboard-charts).
 */
export async function getDailySeries(): Promise<DailySeries> {
  const result = await db.execute(sql`
    with bounds as (
      select (date_trunc('day', now() at time zone ${SITE_TIME_ZONE}) - interval '${sql.raw(String(CHART_DAYS - 1))} days') as first_local
    ),
    start as (select first_local::date as first_day, first_local at time zone ${SITE_TIME_ZONE} as ts from bounds),
    days as (select (first_day + i)::date as day from start, generate_series(0, ${CHART_DAYS - 1}) as i),
    new_users as (
      select (p.created_at at time zone ${SITE_TIME_ZONE})::date as day, count(*) as n
      from profiles p, start where p.created_at >= start.ts group by 1
    ),
    top_ups as (
      select day, sum(n) as n from (
        select (o.paid_at at time zone ${SITE_TIME_ZONE})::date as day, sum(o.amount) as n
        from payment_orders o, start where o.status = 'paid' and o.paid_at >= start.ts group by 1
        union all
        select (c.used_at at time zone ${SITE_TIME_ZONE})::date, sum(c.amount)
        from redeem_codes c, start where c.status = 'used' and c.used_at >= start.ts group by 1
      ) t group by day
    ),
    purchases as (
      select day, sum(n) as n from (
        select (w.created_at at time zone ${SITE_TIME_ZONE})::date as day, sum(w.price) as n
        from work_purchases w, start where w.created_at >= start.ts group by 1
        union all
        select (c.created_at at time zone ${SITE_TIME_ZONE})::date, sum(c.price)
        from chapter_purchases c, start where c.created_at >= start.ts group by 1
      ) t group by day
    ),
    tokens as (
      select (t.created_at at time zone ${SITE_TIME_ZONE})::date as day, sum(-t.amount) as n
      from token_transactions t, start where t.type = 'generation' and t.created_at >= start.ts group by 1
    ),
    readers as (
      select r.day, count(distinct r.user_id) as n from chapter_reads r, start where r.day >= start.first_day group by r.day
    )
    select to_char(days.day, 'YYYY-MM-DD') as day,
      coalesce(new_users.n, 0) as new_users, coalesce(top_ups.n, 0) as top_ups, coalesce(purchases.n, 0) as purchases,
      coalesce(tokens.n, 0) as tokens, coalesce(readers.n, 0) as readers
    from days
    left join new_users using (day) left join top_ups using (day) left join purchases using (day)
    left join tokens using (day) left join readers using (day)
    order by days.day`);
  const rows = rowsOf<Record<string, string | number>>(result);
  const col = (key: string) => rows.map((r) => Number(r[key] ?? 0));
  return {
    days: rows.map((r) => String(r.day)),
    newUsers: col("new_users"),
    topUps: col("top_ups"),
    purchases: col("purchases"),
    tokensUsed: col("tokens"),
    activeReaders: col("readers"),
  };
}
