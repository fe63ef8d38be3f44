import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { authorIncome, chapters, creditTransactions, credits, workPurchases } from "~/db/schema";
import { credit, LEDGER_MESSAGES, LedgerError, purchaseWork } from "~/server/economy/ledger.server";
import { createUserSession } from "~/server/identity/session.server";
import { logger } from "~/server/platform/logger.server";
import { cookiePair, createUser, postRequest } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { runRoute } from "./route-chain";
import { domainError } from "../fixtures/domain-error";

/** Gives a user credits the way the app does: through the ledger, with its row. */
async function fund(userId: string, amount: number) {
  await db.transaction((tx) => credit(tx, userId, amount, "测试充值"));
}

async function workWithChapter(userId: string, seed: { title: string; visibility?: "public" | "public-vip" | "private"; price?: number }) {
  const [id] = await insertWorks([{ userId, ...seed }]);
  await db.insert(chapters).values({ workId: id, title: "第一章", content: "付费正文\n第二段", position: 1, wordCount: 7 });
  return id;
}

async function balanceOf(userId: string): Promise<number> {
  const [row] = await db.select({ balance: credits.balance }).from(credits).where(eq(credits.userId, userId));
  return Number(row.balance);
}

async function ledgerOf(userId: string) {
  return db
    .select({ type: creditTransactions.type, amount: creditTransactions.amount, description: creditTransactions.description })
    .from(creditTransactions)
    .where(eq(creditTransactions.userId, userId))
    .orderBy(creditTransactions.id);
}

async function purchasesOf(userId: string, workId?: number) {
  return db
    .select()
    .from(workPurchases)
    .where(workId ? and(eq(workPurchases.userId, userId), eq(workPurchases.workId, workId)) : eq(workPurchases.userId, userId));
}

/** balance = recharges - consumes, for one user. */
async function expectLedgerMatchesBalance(userId: string) {
  const [{ sum }] = await db
    .select({
      sum: sql<number>`coalesce(sum(case when ${creditTransactions.type} = 'recharge' then ${creditTransactions.amount} else -${creditTransactions.amount} end), 0)`.mapWith(Number),
    })
    .from(creditTransactions)
    .where(eq(creditTransactions.userId, userId));
  expect(sum).toBe(await balanceOf(userId));
}

