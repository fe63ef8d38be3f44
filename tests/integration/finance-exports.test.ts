import { and, eq, sql } from "drizzle-orm";
import ExcelJS from "exceljs";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { adminAuditLog, authorIncome, incomeTransactions, paymentOrders, payoutStatements, workTips } from "~/db/schema";
import { FINANCE_MESSAGES, FINANCE_REPORTS, type FinanceReport } from "~/schemas/finance-export";
import { csvField } from "~/server/admin/exports/finance.server";
import { moneyByRange, moneyTotals, type MoneyTotals } from "~/server/admin/payments.server";
import { creditPaymentOrder, debit, refundPaymentOrder } from "~/server/economy/ledger.server";
import { requestPayout, settlePayout } from "~/server/economy/income.server";
import { returnPaidPayout } from "~/server/economy/payout-statements.server";
import { createApiToken } from "~/server/identity/api-tokens.server";
import { checkLedger } from "../../scripts/check-ledger";
import { quickUsers } from "../fixtures/ledger";
import { withPayoutAccount } from "../fixtures/payout-accounts";
import { actorOf, adminCookieFor, callLoader, createAdmin, request } from "./admin-fixtures";

/**
 * 财务导出 (decision 226): each report read back from the xlsx (exceljs's reader) and the CSV,
 * its rows and its 合计 against 资金报表's totals (moneyByRange) for the same China-time range,
 * with a payout taxed, a payout returned, a refund, sales and tips over two months, and rows
 * just outside the range; bad input refused with a Chinese 400; a 运营 refused; every download
 * audited; a script's bearer token let in.
 */

const FROM = "2025-03-01";
const TO = "2025-04-30";
/** An instant in China time: "2025-03-10 12:00:00" → Date. */
const china = (local: string) => new Date(`${local.replace(" ", "T")}+08:00`);

let admin: Awaited<ReturnType<typeof createAdmin>>;
let cookie: string;
const ids = { paidPayout: 0, returnedPayout: 0, refunded: "", injected: "" };

