import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { adminAuditLog, authorIncome, incomeTransactions, payoutAccounts, payoutRequests, payoutStatements } from "~/db/schema";
import { luhnValid, PAYOUT_ACCOUNT_MESSAGES } from "~/schemas/payout-account";
import { requestPayout, settlePayout } from "~/server/economy/income.server";
import { PAYOUT_RETURN_MESSAGES, returnPaidPayout } from "~/server/economy/payout-statements.server";
import { incomeTaxFen, withholdingFen } from "~/server/economy/payout-tax";
import { rowsOf } from "~/server/platform/db-utils.server";
import { checkLedger } from "../../scripts/check-ledger";
import { sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { fieldErrorsOf } from "../fixtures/form-replies";
import { quickUsers, setConfig } from "../fixtures/ledger";
import { TEST_CARD, withPayoutAccount } from "../fixtures/payout-accounts";
import { actorOf, adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";

/**
 * Payouts with tax and statements (docs/product.md#author-income, decisions 209 and 210): the
 * withholding tables at their boundaries, the monthly aggregation through real settlements,
 * the 收款账户's checks and its encryption at rest, the settlement's transaction, 款项退回, the
 * statement pages and check:ledger's payout checks.
 */

const yuan = (y: number) => Math.round(y * 100);

/** An author with `amount` credits of income, its ledger row beside it (check:ledger stays clean), and a saved card. */
async function authorWithIncome(amount: number) {
  const [author] = await quickUsers(1);
  await db.insert(authorIncome).values({ userId: author.id, balance: amount });
  await db.insert(incomeTransactions).values({ userId: author.id, type: "sale", amount, gross: amount, description: "测试收入" });
  await withPayoutAccount(author.id);
  return author;
}

async function statementOf(payoutId: number, kind: "withholding" | "reversal" = "withholding") {
  const rows = await db.select().from(payoutStatements).where(eq(payoutStatements.payoutId, payoutId));
  const row = rows.find((r) => r.kind === kind);
  return row ? { month: row.month, rule: row.rule, gross: row.grossFen, tax: row.taxFen, net: row.netFen } : null;
}

describe("the withholding tables (fen, rounded half up once)", () => {
  it("劳务报酬所得 at its boundaries", () => {
    const cases: [number, number][] = [
      [0, 0],
      [800, 0], // less 800: nothing taxable
      [800.01, 0], // 0.01 taxable → 0.002 → 0.00
      [1000, 40], // (1000 − 800) × 20%
      [1000.03, 40.01], // 200.03 × 20% = 40.006 → 40.01
      [4000, 640], // the last amount less 800: 3,200 × 20%
      [4000.01, 640], // less 20%: 3,200.008 × 20% = 640.0016 → 640.00
      [25000, 4000], // taxable 20,000: still 20%
      [25000.02, 4000], // taxable 20,000.016: 30% less 2,000 = 4,000.0048
      [62500, 13000], // taxable 50,000: 30% less 2,000
      [62500.01, 13000], // taxable 50,000.008: 40% less 7,000 = 13,000.0032
      [100000, 25000], // taxable 80,000: 40% less 7,000
    ];
    for (const [income, tax] of cases) expect([income, incomeTaxFen(yuan(income), "labor")]).toEqual([income, yuan(tax)]);
  });

  it("稿酬所得: the same deductions, taxable × 70% × 20%", () => {
    const cases: [number, number][] = [
      [800, 0],
      [800.25, 0.04], // 0.25 × 14% = 0.035 → half up → 0.04
      [4000, 448], // 3,200 × 14%
      [4000.01, 448], // 3,200.008 × 14% = 448.00112
      [25000, 2800],
      [62500, 7000],
      [100000, 11200],
    ];
    for (const [income, tax] of cases) expect([income, incomeTaxFen(yuan(income), "royalty")]).toEqual([income, yuan(tax)]);
  });

  it("a payout's tax is the month's tax including it less what the month withheld", () => {
    // 3,000 then 2,000: 440 on the first; the month's 5,000 owes 800, so 360 on the second.
    expect(withholdingFen(yuan(3000), 0, 0, "labor")).toBe(yuan(440));
    expect(withholdingFen(yuan(2000), yuan(3000), yuan(440), "labor")).toBe(yuan(360));
    // The rule changed in the month to one owing less: nothing is taken back.
    expect(withholdingFen(yuan(100), yuan(5000), yuan(800), "royalty")).toBe(0);
  });
});

describe("收款账户", () => {
  it("checks the card's Luhn digit, the Alipay shape and the bank name by field, writing nothing", async () => {
    expect([luhnValid(TEST_CARD), luhnValid("6222021234567890127"), luhnValid("4111111111111111")]).toEqual([true, false, true]);
    const [author] = await quickUsers(1);
    const cookie = await sessionCookieFor(author.id);
    const page = await import("~/routes/shell/credits/payout-account");
    const cases: [Record<string, string>, Record<string, string[]>][] = [
      [{ kind: "bank", account: "6222 0212 3456 7890 127", bankName: "招商银行", holderName: "王五" }, { account: [PAYOUT_ACCOUNT_MESSAGES.cardCheckDigit] }],
      [{ kind: "bank", account: "6222-abc", bankName: "招商银行", holderName: "王五" }, { account: [PAYOUT_ACCOUNT_MESSAGES.cardFormat] }],
      [{ kind: "bank", account: TEST_CARD, bankName: "", holderName: "王五" }, { bankName: [PAYOUT_ACCOUNT_MESSAGES.bankName] }],
      [{ kind: "alipay", account: "12345", holderName: "王五" }, { account: [PAYOUT_ACCOUNT_MESSAGES.alipayFormat] }],
      [{ kind: "alipay", account: "13812345678", holderName: "" }, { holderName: [PAYOUT_ACCOUNT_MESSAGES.holderRequired] }],
      [{ kind: "wechat", account: "13812345678", holderName: "王五" }, { kind: [PAYOUT_ACCOUNT_MESSAGES.kind] }],
    ];
    for (const [fields, errors] of cases) {
      const r = await callAction(page, request("/income/account", { cookie }, fields));
      expect([fields.account, r.status, fieldErrorsOf(r)]).toEqual([fields.account, 400, errors]);
    }
    expect(await db.select().from(payoutAccounts).where(eq(payoutAccounts.userId, author.id))).toEqual([]);

    // A card with spaces is read as its digits; an Alipay phone and e-mail are masked too.
    const ok = await callAction(page, request("/income/account", { cookie }, { kind: "bank", account: "6222 0212 3456 7890 128", bankName: "招商银行", holderName: "王五" }));
    expect([ok.status, ok.location]).toEqual([302, "/income/account"]);
    const shown = await callLoader(page, request("/income/account", { cookie }));
    expect(shown.data.account).toMatchObject({ kind: "bank", bankName: "招商银行", accountMasked: "6222 **** **** 0128", holderMasked: "王*" });
    expect(JSON.stringify(shown.data)).not.toContain(TEST_CARD);
    await callAction(page, request("/income/account", { cookie }, { kind: "alipay", account: "13812345678", holderName: "王五" }));
    expect((await callLoader(page, request("/income/account", { cookie }))).data.account).toMatchObject({ kind: "alipay", accountMasked: "138****5678" });
    await callAction(page, request("/income/account", { cookie }, { kind: "alipay", account: "Wang.Wu@Example.com", holderName: "王五" }));
    expect((await callLoader(page, request("/income/account", { cookie }))).data.account).toMatchObject({ accountMasked: "w***@example.com" });
  });

  it("is encrypted at rest: the raw row holds neither the number nor the name; a moved cipher does not open", async () => {
    const author = await authorWithIncome(500);
    const raw = rowsOf<Record<string, unknown>>(await db.execute(sql`select * from payout_accounts where user_id = ${author.id}`));
    expect(raw).toHaveLength(1);
    const text = JSON.stringify(raw);
    expect(text).not.toContain(TEST_CARD);
    expect(text).not.toContain("0212345678901");
    expect(text).not.toContain("测试作者");
    expect(raw[0]).toMatchObject({ account_masked: "6222 **** **** 0128", holder_masked: "测***" });
    expect(String(raw[0].account_cipher)).toMatch(/^v1\.[0-9a-f]{16}\./);

    // Another author's cipher copied into this row: it is bound to its owner, the payout refuses with the clear message.
    const other = await authorWithIncome(500);
    const [theirs] = await db.select().from(payoutAccounts).where(eq(payoutAccounts.userId, other.id));
    await db.update(payoutAccounts).set({ accountCipher: theirs.accountCipher }).where(eq(payoutAccounts.userId, author.id));
    expect((await domainError(requestPayout(author.id, "100"))).message).toBe(PAYOUT_ACCOUNT_MESSAGES.undecryptable);
    expect(await db.select().from(payoutRequests).where(eq(payoutRequests.userId, author.id))).toEqual([]);
  });

  it("is re-sealed by the key rotation; afterwards the new key alone opens it", async () => {
    const author = await authorWithIncome(500);
    const oldKey = process.env.IDENTITY_KEY!;
    try {
      process.env.IDENTITY_KEY = "ef".repeat(32);
      process.env.IDENTITY_KEY_OLD = oldKey;
      const { rotatePayoutAccounts, openPayoutAccount } = await import("~/server/identity/payout-accounts.server");
      const first = await rotatePayoutAccounts();
      expect(first.rotated).toBeGreaterThan(0);
      expect(await rotatePayoutAccounts()).toEqual({ rotated: 0, failed: first.failed });
      delete process.env.IDENTITY_KEY_OLD;
      const [row] = await db.select().from(payoutAccounts).where(eq(payoutAccounts.userId, author.id));
      expect(await openPayoutAccount(db, row.id)).toEqual({ userId: author.id, account: TEST_CARD, holderName: "测试作者" });
    } finally {
      process.env.IDENTITY_KEY = oldKey;
      delete process.env.IDENTITY_KEY_OLD;
    }
  });

  it("refuses a payout without an account, holding nothing", async () => {
    const [author] = await quickUsers(1);
    await db.insert(authorIncome).values({ userId: author.id, balance: 500 });
    await db.insert(incomeTransactions).values({ userId: author.id, type: "sale", amount: 500, gross: 500, description: "测试收入" });
    const e = await domainError(requestPayout(author.id, "100"));
    expect([e.status, e.message, e.field]).toEqual([400, PAYOUT_ACCOUNT_MESSAGES.none, "account"]);
    expect((await db.select().from(authorIncome).where(eq(authorIncome.userId, author.id)))[0]).toMatchObject({ balance: 500, held: 0 });
    expect(await checkLedger(db)).toEqual([]);
  });
});

describe("the settlement", () => {
  it("aggregates a China-time month across two payouts, under either rule, with the statement in the settlement", async () => {
    const admin = actorOf(await createAdmin());
    const inMonth = new Date("2026-11-20T04:00:00Z");
    for (const [rule, first, second] of [
      ["labor", 440, 360],
      ["royalty", 308, 252],
    ] as const) {
      await setConfig({ payout_tax_rule: rule });
      const author = await authorWithIncome(6000);
      const a = await requestPayout(author.id, "3000");
      const b = await requestPayout(author.id, "2000");
      await settlePayout(admin, a.id, "paid", "BANK-1", inMonth);
      await settlePayout(admin, b.id, "paid", "BANK-2", new Date(inMonth.getTime() + 60_000));
      expect(await statementOf(a.id)).toEqual({ month: "2026-11", rule, gross: yuan(3000), tax: yuan(first), net: yuan(3000 - first) });
      expect(await statementOf(b.id)).toEqual({ month: "2026-11", rule, gross: yuan(2000), tax: yuan(second), net: yuan(2000 - second) });
      // The settlement's ledger row says it too.
      const [row] = await db.select().from(incomeTransactions).where(eq(incomeTransactions.payoutId, b.id)).orderBy(sql`id desc`).limit(1);
      expect(row.description).toBe(`提现已支付 #${b.id}（凭证 BANK-2；代扣个税 ${second}.00 元，实发 ${(2000 - second).toLocaleString("en-US")}.00 元）`);
    }
    await setConfig({ payout_tax_rule: "labor" });
    expect(await checkLedger(db)).toEqual([]);
  });

  it("starts a new month at midnight in Beijing: the payouts either side are taxed apart", async () => {
    const admin = actorOf(await createAdmin());
    const author = await authorWithIncome(6000);
    const a = await requestPayout(author.id, "3000");
    const b = await requestPayout(author.id, "2000");
    await settlePayout(admin, a.id, "paid", "X", new Date("2026-11-30T15:59:59Z"));
    await settlePayout(admin, b.id, "paid", "Y", new Date("2026-11-30T16:00:00Z"));
    expect(await statementOf(a.id)).toMatchObject({ month: "2026-11", tax: yuan(440) });
    expect(await statementOf(b.id)).toMatchObject({ month: "2026-12", tax: yuan(240) });
    expect(await checkLedger(db)).toEqual([]);
  });

  it(`two settlements of one author at once take turns: the month's tax is right (${databaseKind})`, async () => {
    const admin = actorOf(await createAdmin());
    const author = await authorWithIncome(20000);
    const ids = [];
    for (const amount of [3000, 3000, 4000, 5000]) ids.push((await requestPayout(author.id, amount)).id);
    const at = new Date("2026-10-15T02:00:00Z");
    await Promise.all(ids.map((id, i) => settlePayout(admin, id, "paid", `P${i}`, at)));
    const rows = await db.select().from(payoutStatements).where(eq(payoutStatements.userId, author.id));
    // 15,000 in the month: taxable 12,000 × 20% = 2,400, however the four took turns.
    expect(rows.reduce((s, r) => s + r.taxFen, 0)).toBe(yuan(2400));
    expect(rows.reduce((s, r) => s + r.grossFen, 0)).toBe(yuan(15000));
    expect(await checkLedger(db)).toEqual([]);
    // A refused payout writes no statement.
    const refused = await requestPayout(author.id, 100);
    await settlePayout(admin, refused.id, "refused", "");
    expect(await statementOf(refused.id)).toBeNull();
  });

  it("款项退回: the amount back to income, the tax reversed as a negative row in the later month; once only", async () => {
    const admin = actorOf(await createAdmin());
    const author = await authorWithIncome(5000);
    const paid = await requestPayout(author.id, "5000");
    await settlePayout(admin, paid.id, "paid", "BANK-9", new Date("2026-09-10T03:00:00Z"));
    expect(await statementOf(paid.id)).toMatchObject({ month: "2026-09", tax: yuan(800), net: yuan(4200) });

    expect((await domainError(returnPaidPayout(admin, paid.id, "  "))).message).toBe(PAYOUT_RETURN_MESSAGES.reason);
    await returnPaidPayout(admin, paid.id, "账户已注销", new Date("2026-10-02T03:00:00Z"));
    expect(await statementOf(paid.id, "reversal")).toEqual({ month: "2026-10", rule: "labor", gross: -yuan(5000), tax: -yuan(800), net: -yuan(4200) });
    // The September row stays as it was withheld.
    expect(await statementOf(paid.id)).toMatchObject({ month: "2026-09", tax: yuan(800) });
    expect((await db.select().from(authorIncome).where(eq(authorIncome.userId, author.id)))[0]).toMatchObject({ balance: 5000, held: 0 });
    const again = await domainError(returnPaidPayout(admin, paid.id, "再退一次"));
    expect([again.status, again.message]).toEqual([409, PAYOUT_RETURN_MESSAGES.notPaid]);
    const pending = await requestPayout(author.id, "100");
    expect((await domainError(returnPaidPayout(admin, pending.id, "未支付"))).message).toBe(PAYOUT_RETURN_MESSAGES.notPaid);
    expect(await statementOf(pending.id, "reversal")).toBeNull();
    expect(await checkLedger(db)).toEqual([]);

    // check:ledger finds a statement whose tax the rule does not give, by month.
    await db.update(payoutStatements).set({ taxFen: yuan(700), netFen: yuan(4300) }).where(sql`payout_id = ${paid.id} and kind = 'withholding'`);
    await db.execute(sql`update payout_statements set tax_fen = ${-yuan(800)} where payout_id = ${paid.id} and kind = 'reversal'`);
    const found = (await checkLedger(db)).filter((d) => d.userId === author.id);
    expect(found).toContainEqual(expect.objectContaining({ check: "payout-tax", month: "2026-09", expected: yuan(800), actual: yuan(700) }));
    expect(found).toContainEqual(expect.objectContaining({ check: "payout-reversal", expected: yuan(700), actual: yuan(800) }));
    await db.update(payoutStatements).set({ taxFen: yuan(800), netFen: yuan(4200) }).where(sql`payout_id = ${paid.id} and kind = 'withholding'`);
  });
});

describe("the statement pages", () => {
  it("shows gross, tax and net to the author (their own only) and to the operator, who may record 款项退回", async () => {
    const admin = await createAdmin();
    const author = await authorWithIncome(5000);
    const paid = await requestPayout(author.id, "3000");
    await settlePayout(actorOf(admin), paid.id, "paid", "BANK-7");
    const mine = await import("~/routes/shell/credits/payout-statement");
    const page = await callLoader(mine, request(`/income/payouts/${paid.id}`, { cookie: await sessionCookieFor(author.id) }), { id: String(paid.id) });
    expect(page.data.payout).toMatchObject({ id: paid.id, status: "paid", withholding: { grossFen: yuan(3000), taxFen: yuan(440), netFen: yuan(2560), rule: "labor" } });
    expect(JSON.stringify(page.data)).not.toContain(TEST_CARD);
    const [stranger] = await quickUsers(1);
    const theirs = await callLoader(mine, request(`/income/payouts/${paid.id}`, { cookie: await sessionCookieFor(stranger.id) }), { id: String(paid.id) });
    expect(theirs.status).toBe(404);
    expect((await callLoader(mine, request(`/income/payouts/abc`, { cookie: await sessionCookieFor(author.id) }), { id: "abc" })).status).toBe(404);

    const office = await import("~/routes/admin/payout");
    const cookie = await adminCookieFor(admin.id);
    const seen = await callLoader(office, request(`/admin/payouts/${paid.id}`, { cookie }), { id: String(paid.id) });
    expect(seen.data.payout).toMatchObject({ email: author.email, withholding: { taxFen: yuan(440) } });
    const noReason = await callAction(office, request(`/admin/payouts/${paid.id}`, { cookie }, { reason: "" }), { id: String(paid.id) });
    expect([noReason.status, noReason.data]).toEqual([400, { error: PAYOUT_RETURN_MESSAGES.reason }]);
    const back = await callAction(office, request(`/admin/payouts/${paid.id}`, { cookie }, { reason: "银行退票" }), { id: String(paid.id) });
    expect([back.status, back.location]).toEqual([302, `/admin/payouts/${paid.id}?notice=payout-returned`]);
    const after = await callLoader(mine, request(`/income/payouts/${paid.id}`, { cookie: await sessionCookieFor(author.id) }), { id: String(paid.id) });
    expect(after.data.payout).toMatchObject({ status: "returned", reversal: { taxFen: -yuan(440), grossFen: -yuan(3000) } });
  });

  it("lets only the 超级管理员 choose the tax rule, audited; a bad value changes nothing", async () => {
    const economy = await import("~/routes/admin/settings/economy");
    const superCookie = await adminCookieFor((await createAdmin()).id);
    const bad = await callAction(economy, request("/admin/settings/economy", { cookie: superCookie }, { intent: "tax", taxRule: "none" }));
    expect([bad.status, bad.data]).toEqual([400, { field: "taxRule", error: "请选择代扣个税的计税方式" }]);
    const saved = await callAction(economy, request("/admin/settings/economy", { cookie: superCookie }, { intent: "tax", taxRule: "royalty" }));
    expect(saved.location).toBe("/admin/settings/economy?notice=saved");
    expect((await callLoader(economy, request("/admin/settings/economy", { cookie: superCookie }))).data.taxRule).toBe("royalty");
    const [audit] = await db.select().from(adminAuditLog).where(eq(adminAuditLog.action, "settings.payout_tax"));
    expect(audit).toMatchObject({ before: { rule: "labor" }, after: { rule: "royalty" } });
    const operator = await adminCookieFor((await createAdmin({ role: "operator" })).id);
    expect((await callAction(economy, request("/admin/settings/economy", { cookie: operator }, { intent: "tax", taxRule: "labor" }))).status).toBe(403);
    await setConfig({ payout_tax_rule: "labor" });
  });
});
