import { and, asc, desc, eq, ne } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { payoutAccounts, type PayoutAccountKind } from "~/db/schema";
import { maskName } from "~/schemas/identity";
import { maskPayoutAccount, PAYOUT_ACCOUNT_MESSAGES, readPayoutAccount } from "~/schemas/payout-account";
import { DomainError } from "~/server/platform/errors.server";
import { requireVerifiedIdentity, sameLegalName } from "./author-identity.server";
import { currentIdentityKey, identityKeyRing, IdentityDecryptError, openIdentityValue, sealIdentityValue } from "./identity-crypto.server";

/**
 * 收款账户 (docs/product.md#author-income, decision 210): sealed with the identity's key and
 * code (decision 204), shown masked. The account's holder must be the verified legal name
 * while 实名认证 is required (decision 205).
 */

export interface PayoutAccountView {
  id: number;
  kind: PayoutAccountKind;
  bankName: string | null;
  accountMasked: string;
  holderMasked: string;
  createdAt: Date;
}

/** What a sealed field is bound to: its owner and field (a cipher moved elsewhere does not open). */
const accountContext = (userId: string, field: "account" | "holder") => `${userId}:payout-${field}`;

/** The author's account: the newest saved row, or null. */
export async function currentPayoutAccount(userId: string, executor: Executor = db): Promise<PayoutAccountView | null> {
  const [row] = await executor
    .select({
      id: payoutAccounts.id,
      kind: payoutAccounts.kind,
      bankName: payoutAccounts.bankName,
      accountMasked: payoutAccounts.accountMasked,
      holderMasked: payoutAccounts.holderMasked,
      createdAt: payoutAccounts.createdAt,
    })
    .from(payoutAccounts)
    .where(eq(payoutAccounts.userId, userId))
    .orderBy(desc(payoutAccounts.id))
    .limit(1);
  return row ?? null;
}

/**
 * 保存收款账户: checks every field (a message by the field, nothing written), the holder
 * against the verified name when one is required, then adds the sealed row, which becomes
 * the author's account.
 */
export async function savePayoutAccount(userId: string, sent: Parameters<typeof readPayoutAccount>[0]): Promise<PayoutAccountView> {
  const key = currentIdentityKey();
  if (!key) throw new DomainError(PAYOUT_ACCOUNT_MESSAGES.off, 409);
  const { input, problems } = readPayoutAccount(sent);
  const first = Object.entries(problems)[0];
  if (!input || first) throw new DomainError(first?.[1] ?? PAYOUT_ACCOUNT_MESSAGES.kind, 400, first?.[0] ?? "kind");
  return db.transaction(async (tx) => {
    const verifiedName = await requireVerifiedIdentity(tx, userId, "payout");
    if (verifiedName !== null && !sameLegalName(input.holderName, verifiedName)) {
      throw new DomainError(PAYOUT_ACCOUNT_MESSAGES.holderMismatch, 400, "holderName");
    }
    const [row] = await tx
      .insert(payoutAccounts)
      .values({
        userId,
        kind: input.kind,
        bankName: input.bankName,
        accountCipher: sealIdentityValue(input.account, key, accountContext(userId, "account")),
        accountMasked: maskPayoutAccount(input.kind, input.account),
        holderCipher: sealIdentityValue(input.holderName, key, accountContext(userId, "holder")),
        holderMasked: maskName(input.holderName),
        keyId: key.id,
      })
      .returning();
    return { id: row.id, kind: row.kind, bankName: row.bankName, accountMasked: row.accountMasked, holderMasked: row.holderMasked, createdAt: row.createdAt };
  });
}

/** Opens an account's number and holder (the payout's name check, the operator paying it); fails closed with one message. */
export async function openPayoutAccount(executor: Executor, accountId: number): Promise<{ userId: string; account: string; holderName: string } | null> {
  const [row] = await executor.select().from(payoutAccounts).where(eq(payoutAccounts.id, accountId));
  if (!row) return null;
  try {
    const ring = identityKeyRing();
    return {
      userId: row.userId,
      account: openIdentityValue(row.accountCipher, ring, accountContext(row.userId, "account")),
      holderName: openIdentityValue(row.holderCipher, ring, accountContext(row.userId, "holder")),
    };
  } catch (error) {
    if (error instanceof IdentityDecryptError) throw new DomainError(PAYOUT_ACCOUNT_MESSAGES.undecryptable, 500);
    throw error;
  }
}

/**
 * `npm run identity:rotate-key`'s second half: re-seals every 收款账户 not sealed with
 * IDENTITY_KEY (opened with the key it names, IDENTITY_KEY_OLD), each by a conditional UPDATE
 * still on the old key id, so a stopped run resumes and two runs never double-write. A row
 * that does not open is left as it is and its id returned.
 */
export async function rotatePayoutAccounts(): Promise<{ rotated: number; failed: number[] }> {
  const key = currentIdentityKey();
  if (!key) throw new Error("IDENTITY_KEY is not set");
  const ring = identityKeyRing();
  const rows = await db
    .select({ id: payoutAccounts.id, userId: payoutAccounts.userId, keyId: payoutAccounts.keyId, account: payoutAccounts.accountCipher, holder: payoutAccounts.holderCipher })
    .from(payoutAccounts)
    .where(ne(payoutAccounts.keyId, key.id))
    .orderBy(asc(payoutAccounts.id));
  let rotated = 0;
  const failed: number[] = [];
  for (const row of rows) {
    let account: string;
    let holder: string;
    try {
      account = openIdentityValue(row.account, ring, accountContext(row.userId, "account"));
      holder = openIdentityValue(row.holder, ring, accountContext(row.userId, "holder"));
    } catch (error) {
      if (!(error instanceof IdentityDecryptError)) throw error;
      failed.push(row.id);
      continue;
    }
    const done = await db
      .update(payoutAccounts)
      .set({
        accountCipher: sealIdentityValue(account, key, accountContext(row.userId, "account")),
        holderCipher: sealIdentityValue(holder, key, accountContext(row.userId, "holder")),
        keyId: key.id,
      })
      .where(and(eq(payoutAccounts.id, row.id), eq(payoutAccounts.keyId, row.keyId)))
      .returning({ id: payoutAccounts.id });
    rotated += done.length;
  }
  return { rotated, failed };
}
