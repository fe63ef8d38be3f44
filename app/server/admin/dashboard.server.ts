import { sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { rowsOf } from "../db-utils.server";

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
