import { and, eq, gt, gte, isNull, or, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { creditTransactions, credits, paymentOrders, profiles, redeemCodes, tokenTransactions, workPurchases, works } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError, domainErrorOf } from "~/server/platform/errors.server";
import { notifyUserChanged } from "~/server/platform/events.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { notifyWorkPurchased } from "~/server/community/notifications.server";
import { addFanValue } from "~/server/community/fans.server";
import { getEconomySettings } from "./economy-settings.server";
import { formatNumber } from "~/utils/format";
import { creditSale } from "./sale-income.server";
import { chargeMinorSpend } from "./minor-caps.server";
import { configInt, getSiteConfigValue } from "~/server/platform/site-config.server";

/**
 * Every change of a credits balance goes through this module (docs/product.md D1, D6): one
 * transaction that moves the balance with a conditional UPDATE (never read, compute,
 * write) and writes the ledger row beside it. The CHECK (balance >= 0) on `credits` is
 * the last line of defence. Purchase is here; redeem, token exchange, admin adjustment
 * and payment crediting belong beside it, built from `debit` and `credit` below.
 */

/** docs/product.md: Messages, purchase messages (and the gate's own refusals). */
export const LEDGER_MESSAGES = {
  insufficient: "积分余额不足",
  userMissing: "用户不存在",
  purchaseFailed: "购买失败，请重试",
  workMissing: "作品不存在",
  notForSale: "该作品不是付费作品，无需购买",
  ownWork: "不能购买自己的作品",
} as const;

export class LedgerError extends DomainError {}

export interface BalanceChange {
  /** The balance after the change. */
  balance: number;
}

/**
 * Takes `amount` (> 0) from the user's credits and records a consume row, inside `tx`.
 * Refuses with 积分余额不足 (nothing changed) when the balance is short, and with
 * 用户不存在 when the user has no credits account.
 */
export async function debit(tx: Executor, userId: string, amount: number, description: string): Promise<BalanceChange> {
  const { balance, ledgerRow } = await debitBalance(tx, userId, amount, description);
  await tx.execute(ledgerRow);
  return { balance };
}

/**
 * `debit`'s conditional UPDATE, with its consume row handed back as a statement that the
 * caller MUST run in the same `tx` (a tip sends it with its other statements at once,
 * sendInOrder, decision 240): the books balance only with it (`npm run check:ledger`).
 */
export async function debitBalance(tx: Executor, userId: string, amount: number, description: string): Promise<BalanceChange & { ledgerRow: SQL }> {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error(`debit: invalid amount ${amount}`);
  const [row] = await tx
    .update(credits)
    .set({ balance: sql`${credits.balance} - ${amount}`, updatedAt: new Date() })
    .where(and(eq(credits.userId, userId), gte(credits.balance, amount)))
    .returning({ balance: credits.balance });
  if (!row) {
    const [account] = await tx.select({ userId: credits.userId }).from(credits).where(eq(credits.userId, userId));
    throw account
      ? new LedgerError(LEDGER_MESSAGES.insufficient, 402)
      : new LedgerError(LEDGER_MESSAGES.userMissing, 404);
  }
  const ledgerRow = tx.insert(creditTransactions).values({ userId, amount, type: "consume", description }).getSQL();
  return { balance: Number(row.balance), ledgerRow };
}

/** Adds `amount` (> 0) to the user's credits and records a recharge row, inside `tx`. */
export async function credit(tx: Executor, userId: string, amount: number, description: string): Promise<BalanceChange> {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error(`credit: invalid amount ${amount}`);
  const [row] = await tx
    .update(credits)
    .set({ balance: sql`${credits.balance} + ${amount}`, updatedAt: new Date() })
    .where(eq(credits.userId, userId))
    .returning({ balance: credits.balance });
  if (!row) throw new LedgerError(LEDGER_MESSAGES.userMissing, 404);
  await tx.insert(creditTransactions).values({ userId, amount, type: "recharge", description });
  return { balance: Number(row.balance) };
}

export type PurchaseResult =
  | { status: "purchased"; price: number; balance: number }
  | { status: "already-purchased" };

