import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { canReadChapter } from "~/server/catalog/chapter-access.server";
import { databaseKind, db } from "~/db/client.server";
import { authorIncome, chapterPurchases, chapters, creditTransactions, incomeTransactions, works } from "~/db/schema";
import {
  autoBuyChapter,
  PRICING_MESSAGES,
  purchaseAllChapters,
  purchaseChapter,
  quoteAllChapters,
  SALE_MESSAGES,
  setAutoSubscribe,
  setWorkPricing,
} from "~/server/economy/chapter-sales.server";
import { saveEconomySettings } from "~/server/economy/economy-settings.server";
import { LEDGER_MESSAGES, LedgerError, purchaseWork } from "~/server/economy/ledger.server";
import { publishChapterNow } from "~/server/studio/chapters.server";
import { getWorkForViewer } from "~/server/catalog/works.server";
import { checkLedger } from "../../scripts/check-ledger";
import { domainError } from "../fixtures/domain-error";
import { creditBalance, fund, quickUsers } from "../fixtures/ledger";
import { insertWorks, serialByChapter } from "../fixtures/works";
import { testActor } from "./admin-fixtures";

const serial = serialByChapter;

async function incomeOf(userId: string) {
  const [row] = await db.select().from(authorIncome).where(eq(authorIncome.userId, userId));
  return { balance: Number(row?.balance ?? 0), held: Number(row?.held ?? 0) };
}

async function consumesOf(userId: string) {
  return db
    .select({ amount: creditTransactions.amount, description: creditTransactions.description })
    .from(creditTransactions)
    .where(and(eq(creditTransactions.userId, userId), eq(creditTransactions.type, "consume")));
}

async function ownedCount(userId: string, workId: number) {
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(chapterPurchases)
    .where(and(eq(chapterPurchases.userId, userId), eq(chapterPurchases.workId, workId)));
  return n;
}

describe("pricing a work by chapter", () => {
  it("prices published chapters by length when the work turns to 按章, and fixes each price", async () => {
    const [author] = await quickUsers(1);
    const { workId, chapterIds } = await serial(author.id, { count: 3, vipFrom: 2, perThousand: 5, wordsOf: (i) => [0, 1500, 1000, 0][i] });
    const prices = await db.select({ id: chapters.id, price: chapters.price }).from(chapters).where(eq(chapters.workId, workId)).orderBy(chapters.position);
    // 1500 字 at 5 per 1000 is 7.5, rounded up; 1000 字 is 5; an empty chapter still costs 1.
    expect(prices.map((p) => p.price)).toEqual([8, 5, 1]);

    // An edit later (a longer text) and a new 千字价 leave published prices alone.
    await db.update(chapters).set({ wordCount: 9000 }).where(eq(chapters.id, chapterIds[0]));
    await setWorkPricing(author.id, workId, { mode: "chapter", vipFrom: "2", pricePerThousand: "10" });
    const [again] = await db.select({ price: chapters.price }).from(chapters).where(eq(chapters.id, chapterIds[0]));
    expect(again.price).toBe(8);
  });

  it("prices a chapter when it is published, at the work's 千字价 then", async () => {
    const [author] = await quickUsers(1);
    const { workId } = await serial(author.id, { count: 2, vipFrom: 2, perThousand: 3 });
    const [draft] = await db
      .insert(chapters)
      .values({ workId, title: "存稿", content: "草稿正文", position: 99_999, wordCount: 2500, state: "draft" })
      .returning({ id: chapters.id });
    const [before] = await db.select({ price: chapters.price }).from(chapters).where(eq(chapters.id, draft.id));
    expect(before.price).toBe(0);
    await publishChapterNow(author.id, workId, draft.id);
    const [after] = await db.select({ price: chapters.price }).from(chapters).where(eq(chapters.id, draft.id));
    expect(after.price).toBe(8); // 2500 × 3 / 1000 = 7.5 → 8
  });

  it("refuses a bad 千字价, a bad VIP start and a private work with clear messages, changing nothing", async () => {
    const [author] = await quickUsers(1);
    const [workId] = await insertWorks([{ userId: author.id, title: "定价", visibility: "public-vip", price: 30 }]);
    const range = PRICING_MESSAGES.perThousand(1, 50);
    for (const pricePerThousand of ["0", "1.5", "-3", "51", "abc", ""]) {
      const error = await domainError(setWorkPricing(author.id, workId, { mode: "chapter", vipFrom: "3", pricePerThousand }));
      expect([error.status, error.message, error.field]).toEqual([400, range, "pricePerThousand"]);
    }
    expect((await domainError(setWorkPricing(author.id, workId, { mode: "chapter", vipFrom: "0", pricePerThousand: "5" }))).message).toBe(
      PRICING_MESSAGES.vipFrom,
    );
    expect((await domainError(setWorkPricing(author.id, workId, { mode: "whole", price: "0" }))).message).toBe(PRICING_MESSAGES.price);
    expect((await domainError(setWorkPricing(author.id, workId, { mode: "vip" }))).message).toBe(PRICING_MESSAGES.mode);
    const [other] = await quickUsers(1);
    expect((await domainError(setWorkPricing(other.id, workId, { mode: "free" }))).status).toBe(404);
    const [work] = await db.select().from(works).where(eq(works.id, workId));
    expect([work.visibility, work.price, work.saleMode]).toEqual(["public-vip", 30, "whole"]);

    const [hidden] = await insertWorks([{ userId: author.id, title: "下架", visibility: "private" }]);
    expect((await domainError(setWorkPricing(author.id, hidden, { mode: "whole", price: "5" }))).message).toBe(PRICING_MESSAGES.privateWork);
  });

  it("keeps the site's range: an administrator's narrower range refuses a 千字价 outside it", async () => {
    const [author] = await quickUsers(1);
    const [workId] = await insertWorks([{ userId: author.id, title: "范围" }]);
    await saveEconomySettings(testActor, {
      pricePerThousand: "4",
      pricePerThousandMin: "3",
      pricePerThousandMax: "8",
      authorSharePercent: "70",
      wholeBookDiscountPercent: "0",
      payoutMinimum: "100",
    });
    try {
      const error = await domainError(setWorkPricing(author.id, workId, { mode: "chapter", vipFrom: "2", pricePerThousand: "9" }));
      expect(error.message).toBe(PRICING_MESSAGES.perThousand(3, 8));
    } finally {
      await saveEconomySettings(testActor, {
        pricePerThousand: "5",
        pricePerThousandMin: "1",
        pricePerThousandMax: "50",
        authorSharePercent: "70",
        wholeBookDiscountPercent: "0",
        payoutMinimum: "100",
      });
    }
  });
});

