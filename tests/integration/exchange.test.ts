import { eq, sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { credits } from "~/db/schema";
import { action } from "~/routes/shell/credits/credits";
import {
  EXCHANGE_MESSAGES,
  ExchangeStepError,
  exchangeCreditsForTokens,
  LEDGER_MESSAGES,
  LedgerError,
} from "~/server/economy/ledger.server";
import { newFormToken } from "~/server/platform/form-tokens.server";
import { logger } from "~/server/platform/logger.server";
import { checkLedger } from "../../scripts/check-ledger";
import { sessionCookieFor, userRequest } from "../fixtures/accounts";
import { creditBalance, creditLedger, fund, quickUsers, setConfig, tokenBalance, tokenLedger } from "../fixtures/ledger";
import { callThroughRoutes } from "./route-chain";
import { domainError } from "../fixtures/domain-error";
import { resultErrorsOf } from "../fixtures/form-replies";

async function postExchange(cookie: string, amount: string) {
  const request = userRequest(cookie, "/credits?dialog=exchange", { intent: "exchange", amount });
  return callThroughRoutes(action, { request });
}

describe("exchangeCreditsForTokens", () => {
  it("takes the credits, adds amount x ratio tokens and writes both ledger rows", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 10);

    const result = await exchangeCreditsForTokens(user.id, 4);

    expect(result).toEqual({ credits: 4, tokens: 400, balance: 6, tokenBalance: 400 });
    expect(await creditBalance(user.id)).toBe(6);
    expect(await tokenBalance(user.id)).toBe(400);
    expect(await creditLedger(user.id)).toEqual([
      { type: "recharge", amount: 10, description: "测试充值" },
      { type: "consume", amount: 4, description: "兑换Tokens" },
    ]);
    expect(await tokenLedger(user.id)).toEqual([{ type: "exchange", amount: 400, description: "4积分兑换" }]);
  });

  it("uses the configured credits_to_tokens_ratio", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 3);
    await setConfig({ credits_to_tokens_ratio: "250" });
    try {
      const result = await exchangeCreditsForTokens(user.id, 3);
      expect(result.tokens).toBe(750);
      expect(await tokenBalance(user.id)).toBe(750);
    } finally {
      await setConfig({ credits_to_tokens_ratio: "100" });
    }
  });

  it("may spend the whole balance, and not one credit more (积分余额不足)", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 5);
    expect((await domainError(exchangeCreditsForTokens(user.id, 6), LedgerError)).message).toBe(LEDGER_MESSAGES.insufficient);
    expect(await creditBalance(user.id)).toBe(5);
    expect(await tokenBalance(user.id)).toBe(0);
    await exchangeCreditsForTokens(user.id, 5);
    expect(await creditBalance(user.id)).toBe(0);
    expect((await domainError(exchangeCreditsForTokens(user.id, 1), LedgerError)).message).toBe(LEDGER_MESSAGES.insufficient);
    expect(await creditLedger(user.id)).toHaveLength(2);
    expect(await tokenLedger(user.id)).toHaveLength(1);
  });

  it("refuses amounts that are not whole numbers of at least 1", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 100);
    for (const amount of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e300]) {
      expect((await domainError(exchangeCreditsForTokens(user.id, amount), LedgerError)).message).toBe(EXCHANGE_MESSAGES.amount);
    }
    expect(await creditBalance(user.id)).toBe(100);
  });

  it("names the failed step (docs/product.md, Messages) and rolls everything back", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 10);
    // Tokens near the bigint limit: raising them overflows, so the token step fails.
    await db.execute(sql`update profiles set tokens = 9223372036854775000 where id = ${user.id}`);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const error = await exchangeCreditsForTokens(user.id, 10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExchangeStepError);
    expect(error).toMatchObject({ message: EXCHANGE_MESSAGES.tokensFailed, status: 500 });
    // The form shows the step's message with 500.
    const reply = (await postExchange(await sessionCookieFor(user.id), "10")) as { init: ResponseInit };
    expect(resultErrorsOf(reply)).toEqual([EXCHANGE_MESSAGES.tokensFailed]);
    expect(reply.init.status).toBe(500);
    expect(await creditBalance(user.id)).toBe(10);
    expect(await creditLedger(user.id)).toHaveLength(1);
    logged.mockRestore();
    // Back to a balance its (empty) token ledger explains, for the reconciliation below.
    await db.execute(sql`update profiles set tokens = 0 where id = ${user.id}`);
  });

  it(`never overdraws with 50 concurrent exchanges draining one balance (${databaseKind})`, async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 100);

    const results = await Promise.allSettled(Array.from({ length: 50 }, () => exchangeCreditsForTokens(user.id, 3)));

    const done = results.filter((r) => r.status === "fulfilled");
    expect(done).toHaveLength(33);
    for (const r of results) {
      if (r.status === "rejected") expect((r.reason as Error).message).toBe(LEDGER_MESSAGES.insufficient);
    }
    expect(await creditBalance(user.id)).toBe(1);
    expect(await tokenBalance(user.id)).toBe(33 * 300);
    expect((await creditLedger(user.id)).filter((r) => r.type === "consume")).toHaveLength(33);
    expect(await tokenLedger(user.id)).toHaveLength(33);
    const [row] = await db.select({ balance: credits.balance }).from(credits).where(eq(credits.userId, user.id));
    expect(Number(row.balance)).toBeGreaterThanOrEqual(0);
    expect(await checkLedger()).toEqual([]);
  });

  it(`keeps several users' concurrent exchanges apart (${databaseKind})`, async () => {
    const users = await quickUsers(5);
    for (const u of users) await fund(u.id, 20);
    await Promise.allSettled(users.flatMap((u) => Array.from({ length: 10 }, () => exchangeCreditsForTokens(u.id, 7))));
    for (const u of users) {
      expect(await creditBalance(u.id)).toBe(6);
      expect(await tokenBalance(u.id)).toBe(1400);
    }
    expect(await checkLedger()).toEqual([]);
  });
});

