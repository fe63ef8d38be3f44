import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { authorIdentities, siteConfigs } from "~/db/schema";
import {
  identityProblems,
  IDENTITY_MESSAGES,
  maskDocumentNumber,
  maskName,
  readIdentityInput,
  type IdentityDocument,
  type IdentityInput,
} from "~/schemas/identity";
import { pgErrorCode, UNIQUE_VIOLATION } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { getSiteConfig } from "~/server/platform/site-config.server";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { shanghaiDate } from "~/utils/shanghai-time";
import { currentIdentityKey, identityKeyRing, IdentityDecryptError, openIdentityValue, sealIdentityValue } from "./identity-crypto.server";

/**
 * 实名认证 (docs/product.md#author-identity, decisions 204 and 205): an author submits a legal
 * name and a document number, stored encrypted beside their masked forms; a verifier (the
 * operators' queue by default) approves or returns it. While the operator's switch is on, a
 * work gets VIP chapters and an author gets a payout only with an approved identity, and the
 * payee's name must be the verified name.
 */

// ---- the verifier: who decides on a submission ----

interface IdentityVerdict {
  status: "approved" | "rejected";
  note?: string;
}

/**
 * Decides on a submission, or leaves it to the operators' queue (null). Another verifier (a
 * 公安 or carrier check behind an API) implements this, is added to VERIFIERS and is named
 * by IDENTITY_VERIFIER.
 */
interface IdentityVerifier {
  readonly name: string;
  verify(submission: IdentityInput & { userId: string }): Promise<IdentityVerdict | null>;
}

/** The default: every submission waits for an operator (/admin/identity). */
const manualVerifier: IdentityVerifier = { name: "manual", verify: async () => null };

const VERIFIERS: Record<string, IdentityVerifier> = { manual: manualVerifier };

function activeVerifier(): IdentityVerifier {
  return VERIFIERS[process.env.IDENTITY_VERIFIER?.trim() || "manual"] ?? manualVerifier;
}

// ---- the operator's switches ----

export interface IdentityPolicy {
  /** 实名认证 required before VIP chapters and payouts (default on). */
  required: boolean;
  /** Without IDENTITY_KEY (the feature off): whether selling and payouts stay open (default off). */
  sellWithoutKey: boolean;
}

const POLICY_KEYS = { required: "identity_required", sellWithoutKey: "identity_sell_without_key" } as const;

export async function identityPolicy(executor: Executor = db): Promise<IdentityPolicy> {
  const c = await getSiteConfig(Object.values(POLICY_KEYS), executor);
  return { required: c[POLICY_KEYS.required] === "on", sellWithoutKey: c[POLICY_KEYS.sellWithoutKey] === "on" };
}

/** The 超级管理员's switches, audited. */
export async function saveIdentityPolicy(actor: AdminActor, next: IdentityPolicy): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await identityPolicy(tx);
    await tx
      .insert(siteConfigs)
      .values((Object.keys(POLICY_KEYS) as (keyof IdentityPolicy)[]).map((name) => ({ key: POLICY_KEYS[name], value: next[name] ? "on" : "off" })))
      .onConflictDoUpdate({ target: siteConfigs.key, set: { value: sql`excluded.value`, updatedAt: new Date() } });
    await recordAdminAction(tx, actor, { action: "settings.identity", targetType: "setting", targetId: "identity", ...changedFields(before, next) });
  });
}

/** Whether the feature is on: IDENTITY_KEY is set. */
export function identityEnabled(): boolean {
  return currentIdentityKey() !== null;
}

// ---- the author's side ----

export type IdentityState = "none" | "pending" | "approved" | "rejected";

export interface AuthorIdentityView {
  enabled: boolean;
  status: IdentityState;
  documentType: IdentityDocument | null;
  nameMasked: string | null;
  numberMasked: string | null;
  note: string | null;
  submittedAt: Date | null;
  decidedAt: Date | null;
}

/** The author's latest submission, masked (the settings page). */
export async function authorIdentity(userId: string, executor: Executor = db): Promise<AuthorIdentityView> {
  const [row] = await executor
    .select()
    .from(authorIdentities)
    .where(eq(authorIdentities.userId, userId))
    .orderBy(desc(authorIdentities.id))
    .limit(1);
  return {
    enabled: identityEnabled(),
    status: row?.status ?? "none",
    documentType: row?.documentType ?? null,
    nameMasked: row?.nameMasked ?? null,
    numberMasked: row?.numberMasked ?? null,
    note: row?.status === "rejected" ? row.note : null,
    submittedAt: row?.submittedAt ?? null,
    decidedAt: row?.decidedAt ?? null,
  };
}

