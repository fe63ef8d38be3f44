import { createHash, randomBytes } from "node:crypto";
import { and, count, eq, isNotNull, isNull, or, lt, sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { renderSVG } from "uqr";
import { db } from "~/db/client.server";
import { adminRecoveryCodes, admins } from "~/db/schema";
import { ADMIN_ACCOUNT_MESSAGES as M, isRecoveryCode, RECOVERY_CODE_ALPHABET, RECOVERY_CODE_COUNT } from "~/schemas/admin-accounts";
import { DomainError } from "~/server/platform/errors.server";
import { attemptLogin } from "./login-failures.server";
import { recordAdminAction, type SignedInActor } from "~/server/platform/audit.server";

/**
 * TOTP two-factor sign-in for administrators (docs/decisions/134), RFC 6238 with the
 * authenticator apps' defaults: SHA-1, 6 digits, 30-second steps, one step of clock drift
 * either way. A code is accepted once: the step it belongs to is stored, and a code from
 * that step or an earlier one is refused. Ten single-use recovery codes stand in for the
 * authenticator when it is lost (docs/decisions/167).
 */
const PERIOD = 30;

type Tx = Parameters<Parameters<typeof db.transaction>[0]>[0];
const ISSUER = "砚台管理后台";

function totpFor(secret: string, email: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: PERIOD });
}

/** The time step a valid `code` belongs to, or null. */
function matchingStep(secret: string, code: string, now = Date.now()): number | null {
  const delta = TOTP.validate({ token: code, secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: PERIOD, timestamp: now, window: 1 });
  if (delta === null) return null;
  return Math.floor(now / 1000 / PERIOD) + delta;
}

/**
 * Enrolment, step 1: a fresh secret is stored (not yet in force) and shown as a QR code
 * and as text. Only while no authenticator is confirmed.
 */
export async function startTotpEnrolment(adminId: string): Promise<void> {
  const secret = new Secret({ size: 20 }).base32;
  const rows = await db
    .update(admins)
    .set({ totpSecret: secret, totpLastStep: null, updatedAt: new Date() })
    .where(and(eq(admins.id, adminId), isNull(admins.totpEnabledAt)))
    .returning({ id: admins.id });
  if (rows.length === 0) throw new DomainError(M.totpAlreadyOn, 409);
}

/** What the account page shows while enrolling: the secret as text, its otpauth:// URI as an SVG QR code. */
export async function pendingEnrolment(adminId: string, email: string): Promise<{ secret: string; uri: string; qrSvg: string } | null> {
  const [row] = await db.select({ secret: admins.totpSecret, enabledAt: admins.totpEnabledAt }).from(admins).where(eq(admins.id, adminId));
  if (!row?.secret || row.enabledAt) return null;
  const uri = totpFor(row.secret, email).toString();
  return { secret: row.secret.replace(/(.{4})/g, "$1 ").trim(), uri, qrSvg: renderSVG(uri, { border: 2 }) };
}

/**
 * Stores `step` as the last one used, if it is later than the stored one: the one
 * conditional update that makes each code good for one use, even for two requests at once.
 */
async function useStep(tx: typeof db | Tx, adminId: string, step: number, extra: Partial<typeof admins.$inferInsert> = {}) {
  const rows = await tx
    .update(admins)
    .set({ totpLastStep: step, updatedAt: new Date(), ...extra })
    .where(and(eq(admins.id, adminId), or(isNull(admins.totpLastStep), lt(admins.totpLastStep, step))))
    .returning({ id: admins.id });
  return rows.length > 0;
}

/** A recovery code as stored: the SHA-256 of its normalized form (80 random bits: no salt needed). */
function recoveryCodeHash(normalized: string): string {
  return createHash("sha256").update(normalized).digest("hex");
}

