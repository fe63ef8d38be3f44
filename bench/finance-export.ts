// npm run bench:finance-export: the finance exports (decision 226) on PostgreSQL over 300,000
// paid orders and 300,000 sales of 5,000 authors in one China-time month: each report as CSV
// and xlsx, timed, its bytes counted, the process's peak RSS above its RSS before the export
// sampled every 20 ms (memory must not grow with the rows), and the 合计 row checked against
// 资金报表 (moneyByRange) for the same range. `--slow=ms` reads like a slow client, so the
// xlsx writer waits for drain (docs/benchmarks.md#finance-exports-npm-run-benchfinance-export).
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, pgUrlFor } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const orders = Number(flags.get("orders") ?? 300_000);
const sales = Number(flags.get("sales") ?? 300_000);
/** A slow client: this many ms after each chunk read (the xlsx writer then waits for drain). */
const slowMs = Number(flags.get("slow") ?? 0);
process.on("warning", (warning) => console.log(`process warning: ${warning.name}: ${warning.message}`));
const dbName = "inkstone_bench_finance";
const MB = 1024 * 1024;

await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "0";
const { closeDatabase, db } = await import("~/db/client.server");
const { sql } = await import("drizzle-orm");
const { exportFinance } = await import("~/server/admin/exports/finance.server");
const { moneyByRange, moneyTotals } = await import("~/server/admin/payments.server");

const FROM = "2026-10-01";
const TO = "2026-10-31";
const inMonth = sql`(timestamptz '2026-09-30 16:00:00+00' + random() * interval '31 days' - interval '1 second')`;
console.log(`seeding: ${orders.toLocaleString()} paid orders, ${sales.toLocaleString()} sales of 5,000 authors...`);
const machineBefore = busy();
await db.execute(sql`create table bench_users (n int primary key, id uuid not null)`);
await db.execute(sql`with made as (
    insert into users (email, password_hash) select 'bench-' || g || '@example.com', 'x' from generate_series(1, 20000) g returning id, email)
  insert into bench_users (n, id) select row_number() over (order by email), id from made`);
await db.execute(sql`insert into profiles (id, email, nickname) select u.id, 'bench-' || u.n || '@example.com', '作者' || u.n from bench_users u`);
await db.execute(sql`insert into payment_orders (out_trade_no, user_id, amount, status, paid_at, trade_no, credited_via)
  select 'bench-' || g, u.id, 1 + g % 500, 'paid', ${inMonth}, '=T' || g, 'notify'
  from generate_series(1, ${orders}::int) g join bench_users u on u.n = 1 + g % 20000`);
await db.execute(sql`insert into author_income (user_id, balance) select id, 0 from bench_users where n <= 5000`);
await db.execute(sql`insert into income_transactions (user_id, type, amount, gross, description, created_at)
  select u.id, case when g % 10 = 0 then 'tip' else 'sale' end, 7, 10, '基准', ${inMonth}
  from generate_series(1, ${sales}::int) g join bench_users u on u.n = 1 + g % 5000`);
await db.execute(sql`vacuum analyze`);
const screen = moneyTotals(await moneyByRange(FROM, TO));

async function measure(report: "orders" | "author-income", format: "csv" | "xlsx") {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = before;
  let heapPeak = heapBefore;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peak = Math.max(peak, now.rss);
    heapPeak = Math.max(heapPeak, now.heapUsed);
  }, 20);
  const started = performance.now();
  const file = await exportFinance(report, { from: FROM, to: TO }, format);
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of file.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (slowMs) await new Promise((resolve) => setTimeout(resolve, slowMs));
    // Keep only the tail (the 合计 row) of a CSV, as a client writing to disk would keep nothing.
    if (format === "csv") chunks.splice(0, chunks.length, Buffer.from(chunk));
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  let check = "";
  if (format === "csv") {
    const total = Buffer.concat(chunks).toString("utf8").trimEnd().split("\r\n").pop()!.split(",");
    const ok = report === "orders" ? Number(total[3]) === screen.topUps : Number(total[9]) === screen.authorIncome;
    check = ok ? "合计 = 资金报表" : `合计 MISMATCH: ${total.join(",")}`;
  }
  console.log(`${report} ${format}: ${fmt(ms / 1000, 2)} s, ${fmt(bytes / MB)} MB, peak RSS +${fmt((peak - before) / MB)} MB, peak heap +${fmt((heapPeak - heapBefore) / MB)} MB ${check}`);
}

try {
  for (const report of ["orders", "author-income"] as const) for (const format of ["csv", "xlsx"] as const) await measure(report, format);
} finally {
  await closeDatabase();
  await dropPgDatabase(dbName);
}
console.log(`\n${describeMachine()}\n${describeBusy(machineBefore, busy())}`);