/** The associated data of a sealed field: its owner and its name (a cipher moved to another row does not open). */
function identityContext(userId: string, field: "name" | "number"): string {
  return `${userId}:${field}`;
}

/**
 * 提交实名认证: checks every field (a message by the field, nothing written), refuses while
 * the feature is off, while a submission waits or after one was approved, then stores it
 * sealed and asks the verifier.
 */
export async function submitIdentity(
  userId: string,
  sent: { documentType: string; legalName: string; documentNumber: string; birthDate: string },
): Promise<IdentityState> {
  const key = currentIdentityKey();
  if (!key) throw new DomainError(IDENTITY_MESSAGES.off, 409);
  const input = readIdentityInput(sent);
  const problems = identityProblems(input, shanghaiDate(new Date()));
  const first = Object.entries(problems)[0];
  if (first) throw new DomainError(first[1], 400, first[0]);
  const current = await authorIdentity(userId);
  if (current.status === "pending") throw new DomainError(IDENTITY_MESSAGES.alreadyPending, 409);
  if (current.status === "approved") throw new DomainError(IDENTITY_MESSAGES.alreadyApproved, 409);
  const verifier = activeVerifier();
  const verdict = await verifier.verify({ ...input, userId });
  try {
    await db.insert(authorIdentities).values({
      userId,
      documentType: input.documentType,
      nameCipher: sealIdentityValue(input.legalName, key, identityContext(userId, "name")),
      numberCipher: sealIdentityValue(input.documentNumber, key, identityContext(userId, "number")),
      nameMasked: maskName(input.legalName),
      numberMasked: maskDocumentNumber(input.documentNumber),
      keyId: key.id,
      verifier: verifier.name,
      status: verdict?.status ?? "pending",
      decidedAt: verdict ? new Date() : null,
      note: verdict?.note ?? null,
      adultOn: adultOn(input.documentType === "resident_id" ? residentBirthDate(input.documentNumber) : input.birthDate),
    });
  } catch (error) {
    // A second submission at the same moment: the one-open index refuses it.
    if (pgErrorCode(error) === UNIQUE_VIOLATION) throw new DomainError(IDENTITY_MESSAGES.alreadyPending, 409);
    throw error;
  }
  return verdict?.status ?? "pending";
}

/** The birth date a 居民身份证号 carries ("YYYY-MM-DD", digits 7-14). */
function residentBirthDate(number: string): string {
  return `${number.slice(6, 10)}-${number.slice(10, 12)}-${number.slice(12, 14)}`;
}

/**
 * The day one born on `birth` turns 18 (decision 218): the same day 18 years on, and
 * 1 March for a 29 February birthday in a common year.
 */
function adultOn(birth: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birth);
  if (!m) return null;
  const year = Number(m[1]) + 18;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return m[2] === "02" && m[3] === "29" && !leap ? `${year}-03-01` : `${year}-${m[2]}-${m[3]}`;
}

/** Opens one sealed field, or a DomainError with a clear message (never a garbled value). */
export function openIdentityField(userId: string, field: "name" | "number", sealed: string): string {
  try {
    return openIdentityValue(sealed, identityKeyRing(), identityContext(userId, field));
  } catch (error) {
    if (error instanceof IdentityDecryptError) throw new DomainError(IDENTITY_MESSAGES.undecryptable, 500);
    throw error;
  }
}

// ---- the gates (decision 205) ----

/** @internal */
export const IDENTITY_GATE_MESSAGES = {
  vip: "开通 VIP 章节前需要先完成实名认证（设置 → 实名认证）",
  vipPending: "你的实名认证正在审核中，通过后才能开通 VIP 章节",
  payout: "申请提现前需要先完成实名认证（设置 → 实名认证）",
  payoutPending: "你的实名认证正在审核中，通过后才能申请提现",
  offVip: "本站实名认证未开启，暂不能开通 VIP 章节，请联系运营",
  offPayout: "本站实名认证未开启，暂不能申请提现，请联系运营",
  payeeName: "请填写收款人姓名",
  payeeMismatch: "收款人姓名须与实名认证的姓名一致",
} as const;

