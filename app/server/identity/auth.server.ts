import { AsyncLocalStorage } from "node:async_hooks";
import { eq, sql } from "drizzle-orm";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { db } from "~/db/client.server";
import { credits, profiles, tokenTransactions, users } from "~/db/schema";
import { loginSchema, registerSchema } from "~/schemas/auth";
import { envInt } from "~/env.server";
import { pgErrorCode, UNIQUE_VIOLATION } from "~/server/platform/db-utils.server";
import { dummyPasswordHash, hashPassword, verifyPassword } from "~/server/platform/password.server";
import { DomainError } from "~/server/platform/errors.server";
import { attemptLogin } from "./login-failures.server";
import { firstNickname } from "./profile.server";
import { hitRateLimit, type RateLimitRule } from "~/server/platform/rate-limit.server";
import { configInt, getSiteConfigValue } from "~/server/platform/site-config.server";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";

/** @internal */
export const AUTH_MESSAGES = {
  invalidCredentials: "邮箱或密码错误",
  emailTaken: "该邮箱已被注册",
  tooManyAttempts: "尝试次数过多，请稍后再试",
  banned: (reason: string, until: Date | null) =>
    `该账号已被封禁${until ? `至 ${formatShanghaiSeconds(until)}` : ""}，原因：${reason}`,
} as const;

/** A refused login or registration: its messages by field (or the form's), and 400 or 429. */
export class AuthError extends DomainError {
  constructor(
    message: string,
    readonly fieldErrors: Record<string, string[]> = {},
    status: 400 | 403 | 429 = 400,
  ) {
    super(message, status);
    this.name = "AuthError";
  }
}

/**
 * Whether a user is banned now (decision 137): banned, and the ban has no end or ends later.
 * A ban that ran out needs no cleanup.
 */
export const banActive = sql<boolean>`(${users.bannedAt} is not null and (${users.bannedUntil} is null or ${users.bannedUntil} > now()))`;

const WINDOW = 15 * 60;
/** Registration attempts; failed logins are counted by login-failures.server.ts. */
function rules() {
  return {
    perEmail: { limit: envInt("RATE_LIMIT_PER_EMAIL", 10), windowSeconds: WINDOW } as RateLimitRule,
    perAddress: { limit: envInt("RATE_LIMIT_PER_ADDRESS", 50), windowSeconds: WINDOW } as RateLimitRule,
  };
}

async function checkRegisterLimits(email: string, clientAddress: string) {
  const { perEmail, perAddress } = rules();
  const [emailOk, addressOk] = [
    await hitRateLimit(`register:email:${email}`, perEmail),
    await hitRateLimit(`register:addr:${clientAddress}`, perAddress),
  ];
  if (!emailOk || !addressOk) throw new AuthError(AUTH_MESSAGES.tooManyAttempts, {}, 429);
}

function fieldErrorsOf(issues: { path: PropertyKey[]; message: string }[]) {
  const out: Record<string, string[]> = {};
  for (const issue of issues) {
    const key = String(issue.path[0] ?? "");
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

export interface AuthenticatedUser {
  id: string;
  email: string;
}

/** Checks e-mail and password; the one place a login is decided. @internal */
export async function login(form: FormData, clientAddress: string): Promise<AuthenticatedUser> {
  const parsed = loginSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw new AuthError("", fieldErrorsOf(parsed.error.issues));
  const { email, password } = parsed.data;
  let account: (AuthenticatedUser & { ban: { reason: string; until: Date | null } | null }) | null;
  try {
    account = await attemptLogin("login", email, clientAddress, async () => {
      const [user] = await db
        .select({
          id: users.id,
          email: users.email,
          passwordHash: users.passwordHash,
          banReason: users.banReason,
          bannedUntil: users.bannedUntil,
          banned: banActive,
        })
        .from(users)
        .where(eq(users.email, email));
      // Hash even for an unknown e-mail, so the response time does not reveal which exist.
      const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
      if (!user || !ok) return null;
      // A ban is told only to whoever knows the password (decision 137).
      const ban = user.banned ? { reason: user.banReason ?? "", until: user.bannedUntil } : null;
      return { id: user.id, email: user.email, ban };
    });
  } catch (error) {
    if (error instanceof DomainError) throw new AuthError(error.message, {}, 429);
    throw error;
  }
  if (!account) throw new AuthError(AUTH_MESSAGES.invalidCredentials);
  if (account.ban) throw new AuthError(AUTH_MESSAGES.banned(account.ban.reason, account.ban.until), {}, 403);
  return { id: account.id, email: account.email };
}

/**
 * Creates the account, its profile (with the configured initial tokens, recorded in
 * the token ledger) and a credits row of 0, in one transaction.
 */
export async function register(form: FormData, clientAddress: string): Promise<AuthenticatedUser> {
  const parsed = registerSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw new AuthError("", fieldErrorsOf(parsed.error.issues));
  const { email, password } = parsed.data;
  await checkRegisterLimits(email, clientAddress);
  const passwordHash = await hashPassword(password);
  const initialTokens = configInt(await getSiteConfigValue("initial_tokens"), 0);
  const nickname = await firstNickname(email);
  try {
    return await db.transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ email, passwordHash })
        .returning({ id: users.id, email: users.email });
      await tx.insert(profiles).values({
        id: user.id,
        email,
        nickname,
        tokens: initialTokens,
      });
      await tx.insert(credits).values({ userId: user.id, balance: 0 });
      if (initialTokens > 0) {
        await tx.insert(tokenTransactions).values({
          userId: user.id,
          amount: initialTokens,
          type: "grant",
          description: "新用户赠送",
        });
      }
      return user;
    });
  } catch (error) {
    if (pgErrorCode(error) === UNIQUE_VIOLATION) throw new AuthError(AUTH_MESSAGES.emailTaken);
    throw error;
  }
}

// The strategy only sees the request (remix-auth even copies it), so the client
// address travels in async context.
const clientAddress = new AsyncLocalStorage<string>();

/** remix-auth with a form strategy: verify calls the login domain function. */
const authenticator = new Authenticator<AuthenticatedUser>();
authenticator.use(
  new FormStrategy(async ({ form }) => login(form, clientAddress.getStore() ?? "unknown")),
  "form",
);

export function authenticateLogin(request: Request, address: string): Promise<AuthenticatedUser> {
  return clientAddress.run(address, () => authenticator.authenticate("form", request));
}