describe("purchaseChapter", () => {
  it("charges the chapter's price and pays the author 70% rounded down, with a ledger row on each side", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 100);
    const { workId, chapterIds } = await serial(author.id, { wordsOf: (i) => (i === 11 ? 2300 : 2000) });
    // 2300 字 × 5 / 1000 = 11.5 → 12 credits; the author's share is floor(12 × 0.7) = 8.
    const result = await purchaseChapter(reader.id, workId, chapterIds[10]);
    expect(result).toMatchObject({ status: "purchased", price: 12, balance: 88, order: 11 });
    expect(await creditBalance(reader.id)).toBe(88);
    expect(await consumesOf(reader.id)).toEqual([{ amount: 12, description: expect.stringContaining("第11章") }]);
    expect(await incomeOf(author.id)).toEqual({ balance: 8, held: 0 });
    const sales = await db.select().from(incomeTransactions).where(eq(incomeTransactions.userId, author.id));
    expect(sales.map((s) => [s.type, Number(s.amount), Number(s.gross), s.chapterId])).toEqual([["sale", 8, 12, chapterIds[10]]]);

    // Bought once: a second purchase charges nothing; the chapter opens.
    expect(await purchaseChapter(reader.id, workId, chapterIds[10])).toEqual({ status: "already-owned", order: 11 });
    expect(await creditBalance(reader.id)).toBe(88);
    const view = await getWorkForViewer(workId, { id: reader.id, showR18: false, showAi: true } as never);
    expect(await canReadChapter(view, view.isOwner ? null : ({ id: reader.id } as never), { id: chapterIds[10], order: 11 })).toBe(true);
    expect(await canReadChapter(view, { id: reader.id } as never, { id: chapterIds[11], order: 12 })).toBe(false);
    expect(await canReadChapter(view, { id: reader.id } as never, { id: chapterIds[0], order: 1 })).toBe(true);
    expect(await checkLedger(db)).toEqual([]);
  });

  it("refuses the author's own work, free, foreign, draft and missing chapters, and a short balance, changing nothing", async () => {
    const [author, reader, poor] = await quickUsers(3);
    await fund(reader.id, 100);
    await fund(poor.id, 5);
    const { workId, chapterIds } = await serial(author.id);
    const other = await serial(author.id);
    const [draft] = await db
      .insert(chapters)
      .values({ workId, title: "存稿", content: "x", position: 999_999, wordCount: 2000, state: "draft" })
      .returning({ id: chapters.id });

    const refusals = await Promise.all([
      domainError(purchaseChapter(author.id, workId, chapterIds[11])),
      domainError(purchaseChapter(reader.id, workId, chapterIds[0])),
      domainError(purchaseChapter(reader.id, workId, other.chapterIds[11])),
      domainError(purchaseChapter(reader.id, workId, draft.id)),
      domainError(purchaseChapter(reader.id, workId, 987654321)),
      domainError(purchaseChapter(reader.id, workId, Number.NaN)),
      domainError(purchaseChapter(reader.id, 987654321, chapterIds[11])),
      domainError(purchaseChapter(poor.id, workId, chapterIds[11])),
    ]);
    expect(refusals.map((e) => [e.status, e.message])).toEqual([
      [403, LEDGER_MESSAGES.ownWork],
      [409, SALE_MESSAGES.freeChapter],
      [404, SALE_MESSAGES.chapterMissing],
      [404, SALE_MESSAGES.chapterMissing],
      [404, SALE_MESSAGES.chapterMissing],
      [404, SALE_MESSAGES.chapterMissing],
      [404, LEDGER_MESSAGES.workMissing],
      [402, LEDGER_MESSAGES.insufficient],
    ]);
    expect(await creditBalance(reader.id)).toBe(100);
    expect(await creditBalance(poor.id)).toBe(5);
    expect(await ownedCount(poor.id, workId)).toBe(0);
    expect(await incomeOf(author.id)).toEqual({ balance: 0, held: 0 });
  });

  it("gives whole-work buyers every chapter, present and future, without charging again", async () => {
    const [author, buyer] = await quickUsers(2);
    await fund(buyer.id, 100);
    const [workId] = await insertWorks([{ userId: author.id, title: "全本转按章", visibility: "public-vip", price: 30 }]);
    await db.update(works).set({ type: "series", status: "ongoing" }).where(eq(works.id, workId));
    const [c1, c2] = await db
      .insert(chapters)
      .values([
        { workId, title: "一", content: "正文", position: 1, wordCount: 2000 },
        { workId, title: "二", content: "正文", position: 2, wordCount: 2000 },
      ])
      .returning({ id: chapters.id });
    expect((await purchaseWork(buyer.id, workId)).status).toBe("purchased");
    // The author earns 70% of the whole-work price too.
    expect(await incomeOf(author.id)).toEqual({ balance: 21, held: 0 });

    await setWorkPricing(author.id, workId, { mode: "chapter", vipFrom: "1", pricePerThousand: "5" });
    expect(await purchaseChapter(buyer.id, workId, c2.id)).toEqual({ status: "already-owned", order: 2 });
    expect(await purchaseAllChapters(buyer.id, workId)).toEqual({ status: "nothing" });
    const view = await getWorkForViewer(workId, { id: buyer.id, showR18: false, showAi: true } as never);
    expect(view.canReadContent).toBe(true);
    expect(await canReadChapter(view, { id: buyer.id } as never, { id: c1.id, order: 1 })).toBe(true);
    expect(await creditBalance(buyer.id)).toBe(70);
    // A work sold by chapter is not sold whole any more.
    const [late] = await quickUsers(1);
    await fund(late.id, 100);
    expect((await domainError(purchaseWork(late.id, workId))).message).toBe(LEDGER_MESSAGES.notForSale);
  });

  it(`charges once for 50 concurrent purchases of one chapter by one reader (${databaseKind})`, async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 1000);
    const { workId, chapterIds } = await serial(author.id);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => purchaseChapter(reader.id, workId, chapterIds[11])));
    expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const statuses = results.map((r) => (r as PromiseFulfilledResult<{ status: string }>).value.status);
    expect(statuses.filter((s) => s === "purchased")).toHaveLength(1);
    expect(await creditBalance(reader.id)).toBe(990);
    expect(await consumesOf(reader.id)).toHaveLength(1);
    expect(await incomeOf(author.id)).toEqual({ balance: 7, held: 0 });
    expect(await checkLedger(db)).toEqual([]);
  });

  it(`自动订阅 in two tabs buys the chapter once, and only when it is on (${databaseKind})`, async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 100);
    const { workId, chapterIds } = await serial(author.id);
    expect(await autoBuyChapter(reader.id, workId, chapterIds[10])).toBeNull();
    expect(await creditBalance(reader.id)).toBe(100);
    await setAutoSubscribe({ id: reader.id, showR18: false, showAi: true } as never, workId, true);
    const tabs = await Promise.all([autoBuyChapter(reader.id, workId, chapterIds[10]), autoBuyChapter(reader.id, workId, chapterIds[10])]);
    expect(tabs.map((t) => t?.status).sort()).toEqual(["already-owned", "purchased"]);
    expect(await creditBalance(reader.id)).toBe(90);
  });
});

