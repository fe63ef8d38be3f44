import { sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { envInt } from "~/env.server";
import { DomainError } from "~/server/platform/errors.server";
import { hitRateLimit, resetRateLimit } from "~/server/platform/rate-limit.server";

/**
 * Failed logins, counted so that nobody can aim a lockout at someone else
 * (docs/decisions/046-login-lockout.md, docs/product.md: Accounts). Counters live in the
 * shared `rate_limits` table, so they hold across every app process:
 *
 * - per e-mail and client address (`pair`): after LOGIN_LOCK_AFTER failures (10) that
 *   pair is refused for the rest of its 15-minute window; other addresses are not;
 * - per e-mail over 24 hours (`email`): from LOGIN_SLOW_AFTER failures (20) on, an
 *   attempt from an address the account has not signed in from before must wait for the
 *   e-mail's next slot, 1 s after the last such attempt, doubling with every further
 *   failure up to 60 s; addresses it has signed in from (`known`, 90 days) skip this;
 * - per client address across e-mails (`addr`): LOGIN_ADDRESS_LIMIT failures (100) in
 *   15 minutes, again not counting the addresses an account is known at, so an office
 *   behind one address is not locked out by its own typos.
 */
export type LoginKind = "login" | "admin-login" | "admin-totp";

const LOGIN_TOO_MANY = "尝试次数过多，请稍后再试";
const WINDOW = 15 * 60;
const EMAIL_WINDOW = 24 * 60 * 60;
const MAX_DELAY_SECONDS = 60;
const KNOWN_DAYS = 90;
const KINDS: LoginKind[] = ["login", "admin-login", "admin-totp"];

function limits() {
  return {
    lockAfter: envInt("LOGIN_LOCK_AFTER", 10),
    slowAfter: envInt("LOGIN_SLOW_AFTER", 20),
    addressLimit: envInt("LOGIN_ADDRESS_LIMIT", 100),
  };
}

function normalize(email: string): string {
  return email.trim().toLowerCase();
}

// Addresses and e-mails hold no spaces, so a space separates them unambiguously.
const keys = (kind: LoginKind, email: string, address: string) => ({
  pair: `${kind}:pair:${email} ${address}`,
  address: `${kind}:addr:${address}`,
  email: `${kind}:email:${email}`,
  slot: `${kind}:slot:${email}`,
  known: `${kind}:known:${email} ${address}`,
});

/** Seconds a throttled attempt waits after the previous one, for this many failures. @internal */
export function slowdownSeconds(failures: number, slowAfter: number): number {
  if (failures < slowAfter) return 0;
  return Math.min(MAX_DELAY_SECONDS, 2 ** Math.min(failures - slowAfter, 16));
}

async function undoHit(key: string): Promise<void> {
  await db.execute(sql`update rate_limits set count = greatest(count - 1, 0) where key = ${key}`);
}

async function isKnown(key: string): Promise<boolean> {
  const result = await db.execute(
    sql`select 1 from rate_limits where key = ${key} and window_start > now() - ${`${KNOWN_DAYS} days`}::interval`,
  );
  return rowsOf(result).length > 0;
}

async function failuresOf(key: string): Promise<number> {
  const result = await db.execute(
    sql`select count from rate_limits where key = ${key} and window_start > now() - ${`${EMAIL_WINDOW} seconds`}::interval`,
  );
  const [row] = rowsOf<{ count: number | string }>(result);
  return row ? Number(row.count) : 0;
}

/**
 * Takes the e-mail's next slot for an attempt from an unknown address, atomically, so
 * that parallel requests cannot share one; or says how many seconds are left.
 */
async function claimSlot(key: string, delaySeconds: number): Promise<number> {
  const interval = `${delaySeconds} seconds`;
  const claimed = await db.execute(sql`
    insert into rate_limits (key, window_start, count) values (${key}, now(), 1)
    on conflict (key) do update set window_start = now(), count = rate_limits.count + 1
      where rate_limits.window_start <= now() - ${interval}::interval
    returning 1 as ok`);
  if (rowsOf(claimed).length > 0) return 0;
  const left = await db.execute(sql`
    select ceil(extract(epoch from (window_start + ${interval}::interval - now())))::int as seconds
    from rate_limits where key = ${key}`);
  const [row] = rowsOf<{ seconds: number | string }>(left);
  return Math.max(1, Number(row?.seconds ?? 1));
}

/**
 * Runs one login attempt under the limits above. `check` verifies the password and
 * answers the account, or null for a wrong e-mail or password (counted as a failure).
 * A refused attempt throws a DomainError with status 429 and does not run `check`.
 */
export async function attemptLogin<T>(
  kind: LoginKind,
  rawEmail: string,
  address: string,
  check: () => Promise<T | null>,
): Promise<T | null> {
  const email = normalize(rawEmail);
  const { lockAfter, slowAfter, addressLimit } = limits();
  const k = keys(kind, email, address);
  const known = await isKnown(k.known);

  if (!(await hitRateLimit(k.pair, { limit: lockAfter, windowSeconds: WINDOW }))) {
    throw new DomainError(LOGIN_TOO_MANY, 429);
  }
  if (!known) {
    if (!(await hitRateLimit(k.address, { limit: addressLimit, windowSeconds: WINDOW }))) {
      await undoHit(k.pair);
      throw new DomainError(LOGIN_TOO_MANY, 429);
    }
    const delay = slowdownSeconds(await failuresOf(k.email), slowAfter);
    const wait = delay > 0 ? await claimSlot(k.slot, delay) : 0;
    if (wait > 0) {
      await Promise.all([undoHit(k.pair), undoHit(k.address)]);
      throw new DomainError(`尝试次数过多，请${wait}秒后再试`, 429);
    }
  }

  const account = await check();
  if (account === null) {
    await hitRateLimit(k.email, { limit: Number.MAX_SAFE_INTEGER, windowSeconds: EMAIL_WINDOW });
    return null;
  }
  // Only failures count against the address; the account now knows this address.
  await Promise.all([
    known ? undefined : undoHit(k.address),
    resetRateLimit(k.pair),
    resetRateLimit(k.email),
    resetRateLimit(k.slot),
    db.execute(sql`
      insert into rate_limits (key, window_start, count) values (${k.known}, now(), 1)
      on conflict (key) do update set window_start = now()`),
  ]);
  return account;
}

/**
 * Forgets every failed login of an e-mail, on the user login and the back-office login
 * alike: after a password reset, or by an operator (`npm run admin:unlock -- <email>`).
 * The addresses the account signed in from stay known.
 */
export async function clearLoginFailures(rawEmail: string): Promise<number> {
  const email = normalize(rawEmail);
  let cleared = 0;
  for (const kind of KINDS) {
    const k = keys(kind, email, "");
    const result = await db.execute(sql`
      delete from rate_limits
      where key = ${k.email} or key = ${k.slot} or left(key, ${k.pair.length}) = ${k.pair}
      returning key`);
    cleared += rowsOf(result).length;
  }
  return cleared;
}
