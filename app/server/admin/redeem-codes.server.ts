import { randomInt } from "node:crypto";
import { and, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { profiles, redeemCodes } from "~/db/schema";
import { CODE_BATCH_MAX, CODE_DENOMINATIONS, type CodeStatusFilter } from "~/schemas/admin";
import { pageCountOf } from "~/utils/pagination";
import { DomainError } from "../errors.server";
import { recordAdminAction, type AdminActor } from "./audit.server";

export const CODES_PAGE_SIZE = 20;

/** docs/product.md D6: 10 digits, the first 1-9, from the cryptographic generator. */
export function newRedeemCode(): string {
  let code = String(randomInt(1, 10));
  for (let i = 0; i < 9; i++) code += String(randomInt(0, 10));
  return code;
}

function statusWhere(status: CodeStatusFilter): SQL | undefined {
  return status === "all" ? undefined : eq(redeemCodes.status, status);
}

/** docs/product.md: Back office: filtered by status, newest first, 20 a page, with the user's e-mail. */
export async function listRedeemCodes({ status, page }: { status: CodeStatusFilter; page: number }) {
  const where = statusWhere(status);
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(redeemCodes).where(where);
  const pageCount = pageCountOf(total, CODES_PAGE_SIZE);
  const current = Math.min(page, pageCount);
  const rows = await db
    .select({
      id: redeemCodes.id,
      code: redeemCodes.code,
      amount: redeemCodes.amount,
      status: redeemCodes.status,
      userEmail: profiles.email,
      usedAt: redeemCodes.usedAt,
      createdAt: redeemCodes.createdAt,
    })
    .from(redeemCodes)
    .leftJoin(profiles, eq(profiles.id, redeemCodes.usedBy))
    .where(where)
    .orderBy(desc(redeemCodes.createdAt), desc(redeemCodes.id))
    .limit(CODES_PAGE_SIZE)
    .offset((current - 1) * CODES_PAGE_SIZE);
  return { codes: rows, total, page: current, pageCount };
}

/**
 * Creates `quantity` unused codes worth `amount` points each. A code drawn twice (here or
 * already stored) is skipped by the unique index and drawn again, so exactly `quantity`
 * new codes are made.
 */
export async function generateRedeemCodes(
  actor: AdminActor,
  quantity: number,
  amount: number,
  draw: () => string = newRedeemCode,
): Promise<string[]> {
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > CODE_BATCH_MAX) throw new DomainError("请输入1到100之间的数量", 400, "quantity");
  if (!(CODE_DENOMINATIONS as readonly number[]).includes(amount)) throw new DomainError("请选择有效的面额", 400, "amount");
  return db.transaction(async (tx) => {
    const made: string[] = [];
    for (let attempt = 0; made.length < quantity; attempt++) {
      if (attempt >= 20) throw new Error("could not draw unique redeem codes");
      const wanted = new Set<string>();
      while (wanted.size < quantity - made.length) wanted.add(draw());
      const inserted = await tx
        .insert(redeemCodes)
        .values([...wanted].map((code) => ({ code, amount })))
        .onConflictDoNothing({ target: redeemCodes.code })
        .returning({ code: redeemCodes.code });
      made.push(...inserted.map((r) => r.code));
    }
    await recordAdminAction(tx, actor, { action: "code.generate", targetType: "redeem-code", after: { quantity, amount } });
    return made;
  });
}

export async function countUnusedCodes(): Promise<number> {
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(redeemCodes)
    .where(eq(redeemCodes.status, "unused"));
  return n;
}

export interface UnusedCode {
  id: number;
  code: string;
  amount: number;
  createdAt: Date;
}

/**
 * Unused codes newest first, in batches, for the spreadsheet. Keyset on the id: codes
 * are only ever created by generateRedeemCodes, so id order is creation order (and a
 * JavaScript Date cursor would lose created_at's microseconds).
 */
export async function* unusedCodeBatches(batchSize = 1000): AsyncGenerator<UnusedCode[]> {
  let after: number | null = null;
  for (;;) {
    const rows: UnusedCode[] = await db
      .select({ id: redeemCodes.id, code: redeemCodes.code, amount: redeemCodes.amount, createdAt: redeemCodes.createdAt })
      .from(redeemCodes)
      .where(and(eq(redeemCodes.status, "unused"), after === null ? undefined : lt(redeemCodes.id, after)))
      .orderBy(desc(redeemCodes.id))
      .limit(batchSize);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1].id;
  }
}