describe("purchaseAllChapters (购买全部)", () => {
  it("buys every VIP chapter not owned yet at the sum less the site's discount", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 1000);
    const { workId, chapterIds } = await serial(author.id, { count: 15 });
    await purchaseChapter(reader.id, workId, chapterIds[10]);
    await saveEconomySettings(testActor, {
      pricePerThousand: "5",
      pricePerThousandMin: "1",
      pricePerThousandMax: "50",
      authorSharePercent: "70",
      wholeBookDiscountPercent: "15",
      payoutMinimum: "100",
    });
    try {
      const [work] = await db.select().from(works).where(eq(works.id, workId));
      // Chapters 12 to 15 at 10 each: 40, less 15% (6) = 34.
      expect(await quoteAllChapters(reader.id, work)).toEqual({ count: 4, sum: 40, total: 34, discountPercent: 15 });
      // The total the reader saw is lower than today's: refused, nothing written.
      const stale = await domainError(purchaseAllChapters(reader.id, workId, 30));
      expect([stale.status, stale.message]).toEqual([409, SALE_MESSAGES.priceChanged(34)]);
      expect(await ownedCount(reader.id, workId)).toBe(1);

      expect(await purchaseAllChapters(reader.id, workId, 34)).toEqual({ status: "purchased", count: 4, sum: 40, total: 34, balance: 956 });
      expect(await ownedCount(reader.id, workId)).toBe(5);
      // 7 for chapter 11, then floor(34 × 0.7) = 23.
      expect(await incomeOf(author.id)).toEqual({ balance: 30, held: 0 });
      expect(await purchaseAllChapters(reader.id, workId)).toEqual({ status: "nothing" });
      expect(await checkLedger(db)).toEqual([]);
    } finally {
      await saveEconomySettings(testActor, {
        pricePerThousand: "5",
        pricePerThousandMin: "1",
        pricePerThousandMax: "50",
        authorSharePercent: "70",
        wholeBookDiscountPercent: "0",
        payoutMinimum: "100",
      });
    }
  });

  it("refuses when the balance is short, buying nothing", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 15);
    const { workId } = await serial(author.id);
    const error = await domainError(purchaseAllChapters(reader.id, workId));
    expect(error).toBeInstanceOf(LedgerError);
    expect([error.status, error.message]).toEqual([402, LEDGER_MESSAGES.insufficient]);
    expect(await ownedCount(reader.id, workId)).toBe(0);
    expect(await creditBalance(reader.id)).toBe(15);
  });

  it(`racing a new chapter's publish, the reader pays for exactly the chapters they got (${databaseKind})`, async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 10_000);
    for (let round = 0; round < 5; round++) {
      const { workId } = await serial(author.id, { count: 20 });
      const [draft] = await db
        .insert(chapters)
        .values({ workId, title: "新章", content: "新章正文", position: 999_999, wordCount: 3000, state: "draft" })
        .returning({ id: chapters.id });
      const before = await creditBalance(reader.id);
      const [bought] = await Promise.all([purchaseAllChapters(reader.id, workId), publishChapterNow(author.id, workId, draft.id)]);
      if (bought.status !== "purchased") throw new Error("expected a purchase");
      const [{ paid }] = await db
        .select({ paid: sql<number>`coalesce(sum(price), 0)::int` })
        .from(chapterPurchases)
        .where(and(eq(chapterPurchases.userId, reader.id), eq(chapterPurchases.workId, workId)));
      // 10 chapters at 10, plus the new one (15) if the purchase saw it.
      expect([100, 115]).toContain(paid);
      expect(bought.total).toBe(paid);
      expect(before - (await creditBalance(reader.id))).toBe(paid);
    }
    expect(await checkLedger(db)).toEqual([]);
  });
});

