import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { authorIncome, chapters, incomeTransactions, payoutRequests, works } from "~/db/schema";
import { purchaseChapter, setWorkPricing } from "~/server/economy/chapter-sales.server";
import { convertIncomeToCredits, INCOME_LEDGER_PAGE, INCOME_MESSAGES, incomeOverview, requestPayout, settlePayout } from "~/server/economy/income.server";
import { checkLedger } from "../../scripts/check-ledger";
import { domainError } from "../fixtures/domain-error";
import { creditBalance, fund, quickUsers } from "../fixtures/ledger";
import { insertWorks } from "../fixtures/works";
import { withPayoutAccount } from "../fixtures/payout-accounts";
import { collector, sseReader } from "../fixtures/live-events";
import { liveEventStream } from "~/server/platform/events.server";
import { actorOf, createAdmin } from "./admin-fixtures";

/** An author whose chapter 2 (of 2) sells at 200 credits (40,000 字 at 5), bought by `buyers`. */
async function authorWithSales(buyers: number) {
  const [author, ...readers] = await quickUsers(buyers + 1);
  const [workId] = await insertWorks([{ userId: author.id, title: "收入作品" }]);
  await db.update(works).set({ type: "series", status: "ongoing" }).where(eq(works.id, workId));
  const rows = await db
    .insert(chapters)
    .values([
      { workId, title: "试读", content: "正文", position: 1, wordCount: 1000 },
      { workId, title: "VIP", content: "正文", position: 2, wordCount: 40_000 },
    ])
    .returning({ id: chapters.id });
  await setWorkPricing(author.id, workId, { mode: "chapter", vipFrom: "2", pricePerThousand: "5" });
  await withPayoutAccount(author.id);
  for (const reader of readers) {
    await fund(reader.id, 200);
    await purchaseChapter(reader.id, workId, rows[1].id);
  }
  return { author, readers, workId, chapterId: rows[1].id };
}

async function incomeOf(userId: string) {
  const [row] = await db.select().from(authorIncome).where(eq(authorIncome.userId, userId));
  return { balance: Number(row?.balance ?? 0), held: Number(row?.held ?? 0) };
}

