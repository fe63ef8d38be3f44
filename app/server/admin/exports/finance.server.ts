import { once } from "node:events";
import { PassThrough, Readable } from "node:stream";
import { sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { maskName } from "~/schemas/identity";
import { FINANCE_REPORT_LABELS, type FinanceFormat, type FinanceRange, type FinanceReport } from "~/schemas/finance-export";
import { PAYOUT_STATUS_LABELS, TAX_RULE_NAMES } from "~/types/payouts";
import { rowsOf } from "~/server/platform/db-utils.server";
import { webStreamFrom } from "~/server/platform/download.server";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { SITE_TIME_ZONE } from "../dashboard.server";

/**
 * 财务导出 (docs/product.md#finance-exports, decision 226): 充值订单, 退款, 提现与代扣个税 and
 * 作者月度收入 for a China-time date range, as xlsx (exceljs's streaming writer) or CSV (UTF-8
 * with a BOM). Rows are read in keyset batches of BATCH and written as they come, so memory
 * does not grow with the range. Each report picks its rows by the same times and conditions
 * as 资金报表 (moneyByRange in payments.server.ts), and its last row, 合计, sums the rows
 * written: the two agree for the same range (tests/integration/finance-exports.test.ts).
 */

const BATCH = 500;

type Cell = string | number | null;

interface Column {
  header: string;
  width: number;
  /** `fen`: an integer of fen, written as yuan with two decimals; `int`: a count or credits. */
  kind: "text" | "int" | "fen";
  /** Summed into the 合计 row. */
  sum?: boolean;
}

interface Report {
  sheet: string;
  columns: Column[];
  batches: () => AsyncGenerator<Cell[][]>;
}

const start = (day: string) => sql`(${day}::date::timestamp at time zone ${SITE_TIME_ZONE})`;
const endOf = (day: string) => sql`(${start(day)} + interval '1 day')`;
const time = (value: unknown) => formatShanghaiSeconds(value as string | Date | null);
const text = (value: unknown) => (value === null || value === undefined ? "" : String(value));

/** Keyset batches: `read(after)` gives up to BATCH rows after the key; `keyOf` the last row's key. */
async function* keysetBatches<R, K>(first: K, read: (after: K) => Promise<R[]>, keyOf: (row: R) => K, toCells: (row: R) => Cell[]) {
  let after = first;
  for (;;) {
    const rows = await read(after);
    if (rows.length > 0) yield rows.map(toCells);
    if (rows.length < BATCH) return;
    after = keyOf(rows[rows.length - 1]);
  }
}

async function select<R>(query: SQL): Promise<R[]> {
  return rowsOf<R>(await db.execute(query));
}

const CREDITED_VIA: Record<string, string> = { notify: "支付通知", query: "查单", manual: "补单" };

/** Paid top-ups by the time paid (资金报表's 充值), refunded ones too (退款 is its own report). */
function ordersReport(range: FinanceRange): Report {
  type Row = { out_trade_no: string; trade_no: string | null; user_id: string; amount: number; created_at: string; paid_at: string; paid_key: string; credited_via: string | null; refunded_at: string | null };
  return {
    sheet: "充值订单",
    columns: [
      { header: "商户订单号", width: 24, kind: "text" },
      { header: "支付平台订单号", width: 24, kind: "text" },
      { header: "用户ID", width: 38, kind: "text" },
      { header: "金额（元）", width: 12, kind: "int", sum: true },
      { header: "下单时间", width: 20, kind: "text" },
      { header: "支付时间", width: 20, kind: "text" },
      { header: "入账方式", width: 10, kind: "text" },
      { header: "退款时间", width: 20, kind: "text" },
    ],
    batches: () =>
      keysetBatches(
        { at: "-infinity", no: "" },
        (after) =>
          select<Row>(sql`
            select out_trade_no, trade_no, user_id::text as user_id, amount, created_at, paid_at, paid_at::text as paid_key, credited_via, refunded_at
            from payment_orders
            where status = 'paid' and paid_at >= ${start(range.from)} and paid_at < ${endOf(range.to)}
              and (paid_at, out_trade_no) > (${after.at}::timestamptz, ${after.no})
            order by paid_at, out_trade_no limit ${BATCH}`),
        (r) => ({ at: r.paid_key, no: r.out_trade_no }),
        (r) => [r.out_trade_no, text(r.trade_no), r.user_id, Number(r.amount), time(r.created_at), time(r.paid_at), CREDITED_VIA[r.credited_via ?? ""] ?? "", time(r.refunded_at)],
      ),
  };
}

/** Refunds by the time refunded (资金报表's 退款). */
function refundsReport(range: FinanceRange): Report {
  type Row = { out_trade_no: string; trade_no: string | null; user_id: string; amount: number; paid_at: string; refunded_at: string; refunded_key: string; refund_reason: string | null; admin_email: string | null };
  return {
    sheet: "退款",
    columns: [
      { header: "商户订单号", width: 24, kind: "text" },
      { header: "支付平台订单号", width: 24, kind: "text" },
      { header: "用户ID", width: 38, kind: "text" },
      { header: "退款金额（元）", width: 14, kind: "int", sum: true },
      { header: "支付时间", width: 20, kind: "text" },
      { header: "退款时间", width: 20, kind: "text" },
      { header: "退款原因", width: 30, kind: "text" },
      { header: "操作管理员", width: 24, kind: "text" },
    ],
    batches: () =>
      keysetBatches(
        { at: "-infinity", no: "" },
        (after) =>
          select<Row>(sql`
            select o.out_trade_no, o.trade_no, o.user_id::text as user_id, o.amount, o.paid_at, o.refunded_at, o.refunded_at::text as refunded_key,
              o.refund_reason, a.email as admin_email
            from payment_orders o left join admins a on a.id = o.refunded_by
            where o.refunded_at >= ${start(range.from)} and o.refunded_at < ${endOf(range.to)}
              and (o.refunded_at, o.out_trade_no) > (${after.at}::timestamptz, ${after.no})
            order by o.refunded_at, o.out_trade_no limit ${BATCH}`),
        (r) => ({ at: r.refunded_key, no: r.out_trade_no }),
        (r) => [r.out_trade_no, text(r.trade_no), r.user_id, Number(r.amount), time(r.paid_at), time(r.refunded_at), text(r.refund_reason), text(r.admin_email)],
      ),
  };
}

/**
 * Payouts with their tax: a row when a payout was paid (its withholding statement) and a
 * negative row when its money came back (the reversal), each on the day it happened, as
 * 资金报表's 提现 (paid less returned) and 代扣个税 (withheld less reversed) count them.
 * A payout paid before statements existed (decision 209) shows its gross without tax.
 */
function payoutsReport(range: FinanceRange): Report {
  type Row = {
    at: string;
    at_key: string;
    payout_id: number;
    kind_order: number;
    user_id: string;
    status: keyof typeof PAYOUT_STATUS_LABELS;
    amount: number;
    month: string | null;
    rule: keyof typeof TAX_RULE_NAMES | null;
    gross_fen: number | null;
    tax_fen: number | null;
    net_fen: number | null;
    note: string | null;
    payee_name: string | null;
    holder_masked: string | null;
  };
  const from = start(range.from);
  const to = endOf(range.to);
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    sheet: "提现与代扣个税",
    columns: [
      { header: "类型", width: 10, kind: "text" },
      { header: "提现单号", width: 10, kind: "text" },
      { header: "作者ID", width: 38, kind: "text" },
      { header: "收款人", width: 10, kind: "text" },
      { header: "当前状态", width: 12, kind: "text" },
      { header: "发生时间", width: 20, kind: "text" },
      { header: "计税月份", width: 10, kind: "text" },
      { header: "计税方式", width: 14, kind: "text" },
      { header: "应发金额（元）", width: 14, kind: "fen", sum: true },
      { header: "代扣个税（元）", width: 14, kind: "fen", sum: true },
      { header: "实发金额（元）", width: 14, kind: "fen", sum: true },
      { header: "支付凭证 / 退回原因", width: 30, kind: "text" },
    ],
    batches: () =>
      keysetBatches(
        { at: "-infinity", id: 0, kind: -1 },
        (after) =>
          select<Row>(sql`
            select * from (
              select p.settled_at as at, p.settled_at::text as at_key, p.id as payout_id, 0 as kind_order, p.user_id::text as user_id, p.status,
                p.amount, s.month, s.rule, s.gross_fen, s.tax_fen, s.net_fen, p.reference as note, p.payee_name, a.holder_masked
              from payout_requests p
              left join payout_statements s on s.payout_id = p.id and s.kind = 'withholding'
              left join payout_accounts a on a.id = p.account_id
              where p.status in ('paid', 'returned') and p.settled_at >= ${from} and p.settled_at < ${to}
              union all
              select t.created_at, t.created_at::text, p.id, 1, p.user_id::text, p.status,
                -t.amount, s.month, s.rule, s.gross_fen, s.tax_fen, s.net_fen, t.description, p.payee_name, a.holder_masked
              from income_transactions t
              join payout_requests p on p.id = t.payout_id
              left join payout_statements s on s.payout_id = p.id and s.kind = 'reversal'
              left join payout_accounts a on a.id = p.account_id
              where t.type = 'payout_returned' and t.created_at >= ${from} and t.created_at < ${to}
            ) e
            where (e.at, e.payout_id, e.kind_order) > (${after.at}::timestamptz, ${after.id}, ${after.kind})
            order by e.at, e.payout_id, e.kind_order limit ${BATCH}`),
        (r) => ({ at: r.at_key, id: Number(r.payout_id), kind: Number(r.kind_order) }),
        (r) => {
          const grossFen = r.gross_fen === null ? Number(r.amount) * 100 : Number(r.gross_fen);
          const payee = r.holder_masked ?? (r.payee_name ? maskName(r.payee_name) : "");
          return [
            Number(r.kind_order) === 0 ? "支付" : "款项退回",
            String(r.payout_id),
            r.user_id,
            payee,
            PAYOUT_STATUS_LABELS[r.status] ?? r.status,
            time(r.at),
            text(r.month),
            r.rule ? TAX_RULE_NAMES[r.rule] : "无结算单",
            grossFen,
            num(r.tax_fen),
            num(r.net_fen),
            text(r.note),
          ];
        },
      ),
  };
}