describe("what buyers keep", () => {
  it("refuses to delete a bought chapter or its work, and a whole-work price ends selling by chapter", async () => {
    const { deleteChapter, SOLD_CHAPTER_UNDELETABLE } = await import("~/server/studio/chapters.server");
    const { deleteWork, SOLD_WORK_UNDELETABLE, updateListing } = await import("~/server/catalog/works.server");
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 100);
    const { workId, chapterIds } = await serial(author.id);
    await purchaseChapter(reader.id, workId, chapterIds[11]);
    expect((await domainError(deleteChapter(author.id, workId, chapterIds[11]))).message).toBe(SOLD_CHAPTER_UNDELETABLE);
    expect((await domainError(deleteWork(author.id, workId))).message).toBe(SOLD_WORK_UNDELETABLE);
    await deleteChapter(author.id, workId, chapterIds[10]);

    await updateListing(author.id, workId, { intent: "set-price", price: 20 });
    const [work] = await db.select().from(works).where(eq(works.id, workId));
    expect([work.saleMode, work.vipFrom, work.price]).toEqual(["whole", null, 20]);
    // The chapter bought before stays readable.
    const view = await getWorkForViewer(workId, { id: reader.id, showR18: false, showAi: true } as never);
    expect(await canReadChapter(view, { id: reader.id } as never, { id: chapterIds[11], order: 12 })).toBe(true);
    expect(await canReadChapter(view, { id: reader.id } as never, { id: chapterIds[0], order: 1 })).toBe(false);
  });
});