/**
 * Buys a paid work for `userId`, in one transaction:
 * 1. lock the work row (FOR SHARE: its price and visibility cannot change under us) and
 *    check it is on sale (public-vip) and not the buyer's own;
 * 2. insert the purchase row; the unique (user, work) makes a second, concurrent purchase
 *    wait for the first and then find it, so it charges nothing;
 * 3. debit the price with a conditional UPDATE and write the consume row
 *    `购买作品《title》`, and pay the author's share into their income (docs/product.md D14);
 * 4. announce the change to the buyer's open pages on commit.
 * Any refusal throws a LedgerError and leaves nothing written. Buying a work already
 * bought succeeds without charging again.
 */
export async function purchaseWork(userId: string, workId: number): Promise<PurchaseResult> {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new LedgerError(LEDGER_MESSAGES.workMissing, 404);
  return db.transaction(async (tx) => {
    const [work] = await tx
      .select({ id: works.id, userId: works.userId, title: works.title, visibility: works.visibility, price: works.price, saleMode: works.saleMode })
      .from(works)
      .where(eq(works.id, workId))
      .for("share");
    // A private work is not revealed to anyone but its owner.
    if (!work || (work.visibility === "private" && work.userId !== userId)) {
      throw new LedgerError(LEDGER_MESSAGES.workMissing, 404);
    }
    if (work.userId === userId) throw new LedgerError(LEDGER_MESSAGES.ownWork, 403);
    if (work.visibility !== "public-vip" || work.price < 1 || work.saleMode !== "whole") {
      throw new LedgerError(LEDGER_MESSAGES.notForSale, 409);
    }

    const [account] = await tx.select({ userId: credits.userId }).from(credits).where(eq(credits.userId, userId));
    if (!account) throw new LedgerError(LEDGER_MESSAGES.userMissing, 404);

    const inserted = await tx
      .insert(workPurchases)
      .values({ userId, workId, price: work.price })
      .onConflictDoNothing({ target: [workPurchases.userId, workPurchases.workId] })
      .returning({ id: workPurchases.id });
    if (inserted.length === 0) return { status: "already-purchased" as const };

    await chargeMinorSpend(tx, userId, work.price);
    const { balance } = await debit(tx, userId, work.price, `购买作品《${work.title}》`);
    // The author's share, in the same transaction (docs/product.md D14).
    const settings = await getEconomySettings(tx);
    await creditSale(tx, work.userId, work.price, settings, { workId, chapterId: null, description: `《${work.title}》全本售出` });
    // 粉丝值: one per credit spent on the work (decision 207).
    await addFanValue(tx, userId, workId, work.price);
    await notifyUserChanged(userId, "purchases", tx);
    await notifyWorkPurchased(tx, { authorId: work.userId, buyerId: userId, workId });
    return { status: "purchased" as const, price: work.price, balance };
  });
}

const ADMIN_ADJUSTMENT_DESCRIPTION = "管理员调整";

export interface AdminAdjustment {
  previous: number;
  balance: number;
  /** Signed: what was added (positive) or taken (negative). */
  difference: number;
}

/** The most one adjustment may move (either way). */
const MAX_ADJUSTMENT = 1_000_000_000;

/**
 * An administrator adds to or takes from a user's credits (docs/product.md: Back office, users;
 * decision 137): `change` is signed and never 0, `reason` is required and becomes part of the
 * ledger row (管理员调整：reason). One transaction: lock the credits row, move the balance
 * through credit/debit (a fall below zero is refused with 积分余额不足 and changes nothing),
 * run `also` (the audit row) and announce the change on commit.
 */
