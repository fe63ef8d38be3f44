import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, lt, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { passwordResetTokens, users } from "~/db/schema";
import { RESET_TOKEN_PATTERN } from "~/schemas/password-reset";
import { PASSWORD_RESET_MESSAGES, RESET_LINK_MINUTES } from "~/schemas/password-reset-rules";
import { envInt } from "~/env.server";
import { DomainError } from "~/server/platform/errors.server";
import { clearLoginFailures } from "./login-failures.server";
import { sendMail } from "~/server/platform/mail.server";
import { hashPassword } from "~/server/platform/password.server";
import { hitRateLimit, type RateLimitRule } from "~/server/platform/rate-limit.server";
import { destroyAllUserSessions } from "./session.server";
import { getDisplayConfig } from "~/server/platform/site-config.server";
import { configuredSiteOrigin } from "~/server/platform/request.server";

/**
 * Forgot password (docs/product.md: Accounts, docs/decisions/067): a link by e-mail with
 * a random single-use token, valid 30 minutes, stored only as its SHA-256. The request
 * answers the same, in about the same time, whether or not the e-mail has an account:
 * the lookup, the token and the mail happen after the answer, in the background.
 */

const HOUR = 60 * 60;

function rules() {
  return {
    perEmail: { limit: envInt("RESET_LIMIT_PER_EMAIL", 5), windowSeconds: HOUR } as RateLimitRule,
    perAddress: { limit: envInt("RESET_LIMIT_PER_ADDRESS", 30), windowSeconds: HOUR } as RateLimitRule,
  };
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * The origin that links in mails point at: SITE_URL, and nothing else. A link built from
 * the request (its Host, a forwarded host) would let a forged header mail a victim a
 * genuine token on another host (reset poisoning); so without SITE_URL no reset mail is
 * sent, the forgot-password page says so, and the server says so at start
 * (docs/decisions/166-mailed-links-from-site-url.md).
 */
export function mailLinkOrigin(): string | null {
  return configuredSiteOrigin();
}

/** What the server logs at start when mails cannot carry links, or null. */
export function mailLinkWarning(): string | null {
  if (mailLinkOrigin()) return null;
  const configured = process.env.SITE_URL?.trim();
  return configured
    ? `SITE_URL is not an http(s) address (${configured}): password reset mails are not sent until it is`
    : "SITE_URL is not set: password reset mails are not sent until it names the site's public address (https://inkstone.example)";
}

// Mails on their way, so tests (and a caller that must) can wait for them.
const inFlight = new Set<Promise<void>>();

/** Resolves when every reset mail started so far has been sent or has failed (and been logged). @internal */
export async function resetMailsSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
}

/**
 * POST /auth/forgot-password. Counts the request per e-mail and per client address (the
 * same for every e-mail, so a refusal says nothing about it), then answers at once; the
 * link goes out afterwards if the e-mail has an account. `email` comes validated and
 * lower-cased from the form's schema. Without SITE_URL nothing is counted or sent (503).
 */
export async function requestPasswordReset(email: string, clientAddress: string): Promise<void> {
  const origin = mailLinkOrigin();
  if (!origin) throw new DomainError(PASSWORD_RESET_MESSAGES.mailUnavailable, 503);
  const { perEmail, perAddress } = rules();
  // The address first: an address over its limit does not use up the e-mail's budget.
  const addressOk = await hitRateLimit(`reset:addr:${clientAddress}`, perAddress);
  const emailOk = addressOk && (await hitRateLimit(`reset:email:${email}`, perEmail));
  if (!addressOk || !emailOk) throw new DomainError(PASSWORD_RESET_MESSAGES.tooManyRequests, 429);
  const job = sendResetLink(email, origin).catch((error: unknown) => {
    // Nobody is waiting for the answer (it must not depend on the account), so the log is where it shows.
    console.error("password reset mail failed", error);
  });
  inFlight.add(job);
  void job.finally(() => inFlight.delete(job));
}

