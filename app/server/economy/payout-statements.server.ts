import { and, eq, lte, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { authorIncome, incomeTransactions, payoutRequests, payoutStatements, profiles } from "~/db/schema";
import { notifyPayoutSettled } from "~/server/community/notifications.server";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { DomainError } from "~/server/platform/errors.server";
import { notifyUserChanged } from "~/server/platform/events.server";
import { shanghaiDate } from "~/utils/shanghai-time";
import { payoutTaxRule } from "./economy-settings.server";
import { CREDIT_IN_FEN, withholdingFen, type TaxRule } from "./payout-tax";

/**
 * 提现结算单 (docs/product.md#author-income, decision 209): the tax withheld when a payout is
 * paid, aggregated per author per China-time month, and its reversal when a paid payout
 * comes back. Every function here runs in the settlement's transaction, after the author's
 * author_income row is locked by its UPDATE, so two settlements of one author take turns
 * and each sees the other's statement.
 */

/** "2026-11": the China-time month of a moment. */
function shanghaiMonth(at: Date): string {
  return shanghaiDate(at).slice(0, 7);
}

interface StatementFigures {
  month: string;
  rule: TaxRule;
  grossFen: number;
  taxFen: number;
  netFen: number;
}

/** What the author's month already had: the withholding rows' gross and tax (reversals are adjustments apart). */
async function monthWithheld(tx: Executor, userId: string, month: string, upToId?: number): Promise<{ grossFen: number; taxFen: number }> {
  const [row] = await tx
    .select({ gross: sql<string>`coalesce(sum(${payoutStatements.grossFen}), 0)`, tax: sql<string>`coalesce(sum(${payoutStatements.taxFen}), 0)` })
    .from(payoutStatements)
    .where(
      and(
        eq(payoutStatements.userId, userId),
        eq(payoutStatements.month, month),
        eq(payoutStatements.kind, "withholding"),
        upToId === undefined ? undefined : lte(payoutStatements.id, upToId),
      ),
    );
  return { grossFen: Number(row.gross), taxFen: Number(row.tax) };
}

/** Writes a paid payout's statement: the tax on the month's total including it, less what the month already withheld. */
export async function withholdPayoutTax(tx: Executor, payout: { id: number; userId: string; amount: number }, at: Date): Promise<StatementFigures> {
  const rule = await payoutTaxRule(tx);
  const month = shanghaiMonth(at);
  const before = await monthWithheld(tx, payout.userId, month);
  const grossFen = payout.amount * CREDIT_IN_FEN;
  const taxFen = withholdingFen(grossFen, before.grossFen, before.taxFen, rule);
  const figures = { month, rule, grossFen, taxFen, netFen: grossFen - taxFen };
  await tx.insert(payoutStatements).values({ payoutId: payout.id, userId: payout.userId, kind: "withholding", ...figures, createdAt: at });
  return figures;
}

/** @internal */
export const PAYOUT_RETURN_MESSAGES = {
  reason: "请填写退回原因（1-200字）",
  notPaid: "只有已支付的提现可以登记款项退回",
  missing: "提现申请不存在",
} as const;

/**
 * 款项退回: a paid payout's money came back (a bounced transfer, a closed account). The
 * amount returns to the author's income, and the tax withheld on it is reversed by a
 * negative statement in the month of the return, not by rewriting the month it was
 * withheld in (decision 209). Only a paid payout moves (conditional UPDATE): twice is refused.
 */
export async function returnPaidPayout(actor: AdminActor, payoutId: number, reasonInput: unknown, at = new Date()): Promise<void> {
  if (!Number.isSafeInteger(payoutId) || payoutId <= 0) throw new DomainError(PAYOUT_RETURN_MESSAGES.missing, 404);
  const reason = typeof reasonInput === "string" ? reasonInput.trim() : "";
  if (reason.length < 1 || reason.length > 200) throw new DomainError(PAYOUT_RETURN_MESSAGES.reason, 400, "reference");
  await db.transaction(async (tx) => {
    const [returned] = await tx
      .update(payoutRequests)
      .set({ status: "returned" })
      .where(and(eq(payoutRequests.id, payoutId), eq(payoutRequests.status, "paid")))
      .returning({ userId: payoutRequests.userId, amount: payoutRequests.amount });
    if (!returned) {
      const [exists] = await tx.select({ id: payoutRequests.id }).from(payoutRequests).where(eq(payoutRequests.id, payoutId));
      throw exists ? new DomainError(PAYOUT_RETURN_MESSAGES.notPaid, 409) : new DomainError(PAYOUT_RETURN_MESSAGES.missing, 404);
    }
    const amount = Number(returned.amount);
    await tx
      .update(authorIncome)
      .set({ balance: sql`${authorIncome.balance} + ${amount}`, updatedAt: at })
      .where(eq(authorIncome.userId, returned.userId));
    await tx.insert(incomeTransactions).values({
      userId: returned.userId,
      type: "payout_returned",
      amount,
      payoutId,
      description: `提现款项退回 #${payoutId}：${reason}`,
      createdAt: at,
    });
    const [withheld] = await tx
      .select()
      .from(payoutStatements)
      .where(and(eq(payoutStatements.payoutId, payoutId), eq(payoutStatements.kind, "withholding")));
    // A payout paid before statements existed has nothing to reverse.
    if (withheld) {
      await tx.insert(payoutStatements).values({
        payoutId,
        userId: returned.userId,
        kind: "reversal",
        month: shanghaiMonth(at),
        rule: withheld.rule,
        grossFen: -withheld.grossFen,
        taxFen: -withheld.taxFen,
        netFen: -withheld.netFen,
        createdAt: at,
      });
    }
    await notifyUserChanged(returned.userId, "income", tx);
    await notifyPayoutSettled(tx, { userId: returned.userId, payoutId, amount, outcome: "returned", reference: reason });
    await recordAdminAction(tx, actor, {
      action: "payout.returned",
      targetType: "payout",
      targetId: payoutId,
      before: { status: "paid" },
      after: { status: "returned", amount, userId: returned.userId, taxReversedFen: withheld ? withheld.taxFen : 0 },
      reason,
    });
  });
}

export interface PayoutStatementView {
  id: number;
  userId: string;
  email: string;
  nickname: string;
  amount: number;
  status: "pending" | "paid" | "refused" | "returned";
  payee: string;
  payeeName: string | null;
  reference: string | null;
  createdAt: string;
  settledAt: string | null;
  withholding: (StatementFigures & { createdAt: string; monthGrossFen: number; monthTaxFen: number }) | null;
  reversal: (StatementFigures & { createdAt: string }) | null;
}

/**
 * One payout's statement (结算单): the request, the withholding (with the month's totals up to
 * it) and any reversal. `userId` given: only that author's payout (another's is 404).
 */
export async function payoutStatement(payoutId: number, userId?: string): Promise<PayoutStatementView> {
  if (!Number.isSafeInteger(payoutId) || payoutId <= 0) throw new DomainError(PAYOUT_RETURN_MESSAGES.missing, 404);
  const [payout] = await db
    .select({
      id: payoutRequests.id,
      userId: payoutRequests.userId,
      email: profiles.email,
      nickname: profiles.nickname,
      amount: payoutRequests.amount,
      status: payoutRequests.status,
      payee: payoutRequests.payee,
      payeeName: payoutRequests.payeeName,
      reference: payoutRequests.reference,
      createdAt: payoutRequests.createdAt,
      settledAt: payoutRequests.settledAt,
    })
    .from(payoutRequests)
    .innerJoin(profiles, eq(profiles.id, payoutRequests.userId))
    .where(and(eq(payoutRequests.id, payoutId), userId ? eq(payoutRequests.userId, userId) : undefined));
  if (!payout) throw new DomainError(PAYOUT_RETURN_MESSAGES.missing, 404);
  const rows = await db.select().from(payoutStatements).where(eq(payoutStatements.payoutId, payoutId));
  const figures = (r: (typeof rows)[number]) => ({
    month: r.month,
    rule: r.rule,
    grossFen: r.grossFen,
    taxFen: r.taxFen,
    netFen: r.netFen,
    createdAt: r.createdAt.toISOString(),
  });
  const w = rows.find((r) => r.kind === "withholding");
  const v = rows.find((r) => r.kind === "reversal");
  const month = w ? await monthWithheld(db, payout.userId, w.month, w.id) : null;
  return {
    ...payout,
    amount: Number(payout.amount),
    createdAt: payout.createdAt.toISOString(),
    settledAt: payout.settledAt?.toISOString() ?? null,
    withholding: w && month ? { ...figures(w), monthGrossFen: month.grossFen, monthTaxFen: month.taxFen } : null,
    reversal: v ? figures(v) : null,
  };
}
