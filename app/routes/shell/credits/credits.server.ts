import { and, count, desc, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { creditTransactions, plotVersions, tokenTransactions } from "~/db/schema";
import { pageWithin } from "~/utils/pagination";

/** docs/product.md: Constants: the credit history shows 10 rows a page (the token history too). */
const HISTORY_PAGE_SIZE = 10;

/** One page of the user's credit transactions, newest first (a page past the end shows the last). */
export async function listCreditHistory(userId: string, page: number) {
  const where = eq(creditTransactions.userId, userId);
  const [{ total }] = await db.select({ total: count() }).from(creditTransactions).where(where);
  const { page: current, pageCount } = pageWithin(page, total, HISTORY_PAGE_SIZE);
  const rows = await db
    .select({
      id: creditTransactions.id,
      amount: creditTransactions.amount,
      type: creditTransactions.type,
      description: creditTransactions.description,
      createdAt: creditTransactions.createdAt,
    })
    .from(creditTransactions)
    .where(where)
    .orderBy(desc(creditTransactions.createdAt), desc(creditTransactions.id))
    .limit(HISTORY_PAGE_SIZE)
    .offset((current - 1) * HISTORY_PAGE_SIZE);
  return { rows, total, page: current, pageCount };
}

/** One page of the user's token transactions (grants, exchanges, generations), newest first. */
export async function listTokenHistory(userId: string, page: number) {
  const where = eq(tokenTransactions.userId, userId);
  const [{ total }] = await db.select({ total: count() }).from(tokenTransactions).where(where);
  const { page: current, pageCount } = pageWithin(page, total, HISTORY_PAGE_SIZE);
  const rows = await db
    .select({
      id: tokenTransactions.id,
      amount: tokenTransactions.amount,
      type: tokenTransactions.type,
      description: tokenTransactions.description,
      promptChars: tokenTransactions.promptChars,
      outputChars: tokenTransactions.outputChars,
      model: tokenTransactions.model,
      metering: tokenTransactions.metering,
      createdAt: tokenTransactions.createdAt,
    })
    .from(tokenTransactions)
    .where(where)
    .orderBy(desc(tokenTransactions.createdAt), desc(tokenTransactions.id))
    .limit(HISTORY_PAGE_SIZE)
    .offset((current - 1) * HISTORY_PAGE_SIZE);
  return { rows, total, page: current, pageCount };
}

/**
 * One generation's receipt (docs/product.md D15): the user's own generation row, what it
 * was charged on and how it ended; null for anything else (another user's, not a
 * generation, no such row).
 */
export async function getGenerationReceipt(userId: string, id: number) {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [row] = await db
    .select({
      id: tokenTransactions.id,
      amount: tokenTransactions.amount,
      description: tokenTransactions.description,
      model: tokenTransactions.model,
      promptChars: tokenTransactions.promptChars,
      outputChars: tokenTransactions.outputChars,
      inputTokens: tokenTransactions.inputTokens,
      outputTokens: tokenTransactions.outputTokens,
      metering: tokenTransactions.metering,
      createdAt: tokenTransactions.createdAt,
      endReason: plotVersions.endReason,
    })
    .from(tokenTransactions)
    .leftJoin(plotVersions, eq(plotVersions.transactionId, tokenTransactions.id))
    .where(and(eq(tokenTransactions.id, id), eq(tokenTransactions.userId, userId), eq(tokenTransactions.type, "generation")))
    .limit(1);
  return row ?? null;
}