export async function adjustCreditBalance(
  adminId: string,
  userId: string,
  change: number,
  reason: string,
  also?: (tx: Executor, adjustment: AdminAdjustment) => Promise<void>,
): Promise<AdminAdjustment> {
  if (!Number.isSafeInteger(change) || change === 0 || Math.abs(change) > MAX_ADJUSTMENT) {
    throw new LedgerError("请输入有效的调整数量（非零整数，如 +100 或 -50）", 400);
  }
  const why = reason.trim();
  if (!why) throw new LedgerError("请填写调整原因", 400);
  const description = `${ADMIN_ADJUSTMENT_DESCRIPTION}：${why}`;
  const result = await db.transaction(async (tx) => {
    const [account] = await tx
      .select({ balance: credits.balance })
      .from(credits)
      .where(eq(credits.userId, userId))
      .for("update");
    if (!account) throw new LedgerError(LEDGER_MESSAGES.userMissing, 404);
    const previous = Number(account.balance);
    const { balance } = change > 0 ? await credit(tx, userId, change, description) : await debit(tx, userId, -change, description);
    const adjustment = { previous, balance, difference: change };
    await also?.(tx, adjustment);
    await notifyUserChanged(userId, "balance", tx);
    return adjustment;
  });
  console.info(`admin ${adminId} adjusted the credits of ${userId}: ${result.previous} -> ${result.balance}`);
  return result;
}

// ---- Tokens of AI generation (docs/product.md D6, D7) ----------------------------------------
//
// A generation is charged in three moves, each one transaction with its ledger row:
// reserve the prompt's cost (the generation's token_transactions row is written here),
// hold output tokens as the text streams (the same row grows), and settle at the end:
// the row becomes exactly prompt cost + output cost and any unused hold goes back. If
// nothing was produced the whole reservation is refunded (a refund row beside it). The
// balance moves only by conditional UPDATEs, so it never drops below zero, even with two
// generations of one user at once; the row always equals what left the balance.

export const TOKEN_MESSAGES = {
  insufficient: "Tokens余额不足，请充值",
  deductFailed: "扣除Tokens失败",
  dailyCap: (cap: number) => `今日AI生成已达每日上限（${formatNumber(cap)} Tokens），请明天再试`,
} as const;

/** The site setting of the optional per-user daily cap on generation tokens (decision 125). */
export const DAILY_TOKEN_CAP_KEY = "daily_token_cap";

/** "Today" of the daily cap: the calendar day in China, where the site's users are. */
const AI_TODAY = sql`(now() at time zone 'Asia/Shanghai')::date`;
/** The cap as a number, or null when unset, 0 or not a whole number (no cap). */
const DAILY_CAP = sql`(select case when value ~ '^[0-9]{1,15}$' and value::bigint > 0 then value::bigint end from site_configs where key = ${DAILY_TOKEN_CAP_KEY})`;

/**
 * What generation may take from a profile now: the balance, or less when the daily cap
 * leaves less room today. An expression over `profiles` for the session lookup's hint.
 */
export const generationAllowance = sql`least(${profiles.tokens}, coalesce(${DAILY_CAP} - case when ${profiles.aiDay} = ${AI_TODAY} then ${profiles.aiDayTokens} else 0 end, ${profiles.tokens}))`;

/**
 * The user's profile row, locked, with what generation may still take from it: `avail`
 * is the balance, or less when the daily cap leaves less room today (`day_used` is what
 * today's generations took). Every statement below that moves tokens starts with it.
 */
function lockedForGeneration(userId: string) {
  return sql`p as (
        select tokens, case when ai_day = ${AI_TODAY} then ai_day_tokens else 0 end as day_used, ${DAILY_CAP} as cap
        from profiles where id = ${userId} for update
      ),
      locked as (
        select tokens, day_used, cap, greatest(least(tokens, coalesce(cap - day_used, tokens)), 0) as avail from p
      )`;
}

/** A generation's charge moves the day's count with the balance: `change` > 0 taken, < 0 returned. */
const dayColumns = (change: ReturnType<typeof sql>) =>
  sql`ai_day = ${AI_TODAY}, ai_day_tokens = greatest(locked.day_used + ${change}, 0)`;

export interface GenerationCharge {
  description: string;
  model: string;
  plotId: string | null;
  promptChars: number;
}

