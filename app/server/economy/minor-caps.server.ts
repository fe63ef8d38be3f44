import { sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { minorSpending, paymentOrders } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { chinaMonth, getMinorSettings, isInMinorMode } from "~/server/identity/minor-mode.server";
import { MINOR_MESSAGES } from "~/schemas/minor-mode";

/**
 * 青少年模式's caps on money (docs/product.md#minor-mode, decision 218), checked inside the
 * transaction that moves the money, before its debit or order row:
 * - spending credits on a work, a chapter, 购买全部 or a tip: one spend at most the cap per
 *   payment; the month's spends (China time) at most the cap per month, counted in
 *   `minor_spending.spent` by one conditional upsert, which also locks the row, so spends
 *   at once are counted one after another and the one that would pass the cap is refused;
 * - a top-up (an epay order): the order's yuan at most the cap per payment; the month's
 *   paid and pending orders (refunded ones not) with it at most the cap per month, summed
 *   while the same row is held, so orders at once cannot pass it either.
 * A refusal is a DomainError (403) with the cap and what is left; the caller's transaction
 * rolls back, nothing written. Readers not in the mode pass untouched.
 */

export async function chargeMinorSpend(tx: Executor, userId: string, amount: number, inMinorMode?: boolean): Promise<void> {
  // `inMinorMode`: already read in `tx` by a caller that asked it with its other reads.
  if (amount <= 0 || !(inMinorMode ?? (await isInMinorMode(userId, tx)))) return;
  const caps = await getMinorSettings(tx);
  if (amount > caps.perPayment) throw new DomainError(MINOR_MESSAGES.perPayment(caps.perPayment), 403);
  const month = chinaMonth();
  const counted = rowsOf<{ spent: number }>(
    await tx.execute(sql`
      insert into ${minorSpending} (user_id, month, spent) values (${userId}, ${month}, ${amount})
      on conflict (user_id, month) do update set spent = ${minorSpending}.spent + excluded.spent, updated_at = now()
        where ${minorSpending}.spent + excluded.spent <= ${caps.perMonth}
      returning spent`),
  );
  if (counted.length === 1) return;
  const [row] = rowsOf<{ spent: number }>(
    await tx.execute(sql`select spent from ${minorSpending} where user_id = ${userId} and month = ${month}`),
  );
  throw new DomainError(MINOR_MESSAGES.perMonth(caps.perMonth, Math.max(0, caps.perMonth - Number(row?.spent ?? 0))), 403);
}

/** The yuan of the month's top-ups that count: pending and paid orders, not refunded ones. */
function monthTopUps(userId: string, month: string) {
  return sql`(select coalesce(sum(amount), 0)::bigint from ${paymentOrders}
    where user_id = ${userId} and status in ('pending', 'paid') and refunded_at is null
      and created_at >= (${month}::date::timestamp at time zone 'Asia/Shanghai'))`;
}

export async function checkMinorTopUp(tx: Executor, userId: string, amount: number): Promise<void> {
  if (!(await isInMinorMode(userId, tx))) return;
  const caps = await getMinorSettings(tx);
  if (amount > caps.perPayment) throw new DomainError(MINOR_MESSAGES.topUpPerPayment(caps.perPayment), 403, "amount");
  const month = chinaMonth();
  // The month's row, locked for the rest of the transaction.
  await tx.execute(sql`
    insert into ${minorSpending} (user_id, month) values (${userId}, ${month})
    on conflict (user_id, month) do update set updated_at = now()`);
  const [row] = rowsOf<{ total: number | string }>(await tx.execute(sql`select ${monthTopUps(userId, month)} as total`));
  const total = Number(row?.total ?? 0);
  if (total + amount > caps.perMonth) {
    throw new DomainError(MINOR_MESSAGES.topUpPerMonth(caps.perMonth, Math.max(0, caps.perMonth - total)), 403, "amount");
  }
}

/** This China-time month so far, for the reader's 青少年模式 page: credits spent, yuan of top-ups counted. */
export async function minorMonthSummary(userId: string): Promise<{ spent: number; toppedUp: number }> {
  const month = chinaMonth();
  const [row] = rowsOf<{ spent: number | string | null; topped_up: number | string | null }>(
    await db.execute(sql`select
      (select spent from ${minorSpending} where user_id = ${userId} and month = ${month}) as spent,
      ${monthTopUps(userId, month)} as topped_up`),
  );
  return { spent: Number(row?.spent ?? 0), toppedUp: Number(row?.topped_up ?? 0) };
}