/**
 * Whether `userId` may sell (`vip`) or be paid (`payout`) under the operator's switch: the
 * verified legal name when an approved identity is required, null when none is required;
 * otherwise a DomainError pointing to the settings page. Read on the caller's transaction.
 */
export async function requireVerifiedIdentity(executor: Executor, userId: string, purpose: "vip" | "payout"): Promise<string | null> {
  const policy = await identityPolicy(executor);
  if (!policy.required) return null;
  if (!identityEnabled()) {
    if (policy.sellWithoutKey) return null;
    throw new DomainError(purpose === "vip" ? IDENTITY_GATE_MESSAGES.offVip : IDENTITY_GATE_MESSAGES.offPayout, 403);
  }
  const [row] = await executor
    .select({ status: authorIdentities.status, nameCipher: authorIdentities.nameCipher })
    .from(authorIdentities)
    .where(and(eq(authorIdentities.userId, userId), inArray(authorIdentities.status, ["pending", "approved"])));
  if (row?.status === "approved") return openIdentityField(userId, "name", row.nameCipher);
  if (row?.status === "pending") throw new DomainError(purpose === "vip" ? IDENTITY_GATE_MESSAGES.vipPending : IDENTITY_GATE_MESSAGES.payoutPending, 403);
  throw new DomainError(purpose === "vip" ? IDENTITY_GATE_MESSAGES.vip : IDENTITY_GATE_MESSAGES.payout, 403);
}

/** Whether the author's pages should point to 实名认证 before selling: required, and not approved. */
export async function identityNeeded(userId: string): Promise<boolean> {
  const policy = await identityPolicy();
  if (!policy.required) return false;
  if (!identityEnabled()) return !policy.sellWithoutKey;
  return (await authorIdentity(userId)).status !== "approved";
}

/** Two spellings of one name are the same name: spaces and the middle dot's forms aside, Latin letters in any case. */
export function sameLegalName(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/[\s·•.]/g, "").toUpperCase();
  return norm(a) === norm(b);
}

// ---- key rotation (npm run identity:rotate-key) ----

const ROTATE_BATCH = 200;

/**
 * Re-encrypts every submission not sealed with IDENTITY_KEY, opening it with the key it
 * names (IDENTITY_KEY_OLD): batch by batch, each row in its own conditional UPDATE (still
 * on the old key id), so a run stopped half-way resumes and two runs never double-write.
 * A row that does not open is left as it is and counted (its id is returned).
 */
export async function rotateIdentityKey(): Promise<{ rotated: number; failed: number[] }> {
  const key = currentIdentityKey();
  if (!key) throw new Error("IDENTITY_KEY is not set");
  const ring = identityKeyRing();
  let rotated = 0;
  const failed: number[] = [];
  let after = 0;
  for (;;) {
    const rows = await db
      .select({ id: authorIdentities.id, userId: authorIdentities.userId, keyId: authorIdentities.keyId, name: authorIdentities.nameCipher, number: authorIdentities.numberCipher })
      .from(authorIdentities)
      .where(and(sql`${authorIdentities.keyId} <> ${key.id}`, sql`${authorIdentities.id} > ${after}`))
      .orderBy(asc(authorIdentities.id))
      .limit(ROTATE_BATCH);
    if (rows.length === 0) break;
    for (const row of rows) {
      after = row.id;
      let name: string;
      let number: string;
      try {
        name = openIdentityValue(row.name, ring, identityContext(row.userId, "name"));
        number = openIdentityValue(row.number, ring, identityContext(row.userId, "number"));
      } catch (error) {
        if (!(error instanceof IdentityDecryptError)) throw error;
        failed.push(row.id);
        continue;
      }
      const done = await db
        .update(authorIdentities)
        .set({
          nameCipher: sealIdentityValue(name, key, identityContext(row.userId, "name")),
          numberCipher: sealIdentityValue(number, key, identityContext(row.userId, "number")),
          keyId: key.id,
        })
        .where(and(eq(authorIdentities.id, row.id), eq(authorIdentities.keyId, row.keyId)))
        .returning({ id: authorIdentities.id });
      rotated += done.length;
    }
  }
  return { rotated, failed };
}
