/**
 * 财务导出 (docs/product.md#finance-exports, decision 226): the reports, the formats and the
 * China-time date range that /admin/money's forms and /exports/finance read. Client-safe:
 * the page shows the same choices and messages as the resource route answers.
 */

export const FINANCE_REPORTS = ["orders", "refunds", "payouts", "author-income"] as const;
export type FinanceReport = (typeof FINANCE_REPORTS)[number];

export const FINANCE_REPORT_LABELS: Record<FinanceReport, string> = {
  orders: "充值订单",
  refunds: "退款",
  payouts: "提现与代扣个税",
  "author-income": "作者月度收入",
};

const FINANCE_FORMATS = ["xlsx", "csv"] as const;
export type FinanceFormat = (typeof FINANCE_FORMATS)[number];

/** The longest range one export or one 资金报表 covers, in China-time days (a year, leap or not). */
export const FINANCE_MAX_DAYS = 366;

/** @internal the route answers with these through parseFinance*; the tests compare them */
export const FINANCE_MESSAGES = {
  rangeMissing: "请选择起止日期（格式：2026-11-01）",
  dayInvalid: "日期无效，请使用“年-月-日”格式，例如 2026-11-01",
  reversed: "开始日期不能晚于结束日期",
  tooLong: `日期范围不能超过${FINANCE_MAX_DAYS}天，请分段导出`,
  format: "导出格式只能是 xlsx 或 csv",
  report: "未知的报表，可选：充值订单（orders）、退款（refunds）、提现与代扣个税（payouts）、作者月度收入（author-income）",
} as const;

export interface FinanceRange {
  /** yyyy-mm-dd, China time, inclusive. */
  from: string;
  to: string;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

function realDay(value: string): boolean {
  if (!DAY.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** The number of China-time days from `from` to `to`, both included. */
function rangeDays({ from, to }: FinanceRange): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
}

/** A range typed into a form or a script's query: both days real, in order, at most FINANCE_MAX_DAYS. */
export function parseFinanceRange(fromInput: string | null | undefined, toInput: string | null | undefined): Parsed<FinanceRange> {
  const from = (fromInput ?? "").trim();
  const to = (toInput ?? "").trim();
  if (!from || !to) return { ok: false, message: FINANCE_MESSAGES.rangeMissing };
  if (!realDay(from) || !realDay(to)) return { ok: false, message: FINANCE_MESSAGES.dayInvalid };
  if (from > to) return { ok: false, message: FINANCE_MESSAGES.reversed };
  if (rangeDays({ from, to }) > FINANCE_MAX_DAYS) return { ok: false, message: FINANCE_MESSAGES.tooLong };
  return { ok: true, value: { from, to } };
}

export function parseFinanceFormat(input: string | null | undefined): Parsed<FinanceFormat> {
  const format = (input ?? "").trim().toLowerCase();
  return (FINANCE_FORMATS as readonly string[]).includes(format) ? { ok: true, value: format as FinanceFormat } : { ok: false, message: FINANCE_MESSAGES.format };
}

export function parseFinanceReport(input: string | null | undefined): Parsed<FinanceReport> {
  const report = (input ?? "").trim();
  return (FINANCE_REPORTS as readonly string[]).includes(report) ? { ok: true, value: report as FinanceReport } : { ok: false, message: FINANCE_MESSAGES.report };
}

/** The `count` days ending with `today` (yyyy-mm-dd), as a range: the page's default. */
export function lastDays(today: string, count: number): FinanceRange {
  const from = new Date(Date.parse(`${today}T00:00:00Z`) - (count - 1) * DAY_MS).toISOString().slice(0, 10);
  return { from, to: today };
}