/** Why a reservation was refused: the balance, or the daily cap (with its value). */
async function refusal(tx: Executor, userId: string, wanted: number): Promise<LedgerError> {
  const [row] = rowsOf<{ avail_balance: number | string; cap: number | string | null; day_used: number | string }>(
    await tx.execute(sql`
      select tokens as avail_balance, ${DAILY_CAP} as cap, case when ai_day = ${AI_TODAY} then ai_day_tokens else 0 end as day_used
      from profiles where id = ${userId}`),
  );
  if (row && row.cap !== null && Number(row.avail_balance) >= wanted && Number(row.day_used) + wanted > Number(row.cap)) {
    return new LedgerError(TOKEN_MESSAGES.dailyCap(Number(row.cap)), 429);
  }
  return new LedgerError(TOKEN_MESSAGES.insufficient, 402);
}

/**
 * Takes the prompt's cost (`cost` > 0) and holds up to `hold` tokens more for the output
 * (what the balance and the daily cap leave beyond the cost), and writes the generation
 * row (amount -(cost + held)): one statement, so one round trip before the first byte.
 * Refuses with Tokens余额不足，请充值 unless the balance is at least `cost + keep`, or with
 * the daily cap's message when today's generations leave less room than that, changing
 * nothing. The balance is announced when the generation settles, not here.
 */
export async function reserveGenerationTokens(
  tx: Executor,
  userId: string,
  cost: number,
  charge: GenerationCharge,
  options: { keep?: number; hold?: number } = {},
): Promise<{ transactionId: number; balance: number; held: number }> {
  const keep = options.keep ?? 0;
  const hold = options.hold ?? 0;
  if (!Number.isSafeInteger(cost) || cost <= 0) throw new Error(`reserve: invalid cost ${cost}`);
  if (!Number.isSafeInteger(hold) || hold < 0) throw new Error(`reserve: invalid hold ${hold}`);
  const taken = sql`(${cost}::bigint + least(locked.avail - ${cost}::bigint, ${hold}::bigint))`;
  const [row] = rowsOf<{ transaction_id: number | string; held: number | string; balance: number | string }>(
    await tx.execute(sql`
      with ${lockedForGeneration(userId)},
      moved as (
        update profiles
        set tokens = locked.tokens - ${taken}, ${dayColumns(taken)}, updated_at = now()
        from locked
        where profiles.id = ${userId} and locked.avail >= ${cost + keep}::bigint
        returning ${taken} - ${cost}::bigint as held, profiles.tokens as balance
      ),
      entry as (
        insert into token_transactions (user_id, amount, type, description, prompt_chars, output_chars, model, plot_id)
        select ${userId}::uuid, -(${cost}::bigint + moved.held), 'generation', ${charge.description}, ${charge.promptChars}::int, 0, ${charge.model}, ${charge.plotId}
        from moved
        returning id
      )
      select entry.id as transaction_id, moved.held, moved.balance from entry, moved`),
  );
  if (!row) throw await refusal(tx, userId, cost + keep);
  return { transactionId: Number(row.transaction_id), balance: Number(row.balance), held: Number(row.held) };
}

/**
 * Holds up to `wanted` more tokens for a generation's output: takes min(wanted, what the
 * balance and the daily cap allow) and adds it to the generation row, in one statement.
 * Returns what was taken (0 when spent) and, when it is short, whether the cap was the limit.
 */
export async function holdGenerationTokens(
  tx: Executor,
  userId: string,
  transactionId: number,
  wanted: number,
): Promise<{ taken: number; balance: number; capped: boolean }> {
  if (!Number.isSafeInteger(wanted) || wanted <= 0) throw new Error(`hold: invalid amount ${wanted}`);
  const taken = sql`least(locked.avail, ${wanted}::bigint)`;
  const rows = rowsOf<{ taken: number | string; balance: number | string; capped: boolean }>(
    await tx.execute(sql`
      with ${lockedForGeneration(userId)},
      moved as (
        update profiles set tokens = locked.tokens - ${taken}, ${dayColumns(taken)}, updated_at = now()
        from locked where profiles.id = ${userId}
        returning ${taken} as taken, profiles.tokens as balance, locked.avail < locked.tokens as capped
      ),
      entry as (
        update token_transactions set amount = token_transactions.amount - moved.taken
        from moved
        where token_transactions.id = ${transactionId} and token_transactions.user_id = ${userId} and moved.taken > 0
        returning token_transactions.id
      )
      select taken, balance, capped from moved`),
  );
  if (rows.length === 0) throw new LedgerError(LEDGER_MESSAGES.userMissing, 404);
  return { taken: Number(rows[0].taken), balance: Number(rows[0].balance), capped: rows[0].capped === true };
}

