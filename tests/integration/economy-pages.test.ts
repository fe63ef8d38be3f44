import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, chapters, payoutRequests, works } from "~/db/schema";
import { PRICING_MESSAGES, purchaseChapter } from "~/server/economy/chapter-sales.server";
import { ECONOMY_SETTINGS_MESSAGES, getEconomySettings } from "~/server/economy/economy-settings.server";
import { INCOME_MESSAGES, incomeBalance } from "~/server/economy/income.server";
import { sessionCookieFor } from "../fixtures/accounts";
import { fund, quickUsers } from "../fixtures/ledger";
import { TEST_CARD, withPayoutAccount } from "../fixtures/payout-accounts";
import { PAYOUT_ACCOUNT_MESSAGES } from "~/schemas/payout-account";
import { insertWorks } from "../fixtures/works";
import { inboxLineText } from "~/components/notifications/inbox-line-text";
import { adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";

/** The author's 销售设置 and 我的收入 pages and the back office's 提现申请 and 稿酬与定价 (decision 110-112). */

const pricingPage = () => import("~/routes/shell/studio/pricing");
const incomePage = () => import("~/routes/shell/credits/income");
const payoutsPage = () => import("~/routes/admin/payouts");
const economyPage = () => import("~/routes/admin/settings/economy");
const inboxPage = () => import("~/routes/shell/notifications/inbox");

async function seriesOf(authorId: string) {
  const [workId] = await insertWorks([{ userId: authorId, title: "页面连载" }]);
  await db.update(works).set({ type: "series", status: "ongoing" }).where(eq(works.id, workId));
  const rows = await db
    .insert(chapters)
    .values([
      { workId, title: "一", content: "正文", position: 1, wordCount: 1000 },
      { workId, title: "二", content: "正文", position: 2, wordCount: 40_000 },
    ])
    .returning({ id: chapters.id });
  return { workId, vip: rows[1].id };
}

/** An author whose serial is sold by chapter (按章, set on 销售设置) and a reader who bought its VIP chapter (140 income). */
async function authorWithASale() {
  const [author, reader] = await quickUsers(2);
  const { workId, vip } = await seriesOf(author.id);
  const authorCookie = await sessionCookieFor(author.id);
  await callAction(await pricingPage(), request(`/works/${workId}/pricing`, { cookie: authorCookie }, { mode: "chapter", vipFrom: "2", pricePerThousand: "5" }));
  await fund(reader.id, 200);
  await purchaseChapter(reader.id, workId, vip);
  return { author, reader, workId, authorCookie };
}

describe("销售设置 (the author's pricing page)", () => {
  it("saves 按章 without JavaScript and answers bad input by its field, changing nothing", async () => {
    const [author, other] = await quickUsers(2);
    const { workId } = await seriesOf(author.id);
    const cookie = await sessionCookieFor(author.id);
    const path = `/works/${workId}/pricing`;
    const mod = await pricingPage();

    const bad = await callAction(mod, request(path, { cookie }, { mode: "chapter", vipFrom: "2", pricePerThousand: "1.5" }));
    expect(bad.status).toBe(400);
    expect(bad.data).toEqual({ field: "pricePerThousand", message: PRICING_MESSAGES.perThousand(1, 50) });
    const zero = await callAction(mod, request(path, { cookie }, { mode: "chapter", vipFrom: "2", pricePerThousand: "0" }));
    expect(zero.data.field).toBe("pricePerThousand");
    const [unchanged] = await db.select().from(works).where(eq(works.id, workId));
    expect([unchanged.visibility, unchanged.saleMode]).toEqual(["public", "whole"]);

    const saved = await callAction(mod, request(path, { cookie }, { mode: "chapter", vipFrom: "2", pricePerThousand: "5" }));
    expect([saved.status, saved.location]).toEqual([302, path]);
    const page = await callLoader(mod, request(path, { cookie }));
    expect(page.data.work).toMatchObject({ mode: "chapter", vipFrom: 2, pricePerThousand: 5 });

    // Someone else's work is not found, and not changed.
    const theirs = await callAction(mod, request(path, { cookie: await sessionCookieFor(other.id) }, { mode: "free" }));
    expect(theirs.status).toBe(404);
    expect((await callLoader(mod, request(path, {}))).status).toBe(302);
  });
});

describe("我的收入 and 提现申请", () => {
  it("shows income, takes a payout request and a conversion, and refuses bad amounts by field", async () => {
    const { author, authorCookie } = await authorWithASale();

    const mod = await incomePage();
    const page = await callLoader(mod, request("/income", { cookie: authorCookie }));
    expect(page.data).toMatchObject({ balance: 140, held: 0 });

    // No 收款账户 yet: refused by its own message, nothing held (decision 210).
    const noAccount = await callAction(mod, request("/income", { cookie: authorCookie }, { intent: "payout", amount: "100" }));
    expect([noAccount.status, noAccount.data]).toEqual([400, { intent: "payout", field: "account", error: PAYOUT_ACCOUNT_MESSAGES.none }]);
    await withPayoutAccount(author.id);
    const tooMuch = await callAction(mod, request("/income", { cookie: authorCookie }, { intent: "payout", amount: "500" }));
    expect([tooMuch.status, tooMuch.data]).toEqual([402, { intent: "payout", field: "amount", error: INCOME_MESSAGES.insufficient }]);
    const odd = await callAction(mod, request("/income", { cookie: authorCookie }, { intent: "withdraw-all" }));
    expect(odd.status).toBe(400);
    expect(await incomeBalance(author.id)).toEqual({ balance: 140, held: 0 });

    const asked = await callAction(mod, request("/income", { cookie: authorCookie }, { intent: "payout", amount: "100" }));
    expect([asked.status, asked.location]).toEqual([302, "/income"]);
    const converted = await callAction(mod, request("/income", { cookie: authorCookie }, { intent: "convert", amount: "40" }));
    expect(converted.status).toBe(302);
    expect(await incomeBalance(author.id)).toEqual({ balance: 0, held: 100 });

    // The back office pays it.
    const admin = await createAdmin();
    const adminCookie = await adminCookieFor(admin.id);
    const payouts = await payoutsPage();
    const list = await callLoader(payouts, request("/admin/payouts?status=pending", { cookie: adminCookie }));
    const mine = list.data.requests.find((r: { userId: string }) => r.userId === author.id);
    expect(mine).toMatchObject({ amount: 100, payee: "银行卡 招商银行 6222 **** **** 0128", payeeName: "测试作者", accountFull: TEST_CARD, status: "pending" });
    // Seeing full numbers is in the audit log: who, and which requests (decision 210).
    const views = await db
      .select({ adminId: adminAuditLog.adminId, after: adminAuditLog.after })
      .from(adminAuditLog)
      .where(and(eq(adminAuditLog.action, "payout.account-view"), eq(adminAuditLog.adminId, admin.id)));
    expect(views).toHaveLength(1);
    expect((views[0].after as { payouts: number[] }).payouts).toContain(mine.id);
    // A page of paid requests opens no number and records nothing.
    await callLoader(payouts, request("/admin/payouts?status=paid", { cookie: adminCookie }));
    expect(await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.action, "payout.account-view"), eq(adminAuditLog.adminId, admin.id)))).toHaveLength(1);
    const noRef = await callAction(payouts, request("/admin/payouts", { cookie: adminCookie }, { id: String(mine.id), outcome: "paid", reference: "" }));
    expect([noRef.status, noRef.data]).toEqual([400, { error: INCOME_MESSAGES.reference }]);
    const paid = await callAction(payouts, request("/admin/payouts", { cookie: adminCookie }, { id: String(mine.id), outcome: "paid", reference: "PAY-1" }));
    expect(paid.status).toBe(302);
    const twice = await callAction(payouts, request("/admin/payouts", { cookie: adminCookie }, { id: String(mine.id), outcome: "refused" }));
    expect([twice.status, twice.data]).toEqual([409, { error: INCOME_MESSAGES.payoutSettled }]);
    const [row] = await db.select().from(payoutRequests).where(eq(payoutRequests.id, mine.id));
    expect([row.status, row.reference]).toEqual(["paid", "PAY-1"]);
    // The author hears of it in 消息通知, once (the refused second try tells nothing).
    const inbox = await callLoader(await inboxPage(), request("/notifications", { cookie: authorCookie }));
    const payoutLines = inbox.data.lines.filter((l: { kind: string }) => l.kind === "payout");
    const line = `你的提现申请 #${mine.id}（100）已支付，付款凭证：PAY-1；代扣个税 0.00 元，实发 100.00 元`;
    expect(payoutLines).toMatchObject([{ unread: true, href: "/income", body: line }]);
    expect(inboxLineText(payoutLines[0])).toBe(line);
    const done = await callLoader(payouts, request(`/admin/payouts?status=paid&email=${encodeURIComponent(author.email)}`, { cookie: adminCookie }));
    expect(done.data.requests.map((r: { id: number }) => r.id)).toEqual([mine.id]);
    // Users cannot reach the back office.
    expect((await callAction(payouts, request("/admin/payouts", { cookie: authorCookie }, { id: String(mine.id), outcome: "refused" }))).status).toBe(401);
  });
});