async function paidOrder(userId: string, amount: number, paidAt: Date, tradeNo: string) {
  const outTradeNo = `FT${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  await db.insert(paymentOrders).values({ outTradeNo, userId, amount, status: "pending", createdAt: new Date(paidAt.getTime() - 60_000) });
  expect((await creditPaymentOrder(outTradeNo, amount * 100, tradeNo)).status).toBe("credited");
  await db.update(paymentOrders).set({ paidAt }).where(eq(paymentOrders.outTradeNo, outTradeNo));
  return outTradeNo;
}

/** A sale or tip income row (the author's share beside what the reader paid), with its author_income row. */
async function income(userId: string, type: "sale" | "tip", gross: number, share: number, at: Date) {
  await db.insert(authorIncome).values({ userId, balance: share }).onConflictDoUpdate({ target: authorIncome.userId, set: { balance: sql`${authorIncome.balance} + ${share}` } });
  await db.insert(incomeTransactions).values({ userId, type, amount: share, gross, description: "测试收入", createdAt: at });
}

beforeAll(async () => {
  admin = await createAdmin();
  cookie = await adminCookieFor(admin.id);
  const [buyer, authorA, authorB] = await quickUsers(3);

  // Orders: two in the range (one refunded in April, one with a formula-like trade number), one a second before it.
  await paidOrder(buyer.id, 30, china("2025-03-05 09:00:00"), "T-1");
  ids.injected = await paidOrder(buyer.id, 12, china("2025-03-31 23:59:59"), "=HYPERLINK(\"x\",\"y\")");
  await paidOrder(buyer.id, 99, china("2025-02-28 23:59:59"), "T-OUT");
  ids.refunded = await paidOrder(buyer.id, 20, china("2025-04-01 10:00:00"), "T-2");
  await refundPaymentOrder(admin.id, ids.refunded, "用户申请，\"重复\"充值");
  await db.update(paymentOrders).set({ refundedAt: china("2025-04-02 08:00:00") }).where(eq(paymentOrders.outTradeNo, ids.refunded));

  // Sales and tips over two months for two authors, and one a day after the range.
  await income(authorA.id, "sale", 100, 70, china("2025-03-02 10:00:00"));
  // A tip as the tip path writes it: the reader's debit, the tip row, the author's income row.
  await db.transaction((tx) => debit(tx, buyer.id, 50, "打赏《测试作品》"));
  await db.insert(workTips).values({ userId: buyer.id, authorId: authorA.id, amount: 50, createdAt: china("2025-03-03 10:00:00") });
  await income(authorA.id, "tip", 50, 35, china("2025-03-03 10:00:00"));
  await income(authorA.id, "sale", 40, 28, china("2025-04-30 23:00:00"));
  await income(authorB.id, "sale", 10, 7, china("2025-04-15 10:00:00"));
  await income(authorB.id, "sale", 500, 350, china("2025-05-01 00:00:00"));

  // Payouts: 3,000 paid in March (labor: 440 tax), 2,000 paid in March then returned in April (360, reversed).
  await income(authorA.id, "sale", 5000, 5000, china("2025-01-10 10:00:00"));
  await withPayoutAccount(authorA.id, "王小明");
  const a = await requestPayout(authorA.id, "3000");
  const b = await requestPayout(authorA.id, "2000");
  await settlePayout(actorOf(admin), a.id, "paid", "BANK-3000", china("2025-03-10 12:00:00"));
  await settlePayout(actorOf(admin), b.id, "paid", "BANK-2000", china("2025-03-20 12:00:00"));
  await returnPaidPayout(actorOf(admin), b.id, "收款账户已注销", china("2025-04-02 09:00:00"));
  ids.paidPayout = a.id;
  ids.returnedPayout = b.id;
});

const exportUrl = (report: string, format: string, from = FROM, to = TO) => `/exports/finance?${new URLSearchParams({ report, from, to, format })}`;

async function download(report: FinanceReport | string, format: string, who: { cookie?: string; authorization?: string } = { cookie }, from = FROM, to = TO) {
  const mod = await import("~/routes/exports/finance");
  return callLoader(mod, request(exportUrl(report, format, from, to), who));
}

/** RFC 4180, as a spreadsheet reads it: quoted fields, doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\r" && text[i + 1] === "\n") row.push(field), rows.push(row), (row = []), (field = ""), i++;
    else field += c;
  }
  return rows;
}

type Table = { header: string[]; rows: string[][]; total: string[] };

/** The file as rows of text, the same for both formats: numbers as the CSV writes them (two decimals for yuan). */
async function readExport(report: FinanceReport, format: "xlsx" | "csv"): Promise<Table> {
  const r = await download(report, format);
  expect(r.status).toBe(200);
  const body = Buffer.from(await r.response!.arrayBuffer());
  let all: string[][];
  if (format === "csv") {
    expect(r.response!.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect([...body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    all = parseCsv(body.toString("utf8").slice(1));
  } else {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(body as never);
    const sheet = workbook.worksheets[0];
    all = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const values = (row.values as unknown[]).slice(1);
      const fmt = sheet.getRow(1).cellCount;
      all.push(Array.from({ length: fmt }, (_, i) => {
        const v = values[i];
        if (v === null || v === undefined) return "";
        if (typeof v === "number") return row.getCell(i + 1).numFmt === "0.00" ? v.toFixed(2) : String(v);
        return String(v);
      }));
    });
  }
  const disposition = r.response!.headers.get("Content-Disposition")!;
  expect(disposition).toContain(`filename="finance-${report}-20250301-20250430.${format}"`);
  expect(disposition).toContain(encodeURIComponent(`-${FROM}至${TO}.${format}`));
  return { header: all[0], rows: all.slice(1, -1), total: all[all.length - 1] };
}

const col = (t: Table, name: string) => {
  const i = t.header.indexOf(name);
  expect(i, name).toBeGreaterThanOrEqual(0);
  return i;
};
const sumOf = (t: Table, name: string) => t.rows.reduce((s, r) => s + Math.round(Number(r[col(t, name)] || 0) * 100), 0) / 100;
const totalOf = (t: Table, name: string) => Number(t.total[col(t, name)]);

let screen: MoneyTotals;

describe(`finance exports against 资金报表 (${databaseKind})`, () => {
  beforeAll(async () => {
    screen = moneyTotals(await moneyByRange(FROM, TO));
    // What the fixtures put in the range, so a wrong 资金报表 cannot pass by agreeing with a wrong export.
    expect(screen).toEqual({ topUps: 62, topUpOrders: 3, refunds: 20, purchases: 150, tips: 50, authorIncome: 140, payouts: 3000, taxFen: 44000 });
  });

  for (const format of ["xlsx", "csv"] as const) {
    it(`充值订单 (${format}): the paid orders of the range, 合计 = 充值`, async () => {
      const t = await readExport("orders", format);
      expect(t.rows).toHaveLength(screen.topUpOrders);
      expect(t.rows.map((r) => r[col(t, "支付平台订单号")])).toEqual(["T-1", format === "csv" ? `'=HYPERLINK("x","y")` : `=HYPERLINK("x","y")`, "T-2"]);
      expect(t.rows.map((r) => r[col(t, "支付时间")])).toEqual(["2025-03-05 09:00:00", "2025-03-31 23:59:59", "2025-04-01 10:00:00"]);
      expect(t.rows[2][col(t, "退款时间")]).toBe("2025-04-02 08:00:00");
      expect([t.total[0], totalOf(t, "金额（元）"), sumOf(t, "金额（元）")]).toEqual(["合计", screen.topUps, screen.topUps]);
    });

    it(`退款 (${format}): 合计 = 退款, the reason with its comma and quotes intact`, async () => {
      const t = await readExport("refunds", format);
      expect(t.rows.map((r) => [r[0], r[col(t, "退款原因")], r[col(t, "操作管理员")], r[col(t, "退款时间")]])).toEqual([
        [ids.refunded, "用户申请，\"重复\"充值", admin.email, "2025-04-02 08:00:00"],
      ]);
      expect(totalOf(t, "退款金额（元）")).toBe(screen.refunds);
    });

    it(`提现与代扣个税 (${format}): gross, tax and net as the statements; 合计 = 提现 and 代扣个税`, async () => {
      const t = await readExport("payouts", format);
      const statements = await db.select().from(payoutStatements).where(eq(payoutStatements.userId, t.rows[0][col(t, "作者ID")]));
      const fig = (payoutId: number, kind: "withholding" | "reversal") => {
        const s = statements.find((x) => x.payoutId === payoutId && x.kind === kind)!;
        return [s.grossFen, s.taxFen, s.netFen].map((f) => (f / 100).toFixed(2));
      };
      const pick = (r: string[]) => [r[col(t, "类型")], r[col(t, "提现单号")], r[col(t, "收款人")], r[col(t, "当前状态")], r[col(t, "计税月份")], r[col(t, "计税方式")], r[col(t, "应发金额（元）")], r[col(t, "代扣个税（元）")], r[col(t, "实发金额（元）")]];
      expect(t.rows.map(pick)).toEqual([
        ["支付", String(ids.paidPayout), "王**", "已支付", "2025-03", "劳务报酬所得", ...fig(ids.paidPayout, "withholding")],
        ["支付", String(ids.returnedPayout), "王**", "款项已退回", "2025-03", "劳务报酬所得", ...fig(ids.returnedPayout, "withholding")],
        ["款项退回", String(ids.returnedPayout), "王**", "款项已退回", "2025-04", "劳务报酬所得", ...fig(ids.returnedPayout, "reversal")],
      ]);
      expect(t.rows.map(pick).map((r) => r.slice(6))).toEqual([
        ["3000.00", "440.00", "2560.00"],
        ["2000.00", "360.00", "1640.00"],
        ["-2000.00", "-360.00", "-1640.00"],
      ]);
      expect([totalOf(t, "应发金额（元）"), totalOf(t, "代扣个税（元）"), totalOf(t, "实发金额（元）")]).toEqual([screen.payouts, screen.taxFen / 100, 2560]);
    });

    it(`作者月度收入 (${format}): per author per China-time month; 合计 = 购买, 打赏, 作者收入`, async () => {
      const t = await readExport("author-income", format);
      const pick = (r: string[]) => [r[col(t, "月份")], r[col(t, "销售额（积分）")], r[col(t, "打赏额（积分）")], r[col(t, "平台分成（积分）")], r[col(t, "作者分成（积分）")]];
      expect(t.rows.map(pick).sort()).toEqual(
        [
          ["2025-03", "100", "50", "45", "105"],
          ["2025-04", "40", "0", "12", "28"],
          ["2025-04", "10", "0", "3", "7"],
        ].sort(),
      );
      expect([totalOf(t, "销售额（积分）"), totalOf(t, "打赏额（积分）"), totalOf(t, "作者分成（积分）")]).toEqual([screen.purchases, screen.tips, screen.authorIncome]);
      expect(totalOf(t, "平台分成（积分）")).toBe(screen.purchases + screen.tips - screen.authorIncome);
      expect(totalOf(t, "收入合计（积分）")).toBe(screen.purchases + screen.tips);
    });
  }

  it("资金报表 shows the range's totals, and the export form to a 超级管理员 only", async () => {
    const page = await import("~/routes/admin/money");
    const r = await callLoader(page, request(`/admin/money?from=${FROM}&to=${TO}`, { cookie }));
    expect([r.status, r.data.totals, r.data.days.length, r.data.canExport]).toEqual([200, screen, 61, true]);
    const operator = await createAdmin({ role: "operator" });
    const asOperator = await callLoader(page, request(`/admin/money?from=${FROM}&to=${TO}`, { cookie: await adminCookieFor(operator.id) }));
    expect([asOperator.status, asOperator.data.canExport]).toEqual([200, false]);
    const reversed = await callLoader(page, request(`/admin/money?from=${TO}&to=${FROM}`, { cookie }));
    expect([reversed.status, reversed.data.error, reversed.data.days.length]).toEqual([400, FINANCE_MESSAGES.reversed, 30]);
  });

  it("every download is in the audit log with the range, the format and how the admin got in", async () => {
    const before = await db.select().from(adminAuditLog).where(eq(adminAuditLog.action, "export.finance-payouts"));
    await download("payouts", "csv");
    const after = await db.select().from(adminAuditLog).where(eq(adminAuditLog.action, "export.finance-payouts"));
    expect(after.length).toBe(before.length + 1);
    expect(after[after.length - 1]).toMatchObject({ adminId: admin.id, targetType: "export", targetId: "payouts", after: { via: "session", from: FROM, to: TO, format: "csv" } });
  });

  it("a script's bearer token gets the same file; a 运营's session or token is 403", async () => {
    const token = await createApiToken(actorOf(admin), { name: "财务脚本", expiresInDays: null });
    const viaToken = await download("author-income", "csv", { authorization: `Bearer ${token.token}` });
    const viaSession = await download("author-income", "csv");
    expect(viaToken.status).toBe(200);
    expect(await viaToken.response!.text()).toBe(await viaSession.response!.text());
    const operator = await createAdmin({ role: "operator" });
    expect((await download("orders", "csv", { cookie: await adminCookieFor(operator.id) })).status).toBe(403);
    const opToken = await createApiToken(actorOf(operator), { name: "运营令牌", expiresInDays: null });
    expect((await download("orders", "csv", { authorization: `Bearer ${opToken.token}` })).status).toBe(403);
    expect((await download("orders", "csv", {})).status).toBe(401);
  });

  it("bad input is a 400 with the Chinese reason, audited nowhere", async () => {
    const audited = async () => (await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.targetType, "export")))).length;
    const before = await audited();
    const cases: [string, string, string, string, string][] = [
      ["orders", "csv", TO, FROM, FINANCE_MESSAGES.reversed],
      ["orders", "csv", "2024-01-01", "2025-01-01", FINANCE_MESSAGES.tooLong],
      ["orders", "pdf", FROM, TO, FINANCE_MESSAGES.format],
      ["ledger", "csv", FROM, TO, FINANCE_MESSAGES.report],
      ["orders", "csv", "2025-02-30", TO, FINANCE_MESSAGES.dayInvalid],
      ["orders", "csv", "", TO, FINANCE_MESSAGES.rangeMissing],
    ];
    for (const [report, format, from, to, message] of cases) {
      const r = await download(report, format, { cookie }, from, to);
      expect([report, format, from, to, r.status, await r.response!.text()]).toEqual([report, format, from, to, 400, message]);
    }
    // A whole leap year is allowed (366 days), one day more is not.
    expect((await download("orders", "csv", { cookie }, "2024-01-01", "2024-12-31")).status).toBe(200);
    expect(await audited()).toBe(before + 1);
    expect(FINANCE_REPORTS).toHaveLength(4);
  });

  it("CSV cells: quoted when needed, formulas defused, numbers bare", () => {
    expect(csvField("a,b", "text")).toBe('"a,b"');
    expect(csvField('say "hi"', "text")).toBe('"say ""hi"""');
    expect(csvField("两行\n文字", "text")).toBe('"两行\n文字"');
    expect(csvField("=SUM(A1)", "text")).toBe("'=SUM(A1)");
    expect(csvField("+86", "text")).toBe("'+86");
    expect(csvField("-1", "text")).toBe("'-1");
    expect(csvField("@cmd", "text")).toBe("'@cmd");
    expect(csvField("=a,b", "text")).toBe(`"'=a,b"`);
    expect(csvField(-36000, "fen")).toBe("-360.00");
    expect(csvField(5, "fen")).toBe("0.05");
    expect(csvField(-3, "int")).toBe("-3");
    expect(csvField(null, "fen")).toBe("");
  });

  it("leaves the ledger clean", async () => {
    expect(await checkLedger(db)).toEqual([]);
  });
});
