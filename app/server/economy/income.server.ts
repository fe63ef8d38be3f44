import { and, desc, eq, gte, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { authorIncome, incomeTransactions, payoutRequests, profiles, type PayoutStatus } from "~/db/schema";
import { chapterNumberSql } from "~/server/catalog/chapter-numbers.server";
import { escapeLike, rowsOf } from "~/server/platform/db-utils.server";
import { getEconomySettings } from "./economy-settings.server";
import { DomainError } from "~/server/platform/errors.server";
import { notifyUserChanged } from "~/server/platform/events.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { credit } from "./ledger.server";
import { notifyPayoutSettled } from "~/server/community/notifications.server";
import { STATS_DAYS } from "~/schemas/studio";
import { chapterDisplayTitle } from "~/utils/chapter-title";
import { pageWithin } from "~/utils/pagination";
import { shanghaiDayStart, shanghaiDaysEnding } from "~/utils/shanghai-time";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { requireVerifiedIdentity, sameLegalName } from "~/server/identity/author-identity.server";
import { currentPayoutAccount, openPayoutAccount } from "~/server/identity/payout-accounts.server";
import { PAYOUT_ACCOUNT_KIND_LABELS, PAYOUT_ACCOUNT_MESSAGES } from "~/schemas/payout-account";
import { formatFen } from "~/utils/format";
import { withholdPayoutTax } from "./payout-statements.server";

/**
 * An author's income (docs/product.md#author-income, D14): a balance apart from credits.
 * Every move is a conditional UPDATE of author_income with its income_transactions row in
 * the same transaction, so `balance` and `held` are always the sums of their ledger
 * (`npm run check:ledger` checks it) and neither goes below zero (CHECKs as the last line).
 */

/** @internal */
export const INCOME_MESSAGES = {
  amount: "请输入有效的金额（正整数）",
  belowMinimum: (min: number) => `提现金额不能低于 ${min}`,
  insufficient: "收入余额不足",
  payoutMissing: "提现申请不存在",
  payoutSettled: "该提现申请已处理",
  reference: "请填写付款凭证号（1-200字）",
  reason: "拒绝理由不能超过200字",
} as const;

function wholeAmount(value: unknown): number {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new DomainError(INCOME_MESSAGES.amount, 400, "amount");
  return n;
}

/** Takes `amount` from the available income (conditional: never below zero) and writes its row. */
async function takeIncome(tx: Executor, userId: string, amount: number, hold: boolean) {
  const [row] = await tx
    .update(authorIncome)
    .set({
      balance: sql`${authorIncome.balance} - ${amount}`,
      held: hold ? sql`${authorIncome.held} + ${amount}` : authorIncome.held,
      updatedAt: new Date(),
    })
    .where(and(eq(authorIncome.userId, userId), gte(authorIncome.balance, amount)))
    .returning({ balance: authorIncome.balance });
  if (!row) throw new DomainError(INCOME_MESSAGES.insufficient, 402, "amount");
  return Number(row.balance);
}

/**
 * 提现申请: at least the site's minimum, at most the available income, which it holds
 * until an administrator settles it, paid to the author's saved 收款账户 (decision 210), whose
 * holder must be the verified name while 实名认证 is required (decision 205). Two requests at
 * once cannot both take the same income: the UPDATE is conditional on the balance. Every
 * refusal comes before the income is held: nothing is half-written.
 */
export async function requestPayout(userId: string, amountInput: unknown, record?: RecordResult): Promise<{ id: number; balance: number }> {
  const amount = wholeAmount(amountInput);
  const settings = await getEconomySettings();
  if (amount < settings.payoutMinimum) throw new DomainError(INCOME_MESSAGES.belowMinimum(settings.payoutMinimum), 400, "amount");
  return db.transaction(async (tx) => {
    const verifiedName = await requireVerifiedIdentity(tx, userId, "payout");
    const account = await currentPayoutAccount(userId, tx);
    if (!account) throw new DomainError(PAYOUT_ACCOUNT_MESSAGES.none, 400, "account");
    const opened = await openPayoutAccount(tx, account.id);
    if (!opened) throw new DomainError(PAYOUT_ACCOUNT_MESSAGES.none, 400, "account");
    if (verifiedName !== null && !sameLegalName(opened.holderName, verifiedName)) {
      throw new DomainError(PAYOUT_ACCOUNT_MESSAGES.holderMismatch, 400, "account");
    }
    const payee = [PAYOUT_ACCOUNT_KIND_LABELS[account.kind], account.bankName, account.accountMasked].filter(Boolean).join(" ");
    const balance = await takeIncome(tx, userId, amount, true);
    const [request] = await tx
      .insert(payoutRequests)
      .values({ userId, amount, payee, payeeName: opened.holderName, accountId: account.id })
      .returning({ id: payoutRequests.id });
    await tx.insert(incomeTransactions).values({
      userId,
      type: "payout_request",
      amount: -amount,
      heldChange: amount,
      payoutId: request.id,
      description: `提现申请 #${request.id}`,
    });
    await notifyUserChanged(userId, "income", tx);
    // The form's one-time token, so a replay of the form asks once (decision 077).
    await record?.(tx, request.id);
    return { id: request.id, balance };
  });
}

/**
 * An administrator settles a pending payout: `paid` (with the payment's reference) ends the
 * hold; `refused` returns the held amount to the author's income. Only a pending request
 * moves (the UPDATE is conditional), so two administrators cannot settle it twice.
 */
export async function settlePayout(
  actor: AdminActor,
  payoutId: number,
  outcome: "paid" | "refused",
  referenceInput: unknown,
  /** When it is settled: the China-time month the tax counts in (a test's month boundary). */
  now = new Date(),
): Promise<void> {
  if (!Number.isSafeInteger(payoutId) || payoutId <= 0) throw new DomainError(INCOME_MESSAGES.payoutMissing, 404);
  const reference = typeof referenceInput === "string" ? referenceInput.trim() : "";
  if (outcome === "paid" && (reference.length < 1 || reference.length > 200)) throw new DomainError(INCOME_MESSAGES.reference, 400, "reference");
  if (outcome === "refused" && reference.length > 200) throw new DomainError(INCOME_MESSAGES.reason, 400, "reference");
  await db.transaction(async (tx) => {
    const [settled] = await tx
      .update(payoutRequests)
      .set({ status: outcome, reference: reference || null, settledBy: actor.admin.id, settledAt: now })
      .where(and(eq(payoutRequests.id, payoutId), eq(payoutRequests.status, "pending")))
      .returning({ userId: payoutRequests.userId, amount: payoutRequests.amount });
    if (!settled) {
      const [exists] = await tx.select({ id: payoutRequests.id }).from(payoutRequests).where(eq(payoutRequests.id, payoutId));
      throw exists ? new DomainError(INCOME_MESSAGES.payoutSettled, 409) : new DomainError(INCOME_MESSAGES.payoutMissing, 404);
    }
    const amount = Number(settled.amount);
    const release = outcome === "refused" ? amount : 0;
    const [row] = await tx
      .update(authorIncome)
      .set({ held: sql`${authorIncome.held} - ${amount}`, balance: sql`${authorIncome.balance} + ${release}`, updatedAt: new Date() })
      .where(and(eq(authorIncome.userId, settled.userId), gte(authorIncome.held, amount)))
      .returning({ userId: authorIncome.userId });
    if (!row) throw new Error(`payout ${payoutId}: the author's held income is below the request`);
    // Paid: the statement (gross, tax withheld, net) in this transaction, after the author's
    // income row is locked above, so two settlements of one author take turns (decision 209).
    const statement = outcome === "paid" ? await withholdPayoutTax(tx, { id: payoutId, userId: settled.userId, amount }, now) : null;
    const taxLine = statement ? `代扣个税 ${formatFen(statement.taxFen)} 元，实发 ${formatFen(statement.netFen)} 元` : "";
    await tx.insert(incomeTransactions).values({
      userId: settled.userId,
      type: outcome === "paid" ? "payout_paid" : "payout_refused",
      amount: release,
      heldChange: -amount,
      payoutId,
      description: outcome === "paid" ? `提现已支付 #${payoutId}（凭证 ${reference}；${taxLine}）` : `提现被拒绝 #${payoutId}，已退回收入${reference ? `：${reference}` : ""}`,
    });
    await notifyUserChanged(settled.userId, "income", tx);
    // The author hears of it in the inbox (docs/product.md#notifications).
    await notifyPayoutSettled(tx, { userId: settled.userId, payoutId, amount, outcome, reference, detail: taxLine });
    await recordAdminAction(tx, actor, {
      action: outcome === "paid" ? "payout.paid" : "payout.refused",
      targetType: "payout",
      targetId: payoutId,
      before: { status: "pending" },
      after: { status: outcome, amount, userId: settled.userId },
      reason: reference || null,
    });
  });
}

/** 收入转积分: moves income into the author's credits 1:1, both ledgers in one transaction. */
export async function convertIncomeToCredits(userId: string, amountInput: unknown): Promise<{ income: number; credits: number }> {
  const amount = wholeAmount(amountInput);
  return db.transaction(async (tx) => {
    const income = await takeIncome(tx, userId, amount, false);
    await tx.insert(incomeTransactions).values({ userId, type: "convert", amount: -amount, description: "收入转积分" });
    const { balance } = await credit(tx, userId, amount, "收入转积分");
    await notifyUserChanged(userId, "income", tx);
    await notifyUserChanged(userId, "balance", tx);
    return { income, credits: balance };
  });
}

/** @internal */
export async function incomeBalance(userId: string, executor: Executor = db): Promise<{ balance: number; held: number }> {
  const [row] = await executor
    .select({ balance: authorIncome.balance, held: authorIncome.held })
    .from(authorIncome)
    .where(eq(authorIncome.userId, userId));
  return { balance: Number(row?.balance ?? 0), held: Number(row?.held ?? 0) };
}

/** The days the sales figures cover: the studio statistics' 30 China-time days. */
const SALES_DAYS = STATS_DAYS;

/** When the first of the SALES_DAYS China-time days ending `now` began. */
const salesSince = (now: Date) => shanghaiDayStart(shanghaiDaysEnding(now, SALES_DAYS)[0]);

/** One China-time day's sales of an author (one work, or all of them). */
interface SalesDay {
  /** "2026-12-01", China time. */
  day: string;
  /** 销售笔数: sales (a chapter, a 购买全部, a whole work: one each). */
  sales: number;
  /** 读者支付: what readers paid, discounts applied. */
  gross: number;
  /** 我的收入 / 收入积分: the author's share. */
  income: number;
}

export interface SalesByDay {
  /** Every day of the window, oldest first, zeros included. */
  days: SalesDay[];
  totals: Omit<SalesDay, "day">;
}

/**
 * An author's sales by China-time day over the last SALES_DAYS days, for one work or for
 * all: the one query behind both 数据统计 (/works/:id/stats) and 我的收入 (/income), so the
 * two pages cannot disagree (docs/product.md#author-income). It reads the income ledger's
 * sale rows, which every kind of sale writes (a chapter, 购买全部, a whole work; docs/product.md D14).
 */
export async function salesByDay(authorId: string, options: { workId?: number; now?: Date } = {}): Promise<SalesByDay> {
  const dayList = shanghaiDaysEnding(options.now ?? new Date(), SALES_DAYS);
  const since = salesSince(options.now ?? new Date());
  const rows = rowsOf<{ day: string; sales: number; gross: string | number; income: string | number }>(
    await db.execute(sql`
      select to_char((created_at at time zone 'UTC') + interval '8 hours', 'YYYY-MM-DD') as day,
             count(*)::int as sales, coalesce(sum(gross), 0)::bigint as gross, coalesce(sum(amount), 0)::bigint as income
      from ${incomeTransactions}
      where user_id = ${authorId} and type = 'sale' and created_at >= ${since.toISOString()}::timestamptz
        ${options.workId === undefined ? sql`` : sql`and work_id = ${options.workId}`}
      group by 1`),
  );
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days = dayList.map((day) => {
    const r = byDay.get(day);
    return { day, sales: Number(r?.sales ?? 0), gross: Number(r?.gross ?? 0), income: Number(r?.income ?? 0) };
  });
  const totals = days.reduce((t, d) => ({ sales: t.sales + d.sales, gross: t.gross + d.gross, income: t.income + d.income }), { sales: 0, gross: 0, income: 0 });
  return { days, totals };
}

/** @internal */
export const INCOME_LEDGER_PAGE = 50;

/**
 * The 收入 page: balance, income by work (sales and tips, all time and the last 30 days), by chapter
 * (the best-selling chapters), by day (the last 30 days), one page of the ledger (newest
 * first, INCOME_LEDGER_PAGE rows; a page past the end shows the last) and the author's
 * payout requests.
 */
export async function incomeOverview(userId: string, ledgerPage = 1, now = new Date()) {
  const [{ ledgerTotal }] = await db
    .select({ ledgerTotal: sql<number>`count(*)::int` })
    .from(incomeTransactions)
    .where(eq(incomeTransactions.userId, userId));
  const { page: currentLedgerPage, pageCount: ledgerPageCount } = pageWithin(ledgerPage, Number(ledgerTotal), INCOME_LEDGER_PAGE);
  const [balance, byWork, byChapter, byDay, ledger, payouts, settings] = await Promise.all([
    incomeBalance(userId),
    db.execute(sql`
      select t.work_id, coalesce(w.title, '（已删除的作品）') as title,
             sum(t.amount)::bigint as total, sum(t.gross)::bigint as gross, count(*) filter (where t.type = 'sale')::int as sales,
             coalesce(sum(t.amount) filter (where t.type = 'tip'), 0)::bigint as tips,
             sum(case when t.created_at >= ${salesSince(now).toISOString()}::timestamptz then t.amount else 0 end)::bigint as recent
      from income_transactions t left join works w on w.id = t.work_id
      where t.user_id = ${userId} and t.type in ('sale', 'tip')
      group by t.work_id, w.title order by total desc limit 50`),
    db.execute(sql`
      select ch.id as chapter_id, ch.title, w.id as work_id, w.title as work_title,
             case when ch.state = 'published' and ch.kind = 'chapter' then ${chapterNumberSql(sql`ch.work_id`, sql`ch.position`, sql`ch.id`)} end as chapter_order,
             count(*)::int as sales, sum(p.price)::bigint as gross
      from chapter_purchases p join chapters ch on ch.id = p.chapter_id join works w on w.id = p.work_id
      where w.user_id = ${userId}
      group by ch.id, ch.title, w.id, w.title order by sales desc, ch.id limit 20`),
    salesByDay(userId, { now }),
    db
      .select()
      .from(incomeTransactions)
      .where(eq(incomeTransactions.userId, userId))
      .orderBy(desc(incomeTransactions.createdAt), desc(incomeTransactions.id))
      .limit(INCOME_LEDGER_PAGE)
      .offset((currentLedgerPage - 1) * INCOME_LEDGER_PAGE),
    db
      .select()
      .from(payoutRequests)
      .where(eq(payoutRequests.userId, userId))
      .orderBy(desc(payoutRequests.createdAt), desc(payoutRequests.id))
      .limit(20),
    getEconomySettings(),
  ]);
  type WorkRow = { work_id: number | null; title: string; total: string | number; gross: string | number; sales: number; tips: string | number; recent: string | number };
  type ChapterRow = {
    chapter_id: number;
    title: string;
    work_id: number;
    work_title: string;
    chapter_order: number | null;
    sales: number;
    gross: string | number;
  };
  return {
    ...balance,
    payoutMinimum: settings.payoutMinimum,
    authorSharePercent: settings.authorSharePercent,
    byWork: rowsOf<WorkRow>(byWork).map((r) => ({
      workId: r.work_id === null ? null : Number(r.work_id),
      title: r.title,
      total: Number(r.total),
      gross: Number(r.gross),
      sales: Number(r.sales),
      /** 打赏: the author's share of the work's tips (decision 207), inside `total`. */
      tips: Number(r.tips),
      recent: Number(r.recent),
    })),
    byChapter: rowsOf<ChapterRow>(byChapter).map((r) => ({
      chapterId: Number(r.chapter_id),
      title: r.title,
      /** The title numbered as shown (chapterDisplayTitle). */
      label: chapterDisplayTitle(r.chapter_order === null ? null : Number(r.chapter_order), r.title),
      workId: Number(r.work_id),
      workTitle: r.work_title,
      sales: Number(r.sales),
      gross: Number(r.gross),
    })),
    /** The days with sales, newest first (the same figures as 数据统计's). */
    byDay: byDay.days.filter((d) => d.sales > 0).reverse(),
    salesTotals: byDay.totals,
    ledgerPage: currentLedgerPage,
    ledgerPageCount,
    ledger: ledger.map((r) => ({
      id: r.id,
      type: r.type,
      amount: Number(r.amount),
      heldChange: Number(r.heldChange),
      /** What the reader paid (a sale, a tip) or the bonus: the 平台分成 is gross − amount. */
      gross: r.type === "sale" || r.type === "tip" || r.type === "bonus" ? Number(r.gross) : null,
      description: r.description,
      createdAt: r.createdAt.toISOString(),
    })),
    payouts: payouts.map((p) => ({
      id: p.id,
      amount: Number(p.amount),
      payee: p.payee,
      status: p.status,
      reference: p.reference,
      createdAt: p.createdAt.toISOString(),
      settledAt: p.settledAt?.toISOString() ?? null,
    })),
  };
}

const PAYOUTS_PAGE = 50;

/**
 * The administrators' payout requests, newest first, filtered by status and author e-mail.
 * A pending request's account is opened in full for `viewer`, the operator paying it, and
 * each page that shows full numbers is recorded in the audit log with their requests' ids
 * (`payout.account-view`; decision 210 amended).
 */
export async function listPayoutRequests(filter: { status?: PayoutStatus | "all"; email?: string; page?: number }, viewer: AdminActor) {
  const status = filter.status && filter.status !== "all" ? filter.status : null;
  const email = filter.email?.trim().toLowerCase() ?? "";
  const page = Math.max(1, filter.page ?? 1);
  const where = and(
    status ? eq(payoutRequests.status, status) : undefined,
    email ? sql`${profiles.email} like ${`%${escapeLike(email)}%`}` : undefined,
  );
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({
        id: payoutRequests.id,
        userId: payoutRequests.userId,
        email: profiles.email,
        nickname: profiles.nickname,
        amount: payoutRequests.amount,
        payee: payoutRequests.payee,
        payeeName: payoutRequests.payeeName,
        accountId: payoutRequests.accountId,
        status: payoutRequests.status,
        reference: payoutRequests.reference,
        createdAt: payoutRequests.createdAt,
        settledAt: payoutRequests.settledAt,
      })
      .from(payoutRequests)
      .innerJoin(profiles, eq(profiles.id, payoutRequests.userId))
      .where(where)
      .orderBy(desc(payoutRequests.createdAt), desc(payoutRequests.id))
      .limit(PAYOUTS_PAGE)
      .offset((page - 1) * PAYOUTS_PAGE),
    db
      .select({ total: sql<number>`count(*)::int` })
      .from(payoutRequests)
      .innerJoin(profiles, eq(profiles.id, payoutRequests.userId))
      .where(where),
  ]);
  const requests = await Promise.all(
    rows.map(async ({ accountId, ...r }) => ({
      ...r,
      amount: Number(r.amount),
      /** The full account number, for the operator paying a pending request only (decision 210). */
      accountFull: r.status === "pending" && accountId !== null ? await fullAccountOrMessage(accountId) : null,
      createdAt: r.createdAt.toISOString(),
      settledAt: r.settledAt?.toISOString() ?? null,
    })),
  );
  const shown = requests.filter((r) => r.accountFull !== null).map((r) => r.id);
  if (shown.length > 0) {
    await recordAdminAction(db, viewer, { action: "payout.account-view", targetType: "payout", targetId: shown.join(","), after: { payouts: shown } });
  }
  return { total: Number(total), page, pageCount: Math.max(1, Math.ceil(Number(total) / PAYOUTS_PAGE)), requests };
}

/** A pending request's account, opened for the operator who pays it; the clear message when it does not decrypt. */
async function fullAccountOrMessage(accountId: number): Promise<string> {
  try {
    return (await openPayoutAccount(db, accountId))?.account ?? "";
  } catch (error) {
    if (error instanceof DomainError) return error.message;
    throw error;
  }
}