describe("a refused payout", () => {
  it("tells the author in 消息通知 that the amount went back to their income, with the reason", async () => {
    const { author, authorCookie } = await authorWithASale();
    await withPayoutAccount(author.id);
    await callAction(await incomePage(), request("/income", { cookie: authorCookie }, { intent: "payout", amount: "100" }));
    const [asked] = await db.select().from(payoutRequests).where(eq(payoutRequests.userId, author.id));
    const adminCookie = await adminCookieFor((await createAdmin()).id);
    const refused = await callAction(await payoutsPage(), request("/admin/payouts", { cookie: adminCookie }, { id: String(asked.id), outcome: "refused", reference: "收款信息有误" }));
    expect(refused.status).toBe(302);
    const inbox = await callLoader(await inboxPage(), request("/notifications", { cookie: authorCookie }));
    expect(inbox.data.lines.filter((l: { kind: string }) => l.kind === "payout").map(inboxLineText)).toEqual([
      `你的提现申请 #${asked.id}（100）未通过，金额已退回收入余额。理由：收款信息有误`,
    ]);
  });
});

describe("稿酬与定价 (admin settings)", () => {
  it("saves valid settings and refuses a bad range or percentage, changing nothing", async () => {
    const admin = await createAdmin();
    const cookie = await adminCookieFor(admin.id);
    const mod = await economyPage();
    const valid = { pricePerThousand: "6", pricePerThousandMin: "2", pricePerThousandMax: "20", authorSharePercent: "80", wholeBookDiscountPercent: "10", payoutMinimum: "50" };
    const badPercent = await callAction(mod, request("/admin/settings/economy", { cookie }, { ...valid, authorSharePercent: "101" }));
    expect([badPercent.status, badPercent.data]).toEqual([400, { field: "authorSharePercent", error: ECONOMY_SETTINGS_MESSAGES.percent }]);
    const badRange = await callAction(mod, request("/admin/settings/economy", { cookie }, { ...valid, pricePerThousand: "30" }));
    expect(badRange.data.error).toBe(ECONOMY_SETTINGS_MESSAGES.range);
    const fraction = await callAction(mod, request("/admin/settings/economy", { cookie }, { ...valid, payoutMinimum: "1.5" }));
    expect(fraction.data).toEqual({ field: "payoutMinimum", error: ECONOMY_SETTINGS_MESSAGES.whole });
    expect((await getEconomySettings()).authorSharePercent).toBe(70);

    const saved = await callAction(mod, request("/admin/settings/economy", { cookie }, valid));
    expect([saved.status, saved.location]).toEqual([302, "/admin/settings/economy?notice=saved"]);
    expect(await getEconomySettings()).toEqual({
      pricePerThousand: 6,
      pricePerThousandMin: 2,
      pricePerThousandMax: 20,
      authorSharePercent: 80,
      wholeBookDiscountPercent: 10,
      payoutMinimum: 50,
    });
  });
});