describe("purchaseWork", () => {
  it("charges the price once, records the purchase and a consume row 购买作品《title》", async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 100);
    const workId = await workWithChapter(author.id, { title: "长河落日", visibility: "public-vip", price: 30 });

    const result = await purchaseWork(buyer.id, workId);

    expect(result).toEqual({ status: "purchased", price: 30, balance: 70 });
    expect(await balanceOf(buyer.id)).toBe(70);
    const rows = await purchasesOf(buyer.id, workId);
    expect(rows).toHaveLength(1);
    expect(rows[0].price).toBe(30);
    expect(await ledgerOf(buyer.id)).toEqual([
      { type: "recharge", amount: 100, description: "测试充值" },
      { type: "consume", amount: 30, description: "购买作品《长河落日》" },
    ]);
    await expectLedgerMatchesBalance(buyer.id);
    // No author income: the author's balance and ledger are untouched.
    expect(await balanceOf(author.id)).toBe(0);
    expect(await ledgerOf(author.id)).toEqual([]);
  });

  it("can spend the balance down to exactly zero", async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 30);
    const workId = await workWithChapter(author.id, { title: "恰好够", visibility: "public-vip", price: 30 });
    expect(await purchaseWork(buyer.id, workId)).toMatchObject({ status: "purchased", balance: 0 });
    await expectLedgerMatchesBalance(buyer.id);
  });

  it("refuses with 积分余额不足 when the balance is short, and writes nothing", async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 29);
    const workId = await workWithChapter(author.id, { title: "差一点", visibility: "public-vip", price: 30 });

    const error = await domainError(purchaseWork(buyer.id, workId), LedgerError);

    expect(error.message).toBe(LEDGER_MESSAGES.insufficient);
    expect(error.status).toBe(402);
    expect(await balanceOf(buyer.id)).toBe(29);
    expect(await purchasesOf(buyer.id)).toEqual([]);
    expect(await ledgerOf(buyer.id)).toHaveLength(1); // the funding row only
  });

  it("refuses to sell a work to its own author", async () => {
    const author = await createUser();
    await fund(author.id, 100);
    const workId = await workWithChapter(author.id, { title: "自己的书", visibility: "public-vip", price: 10 });
    const error = await domainError(purchaseWork(author.id, workId), LedgerError);
    expect(error.message).toBe(LEDGER_MESSAGES.ownWork);
    expect(await balanceOf(author.id)).toBe(100);
    expect(await purchasesOf(author.id)).toEqual([]);
  });

  it("refuses free and private works, and works that do not exist, without charging", async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 100);
    const free = await workWithChapter(author.id, { title: "免费的书", visibility: "public" });
    const hidden = await workWithChapter(author.id, { title: "私藏的书", visibility: "private" });

    expect((await domainError(purchaseWork(buyer.id, free), LedgerError)).message).toBe(LEDGER_MESSAGES.notForSale);
    const privateError = await domainError(purchaseWork(buyer.id, hidden), LedgerError);
    expect(privateError.message).toBe(LEDGER_MESSAGES.workMissing);
    expect(privateError.status).toBe(404);
    expect((await domainError(purchaseWork(buyer.id, 987654321), LedgerError)).status).toBe(404);
    expect((await domainError(purchaseWork(buyer.id, Number.NaN), LedgerError)).status).toBe(404);

    expect(await balanceOf(buyer.id)).toBe(100);
    expect(await purchasesOf(buyer.id)).toEqual([]);
  });

  it("refuses a buyer without an account with 用户不存在", async () => {
    const author = await createUser();
    const workId = await workWithChapter(author.id, { title: "无人之书", visibility: "public-vip", price: 5 });
    const error = await domainError(purchaseWork("00000000-0000-4000-8000-000000000000", workId), LedgerError);
    expect(error.message).toBe(LEDGER_MESSAGES.userMissing);
  });

  it("does not charge a second time for a work already bought", async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 100);
    const workId = await workWithChapter(author.id, { title: "再买一次", visibility: "public-vip", price: 40 });

    await purchaseWork(buyer.id, workId);
    expect(await purchaseWork(buyer.id, workId)).toEqual({ status: "already-purchased" });

    expect(await balanceOf(buyer.id)).toBe(60);
    expect(await purchasesOf(buyer.id, workId)).toHaveLength(1);
    expect((await ledgerOf(buyer.id)).filter((r) => r.type === "consume")).toHaveLength(1);
    await expectLedgerMatchesBalance(buyer.id);
  });

  it(`charges exactly once for 20 concurrent purchases of one work by one user (${databaseKind})`, async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 1000);
    const workId = await workWithChapter(author.id, { title: "抢购", visibility: "public-vip", price: 7 });

    const results = await Promise.allSettled(Array.from({ length: 20 }, () => purchaseWork(buyer.id, workId)));

    const rejected = results.filter((r) => r.status === "rejected");
    expect(rejected.map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const statuses = results.map((r) => (r as PromiseFulfilledResult<{ status: string }>).value.status);
    expect(statuses.filter((s) => s === "purchased")).toHaveLength(1);
    expect(statuses.filter((s) => s === "already-purchased")).toHaveLength(19);
    expect(await balanceOf(buyer.id)).toBe(993);
    expect(await purchasesOf(buyer.id, workId)).toHaveLength(1);
    expect((await ledgerOf(buyer.id)).filter((r) => r.type === "consume")).toHaveLength(1);
    await expectLedgerMatchesBalance(buyer.id);
  });

  it(`never overdraws when one user buys several works at once (${databaseKind})`, async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 50);
    const ids = await Promise.all(
      Array.from({ length: 6 }, (_, i) => workWithChapter(author.id, { title: `并发${i}`, visibility: "public-vip", price: 20 })),
    );

    const results = await Promise.allSettled(ids.map((id) => purchaseWork(buyer.id, id)));

    const bought = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    expect(bought).toHaveLength(2);
    expect(refused.map((r) => (r.reason as Error).message)).toEqual(Array(4).fill(LEDGER_MESSAGES.insufficient));
    expect(await balanceOf(buyer.id)).toBe(10);
    expect(await purchasesOf(buyer.id)).toHaveLength(2);
    await expectLedgerMatchesBalance(buyer.id);
  });
});