async function lockGenerationRow(tx: Executor, userId: string, transactionId: number) {
  const [entry] = await tx
    .select({ amount: tokenTransactions.amount, plotId: tokenTransactions.plotId, model: tokenTransactions.model })
    .from(tokenTransactions)
    .where(and(eq(tokenTransactions.id, transactionId), eq(tokenTransactions.userId, userId), eq(tokenTransactions.type, "generation")))
    .for("update");
  if (!entry) throw new Error(`generation row ${transactionId} of ${userId} not found`);
  return { ...entry, held: -Number(entry.amount) };
}

/**
 * Moves `change` tokens between the balance and a generation (> 0 taken from the balance,
 * at most what the balance and the daily cap allow; < 0 returned), keeping the day's count
 * beside it. Returns what moved and the balance after.
 */
async function moveGenerationTokens(
  tx: Executor,
  userId: string,
  change: number,
): Promise<{ moved: number; balance: number; capped: boolean }> {
  const moved = change > 0 ? sql`least(locked.avail, ${change}::bigint)` : sql`${change}::bigint`;
  const [row] = rowsOf<{ moved: number | string; balance: number | string; capped: boolean }>(
    await tx.execute(sql`
      with ${lockedForGeneration(userId)}
      update profiles set tokens = locked.tokens - ${moved}, ${dayColumns(moved)}, updated_at = now()
      from locked where profiles.id = ${userId}
      returning ${moved} as moved, profiles.tokens as balance, locked.avail < locked.tokens as capped`),
  );
  if (!row) throw new LedgerError(LEDGER_MESSAGES.userMissing, 404);
  return { moved: Number(row.moved), balance: Number(row.balance), capped: row.capped === true };
}

/** What a generation is settled on (decision 125): the provider's usage, or the estimate. */
export interface GenerationSettlement {
  inputTokens: number;
  outputTokens: number;
  metering: "actual" | "estimate";
  outputChars: number;
}

/**
 * Ends a generation that produced output: the row becomes inputTokens + outputTokens.
 * The unused part of the hold returns; a reported usage beyond the hold takes the rest
 * from the balance, as far as the balance and the daily cap allow (it never goes below
 * zero: what they cannot cover is not charged). The row keeps the receipt.
 */
export async function settleGenerationTokens(
  tx: Executor,
  userId: string,
  transactionId: number,
  settlement: GenerationSettlement,
): Promise<{ charged: number; balance: number; uncovered: number; capped: boolean }> {
  const { inputTokens, outputTokens, metering, outputChars } = settlement;
  for (const n of [inputTokens, outputTokens, outputChars]) {
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`settle: invalid count ${n}`);
  }
  const entry = await lockGenerationRow(tx, userId, transactionId);
  const wanted = inputTokens + outputTokens;
  const { moved, balance, capped } = await moveGenerationTokens(tx, userId, wanted - entry.held);
  const final = entry.held + moved;
  await tx
    .update(tokenTransactions)
    .set({ amount: -final, outputChars, inputTokens, outputTokens, metering })
    .where(eq(tokenTransactions.id, transactionId));
  await notifyUserChanged(userId, "balance", tx);
  // What the balance or the daily cap (`capped`: the cap was the smaller) could not cover.
  return { charged: final, balance, uncovered: Math.max(wanted - final, 0), capped: capped && wanted > final };
}

/**
 * Ends a generation that produced nothing (or failed): everything held comes back. The
 * generation row keeps the prompt's reservation and a refund row returns it, so the
 * user's history shows the attempt and the refund, and the rows still sum to zero.
 */
export async function refundGenerationTokens(
  tx: Executor,
  userId: string,
  transactionId: number,
  reserved: number,
  description: string,
): Promise<{ balance: number }> {
  const entry = await lockGenerationRow(tx, userId, transactionId);
  const { balance } = await moveGenerationTokens(tx, userId, -entry.held);
  await tx.update(tokenTransactions).set({ amount: -reserved, outputChars: 0 }).where(eq(tokenTransactions.id, transactionId));
  await tx.insert(tokenTransactions).values({
    userId,
    amount: reserved,
    type: "refund",
    description,
    model: entry.model,
    plotId: entry.plotId,
  });
  await notifyUserChanged(userId, "balance", tx);
  return { balance };
}

