import { randomInt } from "node:crypto";
import { and, desc, eq, gt, isNotNull, isNull, like, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { profiles, redeemCodes } from "~/db/schema";
import { CODE_BATCH_MAX, CODE_DENOMINATIONS, type CodeStatusFilter } from "~/schemas/admin";
import { pageWithin } from "~/utils/pagination";
import { DomainError } from "~/server/platform/errors.server";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";

const CODES_PAGE_SIZE = 20;

/** docs/product.md D6: 10 digits, the first 1-9, from the cryptographic generator. */
function newRedeemCode(): string {
  let code = String(randomInt(1, 10));
  for (let i = 0; i < 9; i++) code += String(randomInt(0, 10));
  return code;
}

/** Redeemable now: unused, not voided, not past its end. */
const redeemableNow = () =>
  and(eq(redeemCodes.status, "unused"), isNull(redeemCodes.voidedAt), or(isNull(redeemCodes.expiresAt), gt(redeemCodes.expiresAt, sql`now()`)));

function statusWhere(status: CodeStatusFilter): SQL | undefined {
  if (status === "all") return undefined;
  if (status === "used") return eq(redeemCodes.status, "used");
  if (status === "void") return isNotNull(redeemCodes.voidedAt);
  if (status === "expired") return and(eq(redeemCodes.status, "unused"), isNull(redeemCodes.voidedAt), lte(redeemCodes.expiresAt, sql`now()`));
  return redeemableNow();
}

/**
 * docs/product.md#back-office-redeem-codes: by status (未使用 means still redeemable), batch
 * and code (its digits from the start, so the unique index answers).
 */
export async function listRedeemCodes({ status, page, code = "", batch = "" }: { status: CodeStatusFilter; page: number; code?: string; batch?: string }) {
  const digits = code.replace(/\s+/g, "");
  const where = and(
    statusWhere(status),
    /^\d{1,10}$/.test(digits) ? like(redeemCodes.code, `${digits}%`) : digits ? sql`false` : undefined,
    batch ? eq(redeemCodes.batch, batch) : undefined,
  );
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(redeemCodes).where(where);
  const { page: current, pageCount } = pageWithin(page, total, CODES_PAGE_SIZE);
  const rows = await db
    .select({
      id: redeemCodes.id,
      code: redeemCodes.code,
      amount: redeemCodes.amount,
      status: redeemCodes.status,
      userEmail: profiles.email,
      usedAt: redeemCodes.usedAt,
      createdAt: redeemCodes.createdAt,
      batch: redeemCodes.batch,
      expiresAt: redeemCodes.expiresAt,
      voidedAt: redeemCodes.voidedAt,
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
  opts: { batch?: string | null; expiresAt?: Date | null; draw?: () => string; record?: RecordResult } = {},
): Promise<string[]> {
  const draw = opts.draw ?? newRedeemCode;
  const batch = opts.batch?.trim() || null;
  const expiresAt = opts.expiresAt ?? null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) throw new DomainError("有效期须晚于现在", 400, "expiresOn");
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
        .values([...wanted].map((code) => ({ code, amount, batch, expiresAt })))
        .onConflictDoNothing({ target: redeemCodes.code })
        .returning({ code: redeemCodes.code });
      made.push(...inserted.map((r) => r.code));
    }
    await recordAdminAction(tx, actor, { action: "code.generate", targetType: "redeem-code", targetId: batch, after: { quantity, amount, batch, expiresAt } });
    // The form's one-time token (decision 172): a replay of the form makes no second batch.
    await opts.record?.(tx, batch ?? "");
    return made;
  });
}

/** Codes that still redeem (unused, not voided, not expired): what 导出未使用 writes. */
export async function countUnusedCodes(): Promise<number> {
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(redeemCodes)
    .where(redeemableNow());
  return n;
}

/**
 * Voids one unused code (by id) or every unused, not yet voided code of a batch; a used
 * code is never voided. Returns how many were voided; none is 409 (兑换码已使用或已作废).
 */
export async function voidRedeemCodes(actor: AdminActor, target: { id: number } | { batch: string }): Promise<number> {
  return db.transaction(async (tx) => {
    const which = "id" in target ? eq(redeemCodes.id, target.id) : eq(redeemCodes.batch, target.batch);
    const rows = await tx
      .update(redeemCodes)
      .set({ voidedAt: new Date() })
      .where(and(which, eq(redeemCodes.status, "unused"), isNull(redeemCodes.voidedAt)))
      .returning({ id: redeemCodes.id, code: redeemCodes.code });
    if (rows.length === 0) {
      if ("id" in target) {
        const [exists] = await tx.select({ id: redeemCodes.id }).from(redeemCodes).where(which);
        throw exists ? new DomainError("兑换码已使用或已作废", 409) : new DomainError("兑换码不存在", 404);
      }
      throw new DomainError("该批次没有可作废的兑换码", 409);
    }
    await recordAdminAction(tx, actor, {
      action: "code.void",
      targetType: "redeem-code",
      targetId: "id" in target ? rows[0].code : target.batch,
      after: { voided: rows.length },
    });
    return rows.length;
  });
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
      .where(and(redeemableNow(), after === null ? undefined : lt(redeemCodes.id, after)))
      .orderBy(desc(redeemCodes.id))
      .limit(batchSize);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1].id;
  }
}
