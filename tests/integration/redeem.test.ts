import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { creditTransactions, credits, redeemCodes } from "~/db/schema";
import { REDEEM_MESSAGES, redeemCode, LedgerError } from "~/server/economy/ledger.server";
import { redeemForUser } from "~/server/economy/redeem.server";
import { action } from "~/routes/shell/credits/credits";
import { checkLedger } from "../../scripts/check-ledger";
import { sessionCookieFor, userRequest } from "../fixtures/accounts";
import { creditBalance as balanceOf, creditLedger as ledgerOf, quickUsers } from "../fixtures/ledger";
import { callThroughRoutes } from "./route-chain";
import { domainError } from "../fixtures/domain-error";

const createUser = async () => (await quickUsers(1))[0];

let nextCode = 1_000_000_000 + Math.floor(Math.random() * 8_000_000_000);
async function makeCode(amount = 100): Promise<string> {
  const code = String(nextCode++);
  await db.insert(redeemCodes).values({ code, amount });
  return code;
}

async function codeRow(code: string) {
  const [row] = await db.select().from(redeemCodes).where(eq(redeemCodes.code, code));
  return row;
}

/** Posts the /credits redeem form as the user; returns the action's Response or data. */
async function postRedeem(cookie: string, code: string) {
  const request = userRequest(cookie, "/credits?dialog=redeem", { intent: "redeem", code });
  return callThroughRoutes(action, { request });
}

function fieldError(result: unknown, field: string): string | undefined {
  const init = result as { data?: { result?: { error?: Record<string, string[] | null> } } };
  return init.data?.result?.error?.[field]?.[0];
}

afterEach(() => {
  delete process.env.RATE_LIMIT_REDEEM;
});

describe("redeemCode", () => {
  it("marks the code used by the user and credits its amount with a 兑换码充值 row, in one go", async () => {
    const user = await createUser();
    const code = await makeCode(100);

    const result = await redeemCode(user.id, code);

    expect(result).toEqual({ amount: 100, balance: 100 });
    expect(await balanceOf(user.id)).toBe(100);
    const row = await codeRow(code);
    expect(row.status).toBe("used");
    expect(row.usedBy).toBe(user.id);
    expect(row.usedAt).toBeInstanceOf(Date);
    expect(await ledgerOf(user.id)).toEqual([{ type: "recharge", amount: 100, description: "兑换码充值" }]);
  });

  it("refuses an unknown code with 兑换码不存在 and changes nothing", async () => {
    const user = await createUser();
    const error = await domainError(redeemCode(user.id, "1234567890"), LedgerError);
    expect(error.message).toBe(REDEEM_MESSAGES.notFound);
    expect(await balanceOf(user.id)).toBe(0);
    expect(await ledgerOf(user.id)).toEqual([]);
  });

  it("refuses a used code with 兑换码已被使用, for its user and for anyone else", async () => {
    const first = await createUser();
    const second = await createUser();
    const code = await makeCode(50);
    await redeemCode(first.id, code);

    expect((await domainError(redeemCode(first.id, code), LedgerError)).message).toBe(REDEEM_MESSAGES.used);
    expect((await domainError(redeemCode(second.id, code), LedgerError)).message).toBe(REDEEM_MESSAGES.used);
    expect(await balanceOf(first.id)).toBe(50);
    expect(await balanceOf(second.id)).toBe(0);
    expect((await codeRow(code)).usedBy).toBe(first.id);
  });

  it("leaves the code unused when the credit cannot be made (no credits account)", async () => {
    const user = await createUser();
    await db.delete(credits).where(eq(credits.userId, user.id));
    const code = await makeCode(10);
    await expect(redeemCode(user.id, code)).rejects.toThrow("用户不存在");
    const row = await codeRow(code);
    expect(row.status).toBe("unused");
    expect(row.usedBy).toBeNull();
  });

  it(`gives one code to exactly one of 50 concurrent redeems by 50 users (${databaseKind})`, async () => {
    const users = await quickUsers(50);
    const code = await makeCode(200);

    const results = await Promise.allSettled(users.map((u) => redeemCode(u.id, code)));

    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") expect((r.reason as Error).message).toBe(REDEEM_MESSAGES.used);
    }
    const balances = await Promise.all(users.map((u) => balanceOf(u.id)));
    expect(balances.reduce((a, b) => a + b, 0)).toBe(200);
    const winner = users[balances.indexOf(200)];
    expect((await codeRow(code)).usedBy).toBe(winner.id);
    const rows = await db.select().from(creditTransactions).where(eq(creditTransactions.description, "兑换码充值"));
    expect(rows.filter((r) => users.some((u) => u.id === r.userId))).toHaveLength(1);
    expect(await checkLedger()).toEqual([]);
  });

  it(`credits once when one user submits the same code 50 times at once (${databaseKind})`, async () => {
    const user = await createUser();
    const code = await makeCode(30);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => redeemCode(user.id, code)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await balanceOf(user.id)).toBe(30);
    expect(await ledgerOf(user.id)).toHaveLength(1);
    expect(await checkLedger()).toEqual([]);
  });
});

describe("the redeem form (/credits action)", () => {
  it("redirects to /credits with a notice after a good code", async () => {
    const user = await createUser();
    const cookie = await sessionCookieFor(user.id);
    const code = await makeCode(100);
    const response = (await postRedeem(cookie, code)) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/credits");
    expect(response.headers.get("Set-Cookie")).toContain("inkstone_flash=");
    expect(await balanceOf(user.id)).toBe(100);
  });

  it("asks for a code when none is given (请输入兑换码)", async () => {
    const user = await createUser();
    const cookie = await sessionCookieFor(user.id);
    for (const code of ["", "   "]) {
      const result = await postRedeem(cookie, code);
      expect(fieldError(result, "code")).toBe("请输入兑换码");
    }
  });

  it("shows the server's message for unknown and used codes", async () => {
    const user = await createUser();
    const cookie = await sessionCookieFor(user.id);
    expect(fieldError(await postRedeem(cookie, "9999999999"), "code")).toBe("兑换码不存在");
    expect(fieldError(await postRedeem(cookie, "not-a-code"), "code")).toBe("兑换码不存在");
    const code = await makeCode(5);
    await redeemCode((await createUser()).id, code);
    expect(fieldError(await postRedeem(cookie, code), "code")).toBe("兑换码已被使用");
    expect(await balanceOf(user.id)).toBe(0);
  });

  it("limits attempts per user: past the limit even a good code is refused until later", async () => {
    process.env.RATE_LIMIT_REDEEM = "3";
    const user = await createUser();
    const other = await createUser();
    for (let i = 0; i < 3; i++) {
      await expect(redeemForUser(user.id, `55555555${10 + i}`)).rejects.toThrow("兑换码不存在");
    }
    const code = await makeCode(10);
    await expect(redeemForUser(user.id, code)).rejects.toThrow("尝试次数过多，请稍后再试");
    expect(await balanceOf(user.id)).toBe(0);
    expect((await codeRow(code)).status).toBe("unused");
    // The limit is per user.
    await expect(redeemForUser(other.id, code)).resolves.toEqual({ amount: 10, balance: 10 });
  });

  it("sends a visitor to the login dialog", async () => {
    const request = new Request("http://localhost/credits", {
      method: "POST",
      body: new URLSearchParams({ intent: "redeem", code: "1234567890" }),
      headers: { Origin: "http://localhost" },
    });
    await expect(callThroughRoutes(action, { request })).rejects.toSatisfy(
      (r: unknown) => r instanceof Response && r.status === 302 && r.headers.get("Location")!.startsWith("/?auth=login"),
    );
  });
});