// ---- Redeem codes, token exchange and online payment ----

const REDEEM_DESCRIPTION = "兑换码充值";
const EXCHANGE_DESCRIPTION = "兑换Tokens";
const PAYMENT_DESCRIPTION = "在线充值";

/** The messages a redeem attempt can end with (the old product's redeem_code rpc messages). @internal */
export const REDEEM_MESSAGES = {
  notFound: "兑换码不存在",
  used: "兑换码已被使用",
  voided: "兑换码已作废",
  expired: "兑换码已过期",
} as const;

export interface RedeemResult {
  /** Credits added. */
  amount: number;
  balance: number;
}

/**
 * Redeems a code for `userId`, in one transaction: a conditional UPDATE moves the code
 * from unused to used (`... where code = $1 and status = 'unused' returning`), so of any
 * number of concurrent attempts exactly one gets the row; its amount is credited with the
 * recharge row 兑换码充值; the user's open pages hear of it on commit. An unknown or used
 * code throws 兑换码不存在 / 兑换码已被使用 and changes nothing.
 */
export async function redeemCode(userId: string, code: string): Promise<RedeemResult> {
  return db.transaction(async (tx) => {
    const [used] = await tx
      .update(redeemCodes)
      .set({ status: "used", usedBy: userId, usedAt: sql`now()` })
      // Voided and expired codes do not redeem (docs/product.md#back-office-redeem-codes).
      .where(
        and(
          eq(redeemCodes.code, code),
          eq(redeemCodes.status, "unused"),
          isNull(redeemCodes.voidedAt),
          or(isNull(redeemCodes.expiresAt), gt(redeemCodes.expiresAt, sql`now()`)),
        ),
      )
      .returning({ amount: redeemCodes.amount });
    if (!used) {
      const [existing] = await tx.select({ status: redeemCodes.status, voidedAt: redeemCodes.voidedAt }).from(redeemCodes).where(eq(redeemCodes.code, code));
      if (!existing) throw new LedgerError(REDEEM_MESSAGES.notFound, 404, "code");
      if (existing.status === "used") throw new LedgerError(REDEEM_MESSAGES.used, 409, "code");
      throw new LedgerError(existing.voidedAt ? REDEEM_MESSAGES.voided : REDEEM_MESSAGES.expired, 409, "code");
    }
    const { balance } = await credit(tx, userId, used.amount, REDEEM_DESCRIPTION);
    await notifyUserChanged(userId, "balance", tx);
    return { amount: used.amount, balance };
  });
}

/** docs/product.md: Messages, token exchange. */
export const EXCHANGE_MESSAGES = {
  amount: "请输入有效的兑换数量（至少1积分的整数）",
  debitFailed: "扣除积分失败",
  tokensFailed: "增加Tokens失败",
  recordFailed: "交易记录失败",
  failed: "兑换失败，请重试",
  badRatio: "积分兑换比例配置有误，请联系管理员",
} as const;

/** The default of credits_to_tokens_ratio (docs/product.md: Constants). */
const DEFAULT_CREDITS_TO_TOKENS_RATIO = 100;

/**
 * A step of the exchange that failed unexpectedly (logged where it failed), told to the
 * user by its step's name with 500 (decision 182). @internal
 */
export class ExchangeStepError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 500);
    this.name = "ExchangeStepError";
    if (options) this.cause = options.cause;
  }
}

async function exchangeStep<T>(message: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    // A DomainError, or a write refused for lack of space (存储空间不足), as it is.
    const known = domainErrorOf(error);
    if (known) throw known;
    console.error("token exchange failed", message, error);
    throw new ExchangeStepError(message, { cause: error });
  }
}

export interface ExchangeResult {
  /** Credits spent and tokens received. */
  credits: number;
  tokens: number;
  /** Balances after the exchange. */
  balance: number;
  tokenBalance: number;
}

