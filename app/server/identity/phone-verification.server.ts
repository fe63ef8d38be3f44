import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { and, desc, eq, lt, ne, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { phoneCodes, siteConfigs, users } from "~/db/schema";
import { maskPhone } from "~/schemas/phone";
import { PHONE_CODE_MAX_TRIES, PHONE_CODE_MINUTES, PHONE_MESSAGES } from "~/schemas/phone-rules";
import { envInt } from "~/env.server";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { pgErrorCode, UNIQUE_VIOLATION } from "~/server/platform/db-utils.server";
import { DEFAULT_SITE_CONFIGS } from "~/server/platform/defaults.server";
import { DomainError } from "~/server/platform/errors.server";
import { hitRateLimit, type RateLimitRule } from "~/server/platform/rate-limit.server";
import { getDisplayConfig } from "~/server/platform/site-config.server";
import { sendSms } from "~/server/platform/sms.server";

/**
 * 后台实名 (docs/product.md#phone-verification, decision 235): a reader binds a mainland
 * phone number by a 6-digit code sent through the SMS transport; while the operator's
 * switch is on, 本章说, 段评, replies, 书评 and a tip's message need a bound number.
 */

const POLICY_KEY = "comment_phone_required";
const HOUR = 60 * 60;

function sendRules() {
  return {
    perAddress: { limit: envInt("SMS_LIMIT_PER_ADDRESS", 20), windowSeconds: HOUR } as RateLimitRule,
    perPhone: { limit: envInt("SMS_LIMIT_PER_PHONE", 5), windowSeconds: HOUR } as RateLimitRule,
    // One code a minute to a number, as every Chinese site does (获取验证码 counts down 60 s).
    perPhoneMinute: { limit: 1, windowSeconds: 60 } as RateLimitRule,
  };
}

// ---- the operator's switch ----

/** Whether a verified phone is required before posting comments and reviews. */
export async function phoneRequiredToComment(executor: Executor = db): Promise<boolean> {
  const [row] = await executor.select({ value: siteConfigs.value }).from(siteConfigs).where(eq(siteConfigs.key, POLICY_KEY));
  return (row?.value ?? DEFAULT_SITE_CONFIGS[POLICY_KEY]) === "on";
}

/** The 超级管理员's switch, audited. */
export async function savePhonePolicy(actor: AdminActor, required: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await phoneRequiredToComment(tx);
    await tx
      .insert(siteConfigs)
      .values({ key: POLICY_KEY, value: required ? "on" : "off" })
      .onConflictDoUpdate({ target: siteConfigs.key, set: { value: sql`excluded.value`, updatedAt: new Date() } });
    await recordAdminAction(tx, actor, {
      action: "settings.phone",
      targetType: "setting",
      targetId: "phone",
      ...changedFields({ required: before }, { required }),
    });
  });
}

/** The reader's bound number, or null. */
async function boundPhone(userId: string, executor: Executor = db): Promise<string | null> {
  const [row] = await executor.select({ phone: users.phone }).from(users).where(eq(users.id, userId));
  return row?.phone ?? null;
}

/** Whether the comment forms must ask this reader for a phone first (the switch on, none bound). */
export async function phoneNeededToComment(userId: string): Promise<boolean> {
  if (!(await phoneRequiredToComment())) return false;
  return (await boundPhone(userId)) === null;
}

/** The server's refusal (403) of a post by a reader without a bound phone while the switch is on. */
export async function refuseWithoutPhone(userId: string, field?: string): Promise<void> {
  if (await phoneNeededToComment(userId)) throw new DomainError(PHONE_MESSAGES.required, 403, field);
}

// ---- the reader's side ----

export interface PhoneView {
  /** The bound number, masked, or null. */
  phone: string | null;
  /** A code waiting to be entered: the masked number it went to. */
  pending: string | null;
  required: boolean;
}

/** What /settings/phone shows: the bound number and a code waiting, both masked. */
export async function phoneSettings(userId: string): Promise<PhoneView> {
  const [bound, [code], required] = await Promise.all([
    boundPhone(userId),
    db
      .select({ phone: phoneCodes.phone })
      .from(phoneCodes)
      .where(
        and(
          eq(phoneCodes.userId, userId),
          sql`${phoneCodes.usedAt} is null and ${phoneCodes.expiresAt} > now() and ${phoneCodes.wrongTries} < ${PHONE_CODE_MAX_TRIES}`,
          sql`${phoneCodes.id} = (select max(pc.id) from phone_codes pc where pc.user_id = ${userId})`,
        ),
      ),
    phoneRequiredToComment(),
  ]);
  return { phone: bound && maskPhone(bound), pending: code ? maskPhone(code.phone) : null, required };
}

function codeHash(salt: string, userId: string, phone: string, code: string): string {
  return createHash("sha256").update(`${salt}:${userId}:${phone}:${code}`).digest("hex");
}

function codeMatches(stored: string, userId: string, phone: string, code: string): boolean {
  const [salt, hash] = stored.split(":");
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, "hex");
  const actual = Buffer.from(codeHash(salt, userId, phone, code), "hex");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Another account holding the number. */
async function takenByOther(userId: string, phone: string, executor: Executor = db): Promise<boolean> {
  const [row] = await executor.select({ id: users.id }).from(users).where(and(eq(users.phone, phone), ne(users.id, userId)));
  return Boolean(row);
}