describe("the exchange form (/credits action)", () => {
  it("answers an unexpected failure outside the named steps with 兑换失败，请重试 (500), logged once, and rolls back", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 10);
    // Recording the form's token fails, for this user only: a failure no DomainError explains.
    await db.execute(sql.raw(`create function fail_exchange_record() returns trigger language plpgsql as $$ begin raise exception 'boom'; end $$`));
    await db.execute(
      sql.raw(`create trigger fail_exchange_record before insert on form_submissions for each row when (new.user_id = '${user.id}') execute function fail_exchange_record()`),
    );
    const logged = vi.spyOn(logger, "error").mockImplementation(() => {});
    try {
      const request = userRequest(await sessionCookieFor(user.id), "/credits?dialog=exchange", { intent: "exchange", amount: "10", formToken: newFormToken() });
      const reply = (await callThroughRoutes(action, { request })) as { init: ResponseInit };
      expect(resultErrorsOf(reply)).toEqual(["兑换失败，请重试"]);
      expect(reply.init.status).toBe(500);
      expect(logged).toHaveBeenCalledTimes(1);
    } finally {
      logged.mockRestore();
      await db.execute(sql.raw("drop trigger fail_exchange_record on form_submissions"));
      await db.execute(sql.raw("drop function fail_exchange_record()"));
    }
    expect(await creditBalance(user.id)).toBe(10);
    expect(await tokenBalance(user.id)).toBe(0);
  });

  it("redirects to the token history with a notice", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 10);
    const response = (await postExchange(await sessionCookieFor(user.id), "10")) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/credits?tab=tokens");
    expect(await tokenBalance(user.id)).toBe(1000);
  });

  it("refuses 0, -5, 1.5, 1e12, text, empty and more than the balance, changing nothing", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 50);
    const cookie = await sessionCookieFor(user.id);
    for (const amount of ["0", "-5", "1.5", "1e12", "abc", "", " ", "0x10", "١٢"]) {
      const result = await postExchange(cookie, amount);
      expect(resultErrorsOf(result), amount).toEqual(["请输入有效的兑换数量（至少1积分的整数）"]);
    }
    for (const amount of ["51", "1000000000000", "999999999999999"]) {
      expect(resultErrorsOf(await postExchange(cookie, amount)), amount).toEqual(["兑换数量不能超过当前积分余额"]);
    }
    expect(await creditBalance(user.id)).toBe(50);
    expect(await tokenBalance(user.id)).toBe(0);
    expect(await tokenLedger(user.id)).toEqual([]);
  });
});