/** The configured credits_to_tokens_ratio (tokens per credit), or the default when unset. */
export async function creditsToTokensRatio(): Promise<number> {
  return configInt(await getSiteConfigValue("credits_to_tokens_ratio"), DEFAULT_CREDITS_TO_TOKENS_RATIO);
}

/**
 * Exchanges `amount` credits (a whole number from 1 to the balance) for amount x
 * credits_to_tokens_ratio tokens, in one transaction: the conditional debit with its
 * consume row 兑换Tokens, the token balance raised, the token ledger's exchange row, and
 * the live update on commit. A short balance throws 积分余额不足 and changes nothing; an
 * unexpected failure names its step (扣除积分失败, 增加Tokens失败, 交易记录失败).
 */
export async function exchangeCreditsForTokens(userId: string, amount: number, record?: RecordResult): Promise<ExchangeResult> {
  if (!Number.isSafeInteger(amount) || amount < 1) throw new LedgerError(EXCHANGE_MESSAGES.amount, 400, "amount");
  const ratio = await creditsToTokensRatio();
  const tokens = amount * ratio;
  if (ratio < 1 || !Number.isSafeInteger(tokens)) throw new LedgerError(EXCHANGE_MESSAGES.badRatio, 409);
  return db.transaction(async (tx) => {
    const { balance } = await exchangeStep(EXCHANGE_MESSAGES.debitFailed, () =>
      debit(tx, userId, amount, EXCHANGE_DESCRIPTION),
    );
    const [profile] = await exchangeStep(EXCHANGE_MESSAGES.tokensFailed, () =>
      tx
        .update(profiles)
        .set({ tokens: sql`${profiles.tokens} + ${tokens}`, updatedAt: new Date() })
        .where(eq(profiles.id, userId))
        .returning({ tokens: profiles.tokens }),
    );
    if (!profile) throw new LedgerError(LEDGER_MESSAGES.userMissing, 404);
    const [row] = await exchangeStep(EXCHANGE_MESSAGES.recordFailed, () =>
      tx.insert(tokenTransactions).values({ userId, amount: tokens, type: "exchange", description: `${amount}积分兑换` }).returning({ id: tokenTransactions.id }),
    );
    // The form's one-time token, so a replay of the form exchanges once (decision 077).
    await record?.(tx, row.id);
    await notifyUserChanged(userId, "balance", tx);
    return { credits: amount, tokens, balance, tokenBalance: Number(profile.tokens) };
  });
}

export type PaymentCreditResult =
  | { status: "credited"; userId: string; amount: number; balance: number }
  | { status: "already-paid" }
  | { status: "unknown-order" }
  | { status: "amount-mismatch" };

/**
 * Who credits an order (decision 136): the gateway's notify, an administrator's 查单 that
 * found it paid at the gateway, or an administrator's 补单 with a reason. All three take
 * the same path below, so whichever comes first credits and the others credit nothing.
 */
export type PaymentCreditSource =
  | { via: "notify" }
  | { via: "query"; adminId: string | null }
  | { via: "manual"; adminId: string | null; reason: string };

/**
 * Credits a paid order exactly once (docs/product.md D6), in one transaction: a conditional
 * UPDATE moves the order from pending to paid, only when the amount the gateway reports
 * (`paidCents`, whole cents) equals the order's; it must change exactly one row, and only
 * then are the credits added with the recharge row 在线充值 (补单 for a manual credit),
 * `also` runs (the audit row) and the live update is sent on commit. Of any number of
 * concurrent or repeated notifies, 查单 and 补单 one changes the row; the others find it
 * paid and credit nothing. The caller has already verified the signature (or is an
 * administrator).
 */
