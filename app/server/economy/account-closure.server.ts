import { eq } from "drizzle-orm";
import type { Executor } from "~/db/client.server";
import { credits, profiles, tokenTransactions } from "~/db/schema";
import { debit } from "./ledger.server";

/** The ledger line of a deleted account's forfeited credits (decision 231). @internal */
export const FORFEIT_CREDITS = "注销账号，剩余积分作废";
/** The ledger line of its forfeited tokens. @internal */
export const FORFEIT_TOKENS = "注销账号，剩余Tokens作废";

/**
 * A deleted account's credits and tokens are forfeited (decision 231; the request page says
 * so): each balance goes to 0 through a ledger row in the caller's transaction, so
 * `check:ledger` still balances. Author income is not touched: it stays owed on the books,
 * tied to the anonymous id (the page asks for a payout first). Returns what was forfeited.
 */
export async function forfeitBalances(tx: Executor, userId: string): Promise<{ credits: number; tokens: number }> {
  const [row] = await tx
    .select({ balance: credits.balance })
    .from(credits)
    .where(eq(credits.userId, userId))
    .for("update");
  const creditBalance = Number(row?.balance ?? 0);
  if (creditBalance > 0) await debit(tx, userId, creditBalance, FORFEIT_CREDITS);
  const [profile] = await tx.select({ tokens: profiles.tokens }).from(profiles).where(eq(profiles.id, userId)).for("update");
  const tokens = Number(profile?.tokens ?? 0);
  if (tokens !== 0) {
    await tx.update(profiles).set({ tokens: 0, updatedAt: new Date() }).where(eq(profiles.id, userId));
    await tx.insert(tokenTransactions).values({ userId, amount: -tokens, type: "admin", description: FORFEIT_TOKENS });
  }
  return { credits: creditBalance, tokens };
}