/** The China-time months the range touches, each cut to the range: ["2026-11", "2026-11-20", "2026-11-30"]. */
function monthSlices({ from, to }: FinanceRange): { month: string; first: string; last: string }[] {
  const slices: { month: string; first: string; last: string }[] = [];
  let [year, month] = from.slice(0, 7).split("-").map(Number);
  for (;;) {
    const key = `${year}-${String(month).padStart(2, "0")}`;
    if (key > to.slice(0, 7)) return slices;
    const lastDay = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    slices.push({ month: key, first: from > `${key}-01` ? from : `${key}-01`, last: to < lastDay ? to : lastDay });
    month += 1;
    if (month > 12) [year, month] = [year + 1, 1];
  }
}

/**
 * Per author per China-time month: sales and tips (what readers paid), the platform's share
 * and the author's (资金报表's 购买, 打赏 and 作者收入). Sales and tips are the only income
 * types: the other income rows (payouts, conversions to credits, returns) move income already
 * earned. Authors are read in keyset batches of author_income (every author paid a share has
 * a row there), each batch's months summed from their ledger by (user, time).
 */
function authorIncomeReport(range: FinanceRange): Report {
  type Row = { user_id: string; nickname: string | null; sales: number; sales_gross: number; tips: number; tips_gross: number; share: number };
  async function* batches(): AsyncGenerator<Cell[][]> {
    for (const slice of monthSlices(range)) {
      let after: string | null = null;
      for (;;) {
        const ids: { user_id: string }[] = await select<{ user_id: string }>(sql`
          select user_id::text as user_id from author_income
          where (${after}::uuid is null or user_id > ${after}::uuid) order by user_id limit ${BATCH}`);
        if (ids.length === 0) break;
        const rows: Row[] = await select<Row>(sql`
          select t.user_id::text as user_id, max(p.nickname) as nickname,
            count(*) filter (where t.type = 'sale')::int as sales, coalesce(sum(t.gross) filter (where t.type = 'sale'), 0)::bigint as sales_gross,
            count(*) filter (where t.type = 'tip')::int as tips, coalesce(sum(t.gross) filter (where t.type = 'tip'), 0)::bigint as tips_gross,
            sum(t.amount)::bigint as share
          from income_transactions t left join profiles p on p.id = t.user_id
          where t.user_id >= ${ids[0].user_id}::uuid and t.user_id <= ${ids[ids.length - 1].user_id}::uuid
            and t.type in ('sale', 'tip') and t.created_at >= ${start(slice.first)} and t.created_at < ${endOf(slice.last)}
          group by t.user_id order by t.user_id`);
        if (rows.length > 0) {
          yield rows.map((r) => {
            const gross = Number(r.sales_gross) + Number(r.tips_gross);
            const share = Number(r.share);
            return [slice.month, r.user_id, text(r.nickname), Number(r.sales), Number(r.sales_gross), Number(r.tips), Number(r.tips_gross), gross, gross - share, share];
          });
        }
        if (ids.length < BATCH) break;
        after = ids[ids.length - 1].user_id;
      }
    }
  }
  return {
    sheet: "作者月度收入",
    columns: [
      { header: "月份", width: 10, kind: "text" },
      { header: "作者ID", width: 38, kind: "text" },
      { header: "笔名", width: 16, kind: "text" },
      { header: "销售笔数", width: 10, kind: "int", sum: true },
      { header: "销售额（积分）", width: 14, kind: "int", sum: true },
      { header: "打赏笔数", width: 10, kind: "int", sum: true },
      { header: "打赏额（积分）", width: 14, kind: "int", sum: true },
      { header: "收入合计（积分）", width: 16, kind: "int", sum: true },
      { header: "平台分成（积分）", width: 16, kind: "int", sum: true },
      { header: "作者分成（积分）", width: 16, kind: "int", sum: true },
    ],
    batches,
  };
}

