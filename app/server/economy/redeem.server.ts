import { DomainError } from "~/server/platform/errors.server";
import { envInt } from "~/env.server";
import { redeemCode, type RedeemResult } from "./ledger.server";
import { hitRateLimit } from "~/server/platform/rate-limit.server";

/** What the redeem form shows for an unexpected failure (domainErrorOf's `unexpected`). */
export const REDEEM_FAILED = "兑换失败，请重试";
const REDEEM_TOO_MANY = "尝试次数过多，请稍后再试";

/**
 * Redeem attempts per user per 15 minutes (RATE_LIMIT_REDEEM, default 20). Codes are 10
 * random digits; the limit keeps guessing hopeless and costs an honest user nothing.
 */
function redeemRule() {
  return { limit: envInt("RATE_LIMIT_REDEEM", 20), windowSeconds: 15 * 60 };
}

/**
 * A user's redeem attempt from the /credits form: counted against the per-user limit
 * (in the database, so it holds across processes), then redeemed by the ledger in one
 * transaction. Throws a DomainError with the message to show.
 */
export async function redeemForUser(userId: string, code: string): Promise<RedeemResult> {
  if (!(await hitRateLimit(`redeem:user:${userId}`, redeemRule()))) {
    throw new DomainError(REDEEM_TOO_MANY, 429, "code");
  }
  // Codes are 10 digits; anything else cannot exist, and need not reach the database.
  if (!/^[1-9][0-9]{9}$/.test(code)) throw new DomainError("兑换码不存在", 404, "code");
  return redeemCode(userId, code);
}
