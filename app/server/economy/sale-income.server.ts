import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "~/db/client.server";
import { authorIncome, incomeTransactions } from "~/db/schema";
import { sendInOrder } from "~/server/platform/db-utils.server";
import { userChangedStatement } from "~/server/platform/events.server";
import { authorShareOf, type EconomySettings } from "./economy-settings.server";

/**
 * The author's share of a sale (docs/product.md#author-income, D14), written by the
 * purchases (ledger.server.ts, chapter-sales.server.ts) in the buyer's transaction. Apart
 * from income.server.ts, which moves credits through the ledger (conversion), so that the
 * ledger and the income do not import each other (docs/architecture.md#domains).
 */

export interface Sale {
  workId: number;
  chapterId: number | null;
  description: string;
  /** A tip (decision 207) pays the same share as a sale, on its own kind of row; default `sale`. */
  type?: "sale" | "tip";
}

/**
 * Pays the author their share of a purchase (or a tip) of `gross` credits, inside the buyer's
 * transaction `tx` (docs/product.md D14), and tells the author's open pages on commit. The sale row is
 * written even when the share rounds down to 0, so every sale shows in the ledger.
 */
export async function creditSale(tx: Executor, authorId: string, gross: number, settings: EconomySettings, sale: Sale): Promise<number> {
  const { share, statements } = saleStatements(tx, authorId, gross, settings, sale);
  await sendInOrder(tx, statements);
  return share;
}

/** `creditSale`'s share and statements, for a caller that sends them with others (a tip: sendInOrder). */
export function saleStatements(tx: Executor, authorId: string, gross: number, settings: EconomySettings, sale: Sale): { share: number; statements: SQL[] } {
  const share = authorShareOf(gross, settings);
  const row: IncomeRow = { type: sale.type ?? "sale", amount: share, gross, workId: sale.workId, chapterId: sale.chapterId, description: sale.description };
  return { share, statements: incomeStatements(tx, authorId, row) };
}

/** An income row and the balance it adds to (a sale's share, a tip's, a 全勤奖), in `tx`; the author's pages are told on commit. */
export async function addIncome(tx: Executor, authorId: string, row: IncomeRow): Promise<void> {
  await sendInOrder(tx, incomeStatements(tx, authorId, row));
}

type IncomeRow = { type: "sale" | "tip" | "bonus"; amount: number; gross: number; workId: number | null; chapterId: number | null; description: string };

/**
 * `addIncome`'s statements (the balance, its row, the author's pages told), for a caller
 * that sends them with others in one round trip (sendInOrder): the balance first, as there.
 */
function incomeStatements(tx: Executor, authorId: string, row: IncomeRow): SQL[] {
  return [
    tx
      .insert(authorIncome)
      .values({ userId: authorId, balance: row.amount })
      .onConflictDoUpdate({
        target: authorIncome.userId,
        set: { balance: sql`${authorIncome.balance} + ${row.amount}`, updatedAt: new Date() },
      })
      .getSQL(),
    tx.insert(incomeTransactions).values({ userId: authorId, ...row }).getSQL(),
    userChangedStatement(authorId, "income"),
  ];
}