describe("the reader's purchase action", () => {
  async function signedIn(userId: string) {
    const cookie = cookiePair(await createUserSession(new Request("http://localhost/"), userId));
    return { Cookie: cookie };
  }

  async function callAction(workId: number, fields: Record<string, string>, headers: Record<string, string> = {}) {
    const work = await import("~/routes/shell/reader/work");
    const request = postRequest(`/works/${workId}?purchase=1`, fields, headers);
    try {
      return await runRoute("action", work, request);
    } catch (thrown) {
      return thrown;
    }
  }

  it("without JavaScript, buys and redirects to the work", async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 20);
    const workId = await workWithChapter(author.id, { title: "表单购买", visibility: "public-vip", price: 20 });

    const response = (await callAction(workId, { intent: "purchase" }, await signedIn(buyer.id))) as Response;

    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(`/works/${workId}`);
    expect(await balanceOf(buyer.id)).toBe(0);
  });

  it("with JavaScript, answers data for the dialog: success, or docs/product.md's message", async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 5);
    const cheap = await workWithChapter(author.id, { title: "便宜", visibility: "public-vip", price: 5 });
    const dear = await workWithChapter(author.id, { title: "昂贵", visibility: "public-vip", price: 500 });
    const headers = await signedIn(buyer.id);

    const ok = (await callAction(cheap, { intent: "purchase", enhanced: "1" }, headers)) as { data: unknown };
    expect(ok.data).toEqual({ intent: "purchase", ok: true, already: false });

    const short = (await callAction(dear, { intent: "purchase", enhanced: "1" }, headers)) as { data: unknown; init: ResponseInit };
    expect(short.data).toEqual({ intent: "purchase", error: "积分余额不足" });
    expect(short.init.status).toBe(402);
    expect(await purchasesOf(buyer.id, dear)).toEqual([]);
  });

  it("answers an unexpected failure in the dialog with 购买失败，请重试 (500), logged once, and charges nobody", async () => {
    const author = await createUser();
    const buyer = await createUser();
    await fund(buyer.id, 5);
    const workId = await workWithChapter(author.id, { title: "意外", visibility: "public-vip", price: 5 });
    // The author's income near the bigint limit: their share overflows it, a failure no
    // DomainError explains.
    await db.execute(sql`insert into author_income (user_id, balance) values (${author.id}, 9223372036854775807)`);
    const logged = vi.spyOn(logger, "error").mockImplementation(() => {});
    try {
      const failed = (await callAction(workId, { intent: "purchase", enhanced: "1" }, await signedIn(buyer.id))) as { data: unknown; init: ResponseInit };
      expect(failed.data).toEqual({ intent: "purchase", error: LEDGER_MESSAGES.purchaseFailed });
      expect(failed.init.status).toBe(500);
      expect(logged).toHaveBeenCalledTimes(1);
    } finally {
      logged.mockRestore();
      await db.delete(authorIncome).where(eq(authorIncome.userId, author.id));
    }
    expect(await balanceOf(buyer.id)).toBe(5);
    expect(await purchasesOf(buyer.id)).toEqual([]);
  });

  it("sends a visitor to the login dialog and charges nobody", async () => {
    const author = await createUser();
    const workId = await workWithChapter(author.id, { title: "游客", visibility: "public-vip", price: 5 });
    const response = (await callAction(workId, { intent: "purchase" })) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(`/?auth=login&redirectTo=${encodeURIComponent(`/works/${workId}?purchase=1`)}`);
    expect(await db.select().from(workPurchases).where(eq(workPurchases.workId, workId))).toEqual([]);
  });
});
