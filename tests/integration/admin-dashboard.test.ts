import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, paymentOrders, tokenTransactions, workPurchases } from "~/db/schema";
import { createUser } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { adminCookieFor, callLoader, createAdmin, request } from "./admin-fixtures";

describe("dashboard charts: the last 30 days, drawn on the server", () => {
  it("counts today's and older days' figures on their China-time day, and leaves out days before the 30", async () => {
    const page = await import("~/routes/admin/dashboard");
    const cookie = await adminCookieFor((await createAdmin()).id);
    const load = async () => (await callLoader(page, request("/admin/dashboard", { cookie }))).data.series;
    const before = await load();
    expect(before.days).toHaveLength(30);
    const today = new Intl.DateTimeFormat("sv-SE", { timeZone: "Asia/Shanghai" }).format(new Date());
    expect(before.days.at(-1)).toBe(today);

    const buyer = await createUser();
    const [work] = await insertWorks([{ userId: buyer.id, title: "图表", visibility: "public-vip", price: 7 }]);
    const longAgo = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    const yesterday = new Date(Date.now() - 24 * 3600 * 1000);
    await db.insert(paymentOrders).values([
      { outTradeNo: `chart-${Date.now()}-1`, userId: buyer.id, amount: 30, status: "paid", paidAt: new Date() },
      { outTradeNo: `chart-${Date.now()}-2`, userId: buyer.id, amount: 50, status: "paid", paidAt: longAgo },
      { outTradeNo: `chart-${Date.now()}-3`, userId: buyer.id, amount: 99, status: "pending" },
    ]);
    await db.insert(workPurchases).values({ userId: buyer.id, workId: work, price: 7 });
    await db.insert(tokenTransactions).values([
      { userId: buyer.id, amount: -400, type: "generation", description: "生成", createdAt: yesterday },
      { userId: buyer.id, amount: 1000, type: "grant", description: "赠送" },
    ]);
    const [chapter] = await db.insert(chapters).values({ workId: work, title: "第一章", content: "正文", position: 1 }).returning({ id: chapters.id });
    await db.execute(sql`insert into chapter_reads (chapter_id, day, user_id, work_id) values (${chapter.id}, ${today}::date, ${buyer.id}::uuid, ${work})`);

    const after = await load();
    const diff = (key: string, i: number) => after[key][i] - before[key][i];
    expect(diff("newUsers", 29)).toBe(1);
    expect(diff("topUps", 29)).toBe(30);
    expect(after.topUps.reduce((a: number, b: number) => a + b, 0) - before.topUps.reduce((a: number, b: number) => a + b, 0)).toBe(30);
    expect(diff("purchases", 29)).toBe(7);
    expect(diff("tokensUsed", 28) + diff("tokensUsed", 29)).toBe(400);
    expect(diff("activeReaders", 29)).toBe(1);
  });
});