const REPORTS: Record<FinanceReport, (range: FinanceRange) => Report> = {
  orders: ordersReport,
  refunds: refundsReport,
  payouts: payoutsReport,
  "author-income": authorIncomeReport,
};

/** Fen as yuan with two decimals, by integer arithmetic: -12345 → "-123.45". */
function fenToYuan(fen: number): string {
  const abs = Math.abs(fen);
  return `${fen < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, a line break or edge
 * spaces, quotes doubled. Text starting with = + - @ (or a tab or carriage return) gets a
 * leading ' so a spreadsheet shows it instead of running it as a formula (OWASP's CSV
 * injection advice); numbers are written bare, so a negative amount stays a number.
 * @internal exported for its unit test
 */
export function csvField(value: Cell, kind: Column["kind"]): string {
  if (value === null) return "";
  if (typeof value === "number") return kind === "fen" ? fenToYuan(value) : String(value);
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]|^\s|\s$/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** Walks the report's batches, summing the columns marked `sum`, and ends with the 合计 row. */
async function* withTotals(report: Report): AsyncGenerator<Cell[][]> {
  const sums = report.columns.map(() => 0);
  for await (const rows of report.batches()) {
    for (const row of rows) report.columns.forEach((c, i) => c.sum && typeof row[i] === "number" && (sums[i] += row[i]));
    yield rows;
  }
  yield [report.columns.map((c, i) => (i === 0 ? "合计" : c.sum ? sums[i] : null))];
}

async function* csvChunks(report: Report): AsyncGenerator<Buffer> {
  const line = (cells: Cell[]) => cells.map((cell, i) => csvField(cell, report.columns[i].kind)).join(",") + "\r\n";
  yield Buffer.from(`\uFEFF${line(report.columns.map((c) => c.header))}`, "utf8");
  for await (const rows of withTotals(report)) yield Buffer.from(rows.map(line).join(""), "utf8");
}

/** Until the client took what was written, or went away; the listeners removed either way (one wait per batch). */
async function drainedOrClosed(output: PassThrough): Promise<void> {
  const stop = new AbortController();
  try {
    await Promise.race([once(output, "drain", { signal: stop.signal }), once(output, "close", { signal: stop.signal })]);
  } finally {
    stop.abort();
  }
}

async function xlsxStream(report: Report): Promise<PassThrough> {
  const output = new PassThrough();
  // A cancelled download destroys `output` while the writer may still write into it.
  output.on("error", () => {});
  // exceljs adds about 20 MB to the process: loaded on the first export, not at start.
  const { default: ExcelJS } = await import("exceljs");
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: false });
  workbook.creator = "砚台";
  const sheet = workbook.addWorksheet(report.sheet);
  sheet.columns = report.columns.map((c) => ({ header: c.header, width: c.width, style: c.kind === "fen" ? { numFmt: "0.00" } : {} }));
  sheet.getRow(1).font = { bold: true };
  void (async () => {
    try {
      for await (const rows of withTotals(report)) {
        if (output.destroyed) return;
        for (const row of rows) sheet.addRow(row.map((cell, i) => (typeof cell === "number" && report.columns[i].kind === "fen" ? cell / 100 : cell))).commit();
        // Back-pressure: wait while the client has not taken what was written.
        if (output.writableNeedDrain) await drainedOrClosed(output);
      }
      sheet.commit();
      await workbook.commit();
    } catch (error) {
      if (!output.destroyed) {
        console.error("finance export failed", error);
        output.destroy(error as Error);
      }
    }
  })();
  return output;
}

interface FinanceExport {
  body: ReadableStream<Uint8Array>;
  filename: string;
  asciiName: string;
  contentType: string;
}

/** The report for the range (already checked: parseFinanceRange) in the format, streamed. */
export async function exportFinance(reportName: FinanceReport, range: FinanceRange, format: FinanceFormat): Promise<FinanceExport> {
  const report = REPORTS[reportName](range);
  const stem = `资金报表-${FINANCE_REPORT_LABELS[reportName]}-${range.from}至${range.to}`;
  const ascii = `finance-${reportName}-${range.from.replace(/-/g, "")}-${range.to.replace(/-/g, "")}`;
  if (format === "csv") {
    const readable = Readable.from(csvChunks(report), { objectMode: false });
    return { body: webStreamFrom(readable), filename: `${stem}.csv`, asciiName: `${ascii}.csv`, contentType: "text/csv; charset=utf-8" };
  }
  return {
    body: webStreamFrom(await xlsxStream(report)),
    filename: `${stem}.xlsx`,
    asciiName: `${ascii}.xlsx`,
    contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  };
}