/** Makes a new link for the e-mail's account, if there is one, replacing older ones, and mails it. */
async function sendResetLink(email: string, origin: string): Promise<void> {
  const token = randomBytes(32).toString("base64url");
  const account = await db.transaction(async (tx) => {
    // The row lock orders two requests for one account, so only the later link stays.
    const [user] = await tx
      .select({ id: users.id, email: users.email })
      .from(users)
      // A deleted account (decision 231) is never reopened by a link, whatever its stand-in address.
      .where(and(eq(users.email, email), sql`not exists (select 1 from account_deletions d where d.user_id = users.id and d.deleted_at is not null)`))
      .for("update");
    if (!user) return null;
    // Older links stay, superseded by this one: opened, they say so (resetLinkState).
    await tx.insert(passwordResetTokens).values({
      tokenHash: hashToken(token),
      userId: user.id,
      // The time the lock was held, not the transaction's start: the later link is newer.
      createdAt: sql`clock_timestamp()`,
      // The database's clock, like the check when the link is used: every process agrees.
      expiresAt: sql`now() + ${`${RESET_LINK_MINUTES} minutes`}::interval`,
    });
    return user;
  });
  if (!account) return;
  const { site_title: title } = await getDisplayConfig(["site_title"] as const);
  const siteName = title || "砚台";
  const link = `${origin}/auth/reset-password?token=${token}`;
  await sendMail({
    to: account.email,
    subject: `${siteName}密码重置`,
    text: [
      "你好：",
      "",
      `我们收到了为你在${siteName}的账号（${account.email}）重置密码的请求。请在${RESET_LINK_MINUTES}分钟内打开下面的链接，设置新密码：`,
      "",
      link,
      "",
      "链接只能使用一次。重置后，所有设备上的登录都会失效，需要用新密码重新登录。",
      "如果这不是你本人的操作，请忽略这封邮件，你的密码不会改变。",
      "",
      siteName,
    ].join("\n"),
  });
}

export type ResetLinkState = "valid" | "expired" | "used" | "superseded" | "unknown";

/** A newer link of the same account: it replaced this one. */
const newerLink = sql`exists (select 1 from ${passwordResetTokens} newer where newer.user_id = ${passwordResetTokens.userId} and newer.created_at > ${passwordResetTokens.createdAt})`;

/** What a link's token is worth now; reads only (the page's GET changes nothing). */
export async function resetLinkState(token: string): Promise<ResetLinkState> {
  if (!RESET_TOKEN_PATTERN.test(token)) return "unknown";
  const [row] = await db
    .select({ usedAt: passwordResetTokens.usedAt, live: sql<boolean>`${passwordResetTokens.expiresAt} > now()`, superseded: sql<boolean>`${newerLink}` })
    .from(passwordResetTokens)
    .where(eq(passwordResetTokens.tokenHash, hashToken(token)));
  if (!row) return "unknown";
  if (row.usedAt) return "used";
  if (row.superseded) return "superseded";
  return row.live ? "valid" : "expired";
}

/** The message for a link that cannot be used, one for each reason (docs/product.md: Accounts). */
export function resetLinkMessage(state: Exclude<ResetLinkState, "valid">): string {
  if (state === "expired") return PASSWORD_RESET_MESSAGES.linkExpired;
  if (state === "used") return PASSWORD_RESET_MESSAGES.linkUsed;
  if (state === "superseded") return PASSWORD_RESET_MESSAGES.linkSuperseded;
  return PASSWORD_RESET_MESSAGES.linkUnknown;
}

/** Forgets links a week old (the hourly clean-up): until then each says why it cannot be used. */
export async function deleteOldResetLinks(): Promise<void> {
  await db.delete(passwordResetTokens).where(lt(passwordResetTokens.createdAt, sql`now() - interval '7 days'`));
}

/**
 * Sets a new password through a link: the token is taken by one conditional UPDATE, so of
 * two submissions at once only one gets it, and only if no newer link replaced it; in the
 * same transaction the password changes and every session of the user ends. Then the
 * e-mail's failed logins are forgotten (decision 046). Returns the account's e-mail for the login form.
 * A link that cannot be used throws a DomainError (400) with its message.
 */
export async function resetPassword(token: string, newPassword: string): Promise<{ email: string }> {
  if (!RESET_TOKEN_PATTERN.test(token)) throw new DomainError(PASSWORD_RESET_MESSAGES.linkUnknown, 400, "token");
  const tokenHash = hashToken(token);
  // scrypt before the transaction: no lock is held while it runs.
  const passwordHash = await hashPassword(newPassword);
  const email = await db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(passwordResetTokens)
      .set({ usedAt: sql`now()` })
      .where(and(eq(passwordResetTokens.tokenHash, tokenHash), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, sql`now()`), sql`not ${newerLink}`))
      .returning({ userId: passwordResetTokens.userId });
    if (!claimed) return null;
    const [user] = await tx.update(users).set({ passwordHash }).where(eq(users.id, claimed.userId)).returning({ email: users.email });
    await destroyAllUserSessions(claimed.userId, tx);
    // The user's older links stay, superseded by this one: they say so if opened.
    return user.email;
  });
  if (email === null) {
    const state = await resetLinkState(token);
    throw new DomainError(resetLinkMessage(state === "valid" ? "unknown" : state), 400, "token");
  }
  await clearLoginFailures(email);
  return { email };
}