/**
 * 获取验证码: counts the request per client address, refuses a number bound to another
 * account (or already this one's), counts it per number (5 an hour, 1 a minute), then stores
 * a new code (hashed) and sends it. A failed send leaves no code behind (502).
 */
export async function sendPhoneCode(userId: string, phone: string, clientAddress: string): Promise<void> {
  const rules = sendRules();
  // The address first: checking numbers one after another is limited like sending.
  if (!(await hitRateLimit(`sms:addr:${clientAddress}`, rules.perAddress))) throw new DomainError(PHONE_MESSAGES.tooManySends, 429, "phone");
  if ((await boundPhone(userId)) === phone) throw new DomainError(PHONE_MESSAGES.alreadyMine, 400, "phone");
  if (await takenByOther(userId, phone)) throw new DomainError(PHONE_MESSAGES.taken, 409, "phone");
  if (!(await hitRateLimit(`sms:phone-minute:${phone}`, rules.perPhoneMinute))) throw new DomainError(PHONE_MESSAGES.resendWait, 429, "phone");
  if (!(await hitRateLimit(`sms:phone:${phone}`, rules.perPhone))) throw new DomainError(PHONE_MESSAGES.tooManySends, 429, "phone");

  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const salt = randomBytes(16).toString("hex");
  const [row] = await db
    .insert(phoneCodes)
    .values({
      userId,
      phone,
      codeHash: `${salt}:${codeHash(salt, userId, phone, code)}`,
      // The database's clock, like the check when the code is entered.
      expiresAt: sql`now() + ${`${PHONE_CODE_MINUTES} minutes`}::interval`,
    })
    .returning({ id: phoneCodes.id });
  const { site_title: title } = await getDisplayConfig(["site_title"] as const);
  try {
    await sendSms({
      phone,
      text: `【${title || "砚台"}】你的验证码是 ${code}，${PHONE_CODE_MINUTES} 分钟内有效，用于绑定手机号。请勿告诉他人。`,
    });
  } catch (error) {
    await db.delete(phoneCodes).where(eq(phoneCodes.id, row.id));
    console.error(`SMS to ${maskPhone(phone)} failed`, error);
    throw new DomainError(PHONE_MESSAGES.sendFailed, 502, "phone");
  }
}

type ConfirmOutcome = { ok: true; phone: string } | { ok: false; message: string; status: 400 | 409 };

/**
 * 绑定: the reader's newest code decides. Under its row's lock: none, used, expired or out
 * of tries is refused; a wrong code counts a try (committed); the right one is used and the
 * number bound in one transaction, refused whole when another account took it meanwhile.
 * Returns the bound number, masked.
 */
export async function confirmPhoneCode(userId: string, code: string): Promise<string> {
  let outcome: ConfirmOutcome;
  try {
    outcome = await db.transaction(async (tx): Promise<ConfirmOutcome> => {
      const [row] = await tx
        .select({
          id: phoneCodes.id,
          phone: phoneCodes.phone,
          codeHash: phoneCodes.codeHash,
          usedAt: phoneCodes.usedAt,
          wrongTries: phoneCodes.wrongTries,
          live: sql<boolean>`${phoneCodes.expiresAt} > now()`,
        })
        .from(phoneCodes)
        .where(eq(phoneCodes.userId, userId))
        .orderBy(desc(phoneCodes.id))
        .limit(1)
        .for("update");
      if (!row) return { ok: false, message: PHONE_MESSAGES.noCode, status: 400 };
      if (row.usedAt) return { ok: false, message: PHONE_MESSAGES.codeUsed, status: 400 };
      if (!row.live) return { ok: false, message: PHONE_MESSAGES.codeExpired, status: 400 };
      if (row.wrongTries >= PHONE_CODE_MAX_TRIES) return { ok: false, message: PHONE_MESSAGES.tooManyTries, status: 400 };
      if (!codeMatches(row.codeHash, userId, row.phone, code)) {
        await tx
          .update(phoneCodes)
          .set({ wrongTries: sql`${phoneCodes.wrongTries} + 1` })
          .where(eq(phoneCodes.id, row.id));
        const left = PHONE_CODE_MAX_TRIES - row.wrongTries - 1;
        return { ok: false, message: left > 0 ? PHONE_MESSAGES.codeWrong(left) : PHONE_MESSAGES.tooManyTries, status: 400 };
      }
      if (await takenByOther(userId, row.phone, tx)) return { ok: false, message: PHONE_MESSAGES.taken, status: 409 };
      await tx.update(phoneCodes).set({ usedAt: sql`now()` }).where(eq(phoneCodes.id, row.id));
      await tx.update(users).set({ phone: row.phone, phoneVerifiedAt: sql`now()` }).where(eq(users.id, userId));
      return { ok: true, phone: row.phone };
    });
  } catch (error) {
    // Two accounts binding one number at once: the unique key lets one through, the other is told.
    if (pgErrorCode(error) === UNIQUE_VIOLATION) throw new DomainError(PHONE_MESSAGES.taken, 409, "code");
    throw error;
  }
  if (!outcome.ok) throw new DomainError(outcome.message, outcome.status, "code");
  return maskPhone(outcome.phone);
}

/** Codes older than a day are of no use (the cleanup job). */
export async function deleteOldPhoneCodes(): Promise<void> {
  await db.delete(phoneCodes).where(lt(phoneCodes.createdAt, sql`now() - interval '1 day'`));
}