/** One fresh code: 16 characters of Crockford's base32 (80 bits), shown as xxxx-xxxx-xxxx-xxxx. */
function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  let bits = 0;
  let value = 0;
  let code = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      code += RECOVERY_CODE_ALPHABET[(value >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return code;
}

/** Replaces the admin's recovery codes with ten new ones; answers them (shown once, never stored). */
async function replaceRecoveryCodes(tx: Tx, adminId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.delete(adminRecoveryCodes).where(eq(adminRecoveryCodes.adminId, adminId));
  await tx.insert(adminRecoveryCodes).values(codes.map((code) => ({ adminId, codeHash: recoveryCodeHash(code) })));
  return codes.map((code) => code.replace(/(.{4})(?!$)/g, "$1-"));
}

/** Takes an unused recovery code of the admin, once (one conditional update, also for two requests at once). */
async function useRecoveryCode(tx: Tx | typeof db, adminId: string, normalized: string): Promise<boolean> {
  const rows = await tx
    .update(adminRecoveryCodes)
    .set({ usedAt: sql`now()` })
    .where(and(eq(adminRecoveryCodes.codeHash, recoveryCodeHash(normalized)), eq(adminRecoveryCodes.adminId, adminId), isNull(adminRecoveryCodes.usedAt)))
    .returning({ hash: adminRecoveryCodes.codeHash });
  return rows.length > 0;
}

/**
 * A second factor as typed where two-factor is on (the sign-in's step, turning it off,
 * new recovery codes): a current authenticator code, or an unused recovery code; either
 * is used up. `code` comes normalized from the form's schema.
 */
async function useSecondFactor(tx: Tx | typeof db, adminId: string, secret: string, code: string): Promise<boolean> {
  if (isRecoveryCode(code)) return useRecoveryCode(tx, adminId, code);
  const step = matchingStep(secret, code);
  return step !== null && (await useStep(tx, adminId, step));
}

/** How many unused recovery codes the admin has (the account page). */
export async function recoveryCodesLeft(adminId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(adminRecoveryCodes)
    .where(and(eq(adminRecoveryCodes.adminId, adminId), isNull(adminRecoveryCodes.usedAt)));
  return Number(row?.n ?? 0);
}

/**
 * Runs a check of a code typed on the account page under the sign-in step's failure
 * counting (kind admin-totp, per e-mail and address, login-failures.server.ts): a session
 * alone cannot try codes without limit. `check` answers null for a wrong code, having
 * changed nothing.
 */
async function countedCodeCheck<T>(actor: SignedInActor, check: () => Promise<T | null>): Promise<T> {
  const result = await attemptLogin("admin-totp", actor.admin.email, actor.address, check);
  if (result === null) throw new DomainError(M.wrongCode, 400, "code");
  return result;
}

/**
 * Enrolment, step 2: a code from the authenticator turns two-factor on, and ten recovery
 * codes are made; they are answered to be shown once.
 */
export async function confirmTotpEnrolment(actor: SignedInActor, code: string): Promise<{ recoveryCodes: string[] }> {
  return countedCodeCheck(actor, () =>
    db.transaction(async (tx) => {
      const [row] = await tx.select({ secret: admins.totpSecret, enabledAt: admins.totpEnabledAt }).from(admins).where(eq(admins.id, actor.admin.id)).for("update");
      if (row?.enabledAt) throw new DomainError(M.totpAlreadyOn, 409);
      if (!row?.secret) throw new DomainError(M.totpNotStarted, 400);
      const step = matchingStep(row.secret, code);
      if (step === null || !(await useStep(tx, actor.admin.id, step, { totpEnabledAt: new Date() }))) return null;
      const recoveryCodes = await replaceRecoveryCodes(tx, actor.admin.id);
      await recordAdminAction(tx, actor, { action: "admin.totp-enable", targetType: "admin", targetId: actor.admin.id });
      return { recoveryCodes };
    }),
  );
}

/** Ten new recovery codes in place of the old ones, for a current code (or an unused recovery code). */
export async function regenerateRecoveryCodes(actor: SignedInActor, code: string): Promise<{ recoveryCodes: string[] }> {
  return countedCodeCheck(actor, () =>
    db.transaction(async (tx) => {
      const [row] = await tx.select({ secret: admins.totpSecret, enabledAt: admins.totpEnabledAt }).from(admins).where(eq(admins.id, actor.admin.id)).for("update");
      if (!row?.enabledAt || !row.secret) throw new DomainError(M.totpOff, 409);
      if (!(await useSecondFactor(tx, actor.admin.id, row.secret, code))) return null;
      const recoveryCodes = await replaceRecoveryCodes(tx, actor.admin.id);
      await recordAdminAction(tx, actor, { action: "admin.totp-recovery-codes", targetType: "admin", targetId: actor.admin.id });
      return { recoveryCodes };
    }),
  );
}

/** Turning two-factor off needs a current code or a recovery code (a stolen session alone cannot), counted like the sign-in's. */
export async function disableTotp(actor: SignedInActor, code: string): Promise<void> {
  await countedCodeCheck(actor, () =>
    db.transaction(async (tx) => {
      const [row] = await tx.select({ secret: admins.totpSecret, enabledAt: admins.totpEnabledAt }).from(admins).where(eq(admins.id, actor.admin.id)).for("update");
      if (!row?.enabledAt || !row.secret) throw new DomainError(M.totpOff, 409);
      if (!(await useSecondFactor(tx, actor.admin.id, row.secret, code))) return null;
      await tx.update(admins).set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null }).where(eq(admins.id, actor.admin.id));
      await tx.delete(adminRecoveryCodes).where(eq(adminRecoveryCodes.adminId, actor.admin.id));
      await recordAdminAction(tx, actor, { action: "admin.totp-disable", targetType: "admin", targetId: actor.admin.id });
      return true;
    }),
  );
}

/**
 * The login's second step: true when `code` is a current, unused code of the admin's
 * authenticator, or one of their unused recovery codes; either is used up.
 */
export async function verifyLoginCode(adminId: string, code: string): Promise<boolean> {
  const [row] = await db
    .select({ secret: admins.totpSecret })
    .from(admins)
    .where(and(eq(admins.id, adminId), isNotNull(admins.totpEnabledAt), isNull(admins.disabledAt)));
  if (!row?.secret) return false;
  return useSecondFactor(db, adminId, row.secret, code);
}