describe("author income", () => {
  it("shows the balance, income by work, by chapter and the ledger on the 收入 page's data", async () => {
    const { author, workId, chapterId } = await authorWithSales(2);
    const page = await incomeOverview(author.id);
    expect(page).toMatchObject({ balance: 280, held: 0, payoutMinimum: 100, authorSharePercent: 70 });
    expect(page.byWork).toEqual([{ workId, title: "收入作品", total: 280, gross: 400, sales: 2, tips: 0, recent: 280 }]);
    expect(page.byChapter).toEqual([{ chapterId, title: "VIP", label: "第2章 VIP", workId, workTitle: "收入作品", sales: 2, gross: 400 }]);
    expect(page.byDay).toHaveLength(1);
    expect(page.byDay[0]).toMatchObject({ sales: 2, gross: 400, income: 280 });
    expect(page.ledger.map((r) => [r.type, r.amount])).toEqual([
      ["sale", 140],
      ["sale", 140],
    ]);
    expect(page).toMatchObject({ ledgerPage: 1, ledgerPageCount: 1 });
  });

  it("pages the income ledger, newest first; a page past the end shows the last", async () => {
    const [author] = await quickUsers(1);
    const at = Date.now();
    // Rows of 0 (a share that rounds down to nothing), so the income balance stays the
    // sum of its ledger for the reconciliation tests below.
    await db.insert(incomeTransactions).values(
      Array.from({ length: INCOME_LEDGER_PAGE + 3 }, (_, i) => ({
        userId: author.id, type: "sale" as const, amount: 0, gross: 0, description: `第${i + 1}笔`, createdAt: new Date(at - (INCOME_LEDGER_PAGE + 3 - i) * 1000),
      })),
    );
    const first = await incomeOverview(author.id);
    expect(first).toMatchObject({ ledgerPage: 1, ledgerPageCount: 2 });
    expect(first.ledger).toHaveLength(INCOME_LEDGER_PAGE);
    expect(first.ledger[0].description).toBe(`第${INCOME_LEDGER_PAGE + 3}笔`);
    const second = await incomeOverview(author.id, 2);
    expect(second.ledger.map((r) => r.description)).toEqual(["第3笔", "第2笔", "第1笔"]);
    expect((await incomeOverview(author.id, 99)).ledger.map((r) => r.description)).toEqual(["第3笔", "第2笔", "第1笔"]);
  });

  it("holds a payout request, then pays it or refuses it (released), each a ledger row", async () => {
    const { author } = await authorWithSales(2);
    const admin = await createAdmin();
    const first = await requestPayout(author.id, "150");
    expect(first.balance).toBe(130);
    expect(await incomeOf(author.id)).toEqual({ balance: 130, held: 150 });
    const second = await requestPayout(author.id, 100);
    expect(await incomeOf(author.id)).toEqual({ balance: 30, held: 250 });

    await settlePayout(actorOf(admin), first.id, "paid", "ALI-20261126-001");
    expect(await incomeOf(author.id)).toEqual({ balance: 30, held: 100 });
    await settlePayout(actorOf(admin), second.id, "refused", "收款信息有误");
    expect(await incomeOf(author.id)).toEqual({ balance: 130, held: 0 });

    // Settled once: a second settlement is refused and changes nothing.
    const again = await domainError(settlePayout(actorOf(admin), first.id, "refused", ""));
    expect([again.status, again.message]).toEqual([409, INCOME_MESSAGES.payoutSettled]);
    expect((await domainError(settlePayout(actorOf(admin), 987654321, "paid", "x"))).status).toBe(404);
    expect(await incomeOf(author.id)).toEqual({ balance: 130, held: 0 });

    const rows = await db.select().from(incomeTransactions).where(eq(incomeTransactions.userId, author.id)).orderBy(incomeTransactions.id);
    expect(rows.map((r) => [r.type, Number(r.amount), Number(r.heldChange)])).toEqual([
      ["sale", 140, 0],
      ["sale", 140, 0],
      ["payout_request", -150, 150],
      ["payout_request", -100, 100],
      ["payout_paid", 0, -150],
      ["payout_refused", 100, -100],
    ]);
    const [paid] = await db.select().from(payoutRequests).where(eq(payoutRequests.id, first.id));
    expect([paid.status, paid.reference, paid.settledBy]).toEqual(["paid", "ALI-20261126-001", admin.id]);
    expect(await checkLedger(db)).toEqual([]);
  });

  it("refuses a payout below the minimum, above the balance, or a bad amount, changing nothing", async () => {
    const { author } = await authorWithSales(1);
    const admin = await createAdmin();
    const cases: [unknown, string][] = [
      ["99", INCOME_MESSAGES.belowMinimum(100)],
      ["141", INCOME_MESSAGES.insufficient],
      ["1.5", INCOME_MESSAGES.amount],
      ["-100", INCOME_MESSAGES.amount],
      ["abc", INCOME_MESSAGES.amount],
    ];
    for (const [amount, message] of cases) {
      expect((await domainError(requestPayout(author.id, amount))).message).toBe(message);
    }
    expect(await incomeOf(author.id)).toEqual({ balance: 140, held: 0 });
    const ok = await requestPayout(author.id, "100");
    expect((await domainError(settlePayout(actorOf(admin), ok.id, "paid", " "))).message).toBe(INCOME_MESSAGES.reference);
    expect(await incomeOf(author.id)).toEqual({ balance: 40, held: 100 });
  });

  it("converts income into credits 1:1, both ledgers in one step", async () => {
    const { author } = await authorWithSales(1);
    expect(await convertIncomeToCredits(author.id, "40")).toEqual({ income: 100, credits: 40 });
    expect(await creditBalance(author.id)).toBe(40);
    expect((await domainError(convertIncomeToCredits(author.id, "101"))).message).toBe(INCOME_MESSAGES.insufficient);
    expect((await domainError(convertIncomeToCredits(author.id, "0"))).message).toBe(INCOME_MESSAGES.amount);
    expect(await checkLedger(db)).toEqual([]);
  });

  it(`payout requests racing each other and new income never overdraw nor pay twice (${databaseKind})`, async () => {
    const { author, workId } = await authorWithSales(1);
    const admin = await createAdmin();
    // 140 available; 6 requests of 100 race 3 new sales of 140 each.
    const extra = await quickUsers(3);
    const [vip] = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, workId)).orderBy(chapters.position).offset(1);
    for (const reader of extra) await fund(reader.id, 200);
    const results = await Promise.allSettled([
      ...Array.from({ length: 6 }, () => requestPayout(author.id, 100)),
      ...extra.map((reader) => purchaseChapter(reader.id, workId, vip.id)),
    ]);
    const granted = results.slice(0, 6).filter((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ id: number }>[];
    const refused = results.slice(0, 6).filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    expect(results.slice(6).every((r) => r.status === "fulfilled")).toBe(true);
    expect(refused.every((r) => (r.reason as Error).message === INCOME_MESSAGES.insufficient)).toBe(true);
    const income = await incomeOf(author.id);
    expect(income.balance).toBeGreaterThanOrEqual(0);
    expect(income.balance + income.held).toBe(140 * 4);
    expect(income.held).toBe(granted.length * 100);

    // Two administrators settle the same request at once: paid once.
    const id = granted[0].value.id;
    const settle = await Promise.allSettled([settlePayout(actorOf(admin), id, "paid", "A"), settlePayout(actorOf(admin), id, "paid", "B")]);
    expect(settle.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((await incomeOf(author.id)).held).toBe((granted.length - 1) * 100);
    expect(await checkLedger(db)).toEqual([]);
  });

  it("tells the author's open pages the moment a sale, a payout or a settlement lands (live)", async () => {
    const { author, workId, chapterId } = await authorWithSales(0);
    const events = await collector(`user:${author.id}`);
    const controller = new AbortController();
    const sse = sseReader(liveEventStream(author.id, controller.signal, { heartbeatMs: 60_000 }));
    expect(await sse.next()).toContain(": connected");
    const [reader] = await quickUsers(1);
    await fund(reader.id, 200);
    await purchaseChapter(reader.id, workId, chapterId);
    expect(await events.next()).toEqual({ topic: `user:${author.id}`, kind: "income" });
    // The same sale's line in the author's inbox (decision 115).
    expect(await events.next()).toEqual({ topic: `user:${author.id}`, kind: "notifications" });
    // The author's page stream turns it into a change that reloads 我的收入.
    expect(await sse.next()).toContain("event: change");
    await requestPayout(author.id, 100);
    expect(await events.next()).toMatchObject({ kind: "income" });
    controller.abort();
    events.unsubscribe();
  });

  it("check:ledger reports an income balance that does not match its ledger", async () => {
    const { author } = await authorWithSales(1);
    await db.update(authorIncome).set({ balance: 999 }).where(eq(authorIncome.userId, author.id));
    const differences = await checkLedger(db);
    expect(differences).toContainEqual(expect.objectContaining({ userId: author.id, check: "income", expected: 999, actual: 140 }));
    await db.update(authorIncome).set({ held: 5 }).where(eq(authorIncome.userId, author.id));
    const checks = (await checkLedger(db)).filter((d) => d.userId === author.id).map((d) => d.check);
    expect(checks.sort()).toEqual(["income", "income-held", "payouts-held"]);
  });
});