export async function creditPaymentOrder(
  outTradeNo: string,
  paidCents: number,
  tradeNo: string | null,
  source: PaymentCreditSource = { via: "notify" },
  also?: (tx: Executor) => Promise<void>,
): Promise<PaymentCreditResult> {
  if (!Number.isSafeInteger(paidCents) || paidCents <= 0) return { status: "amount-mismatch" };
  return db.transaction(async (tx) => {
    const updated = await tx
      .update(paymentOrders)
      .set({
        status: "paid",
        paidAt: sql`now()`,
        tradeNo,
        creditedVia: source.via,
        creditedBy: source.via === "notify" ? null : source.adminId,
        creditNote: source.via === "manual" ? source.reason : null,
      })
      .where(
        and(
          eq(paymentOrders.outTradeNo, outTradeNo),
          eq(paymentOrders.status, "pending"),
          sql`${paymentOrders.amount}::bigint * 100 = ${paidCents}`,
        ),
      )
      .returning({ userId: paymentOrders.userId, amount: paymentOrders.amount });
    if (updated.length > 1) throw new Error(`payment order ${outTradeNo}: ${updated.length} rows marked paid`);
    if (updated.length === 1) {
      const [order] = updated;
      const description = source.via === "manual" ? MANUAL_PAYMENT_DESCRIPTION : PAYMENT_DESCRIPTION;
      const { balance } = await credit(tx, order.userId, order.amount, description);
      await also?.(tx);
      await notifyUserChanged(order.userId, "balance", tx);
      return { status: "credited" as const, userId: order.userId, amount: order.amount, balance };
    }
    const [order] = await tx
      .select({ status: paymentOrders.status, amount: paymentOrders.amount })
      .from(paymentOrders)
      .where(eq(paymentOrders.outTradeNo, outTradeNo));
    if (!order) return { status: "unknown-order" as const };
    if (order.amount * 100 !== paidCents) return { status: "amount-mismatch" as const };
    // Pending with the right amount cannot be seen here (the UPDATE would have taken it).
    return order.status === "paid" ? { status: "already-paid" as const } : { status: "unknown-order" as const };
  });
}

/** The ledger row of an order credited by hand (补单). */
const MANUAL_PAYMENT_DESCRIPTION = "在线充值（补单）";

export type PaymentRefundResult = { status: "refunded"; userId: string; amount: number; balance: number };

/**
 * Refunds a paid order's credits (decision 136): only credits not yet spent, so the user's
 * balance must still hold the order's amount (积分余额不足，无法退款 otherwise, nothing
 * changed); the money itself goes back through the gateway's own dashboard, outside the
 * site. One transaction: a conditional UPDATE marks the order refunded exactly once, the
 * debit writes the ledger row 充值退款：reason, `also` writes the audit row.
 */
export async function refundPaymentOrder(
  adminId: string | null,
  outTradeNo: string,
  reason: string,
  also?: (tx: Executor, refund: PaymentRefundResult) => Promise<void>,
): Promise<PaymentRefundResult> {
  const why = reason.trim();
  if (!why) throw new LedgerError("请填写退款原因", 400);
  return db.transaction(async (tx) => {
    const [order] = await tx
      .update(paymentOrders)
      .set({ refundedAt: sql`now()`, refundedBy: adminId, refundReason: why })
      .where(and(eq(paymentOrders.outTradeNo, outTradeNo), eq(paymentOrders.status, "paid"), isNull(paymentOrders.refundedAt)))
      .returning({ userId: paymentOrders.userId, amount: paymentOrders.amount });
    if (!order) {
      const [existing] = await tx
        .select({ status: paymentOrders.status, refundedAt: paymentOrders.refundedAt })
        .from(paymentOrders)
        .where(eq(paymentOrders.outTradeNo, outTradeNo));
      if (!existing) throw new LedgerError("订单不存在", 404);
      throw new LedgerError(existing.refundedAt ? "该订单已退款" : "只有已支付的订单可以退款", 409);
    }
    let balance: number;
    try {
      ({ balance } = await debit(tx, order.userId, order.amount, `${REFUND_DESCRIPTION}：${why}`));
    } catch (error) {
      if (error instanceof LedgerError && error.status === 402) throw new LedgerError("积分余额不足，无法退款（用户已使用了这笔充值的积分）", 409);
      throw error;
    }
    const refund = { status: "refunded" as const, userId: order.userId, amount: order.amount, balance };
    await also?.(tx, refund);
    await notifyUserChanged(order.userId, "balance", tx);
    return refund;
  });
}

const REFUND_DESCRIPTION = "充值退款";
