// npm run bench:dashboard: the back office's 30-day charts (getDailySeries) on PostgreSQL
// over 1,000,000 token ledger rows spread over a year, with 20,000 users, 200,000 chapter
// purchases, 50,000 payment orders and 200,000 chapter reads (docs/benchmarks.md#dashboard-charts).
// Target: p95 < 100 ms.
import { describeMachine } from "./lib-machine";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const runs = Number(flags.get("runs") ?? 200);
const ledger = Number(flags.get("rows") ?? 1_000_000);
const dbName = "inkstone_bench_dashboard";

await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "0";
const { closeDatabase, db } = await import("~/db/client.server");
const { sql } = await import("drizzle-orm");
const { getDailySeries } = await import("~/server/admin/dashboard.server");

const year = sql`(now() - random() * interval '365 days')`;
console.log(`seeding: ${ledger.toLocaleString()} token ledger rows and the rest...`);
await db.execute(sql`create table bench_users (n int primary key, id uuid not null)`);
await db.execute(sql`with made as (
    insert into users (email, password_hash) select 'bench-' || g || '@example.com', 'x' from generate_series(1, 20000) g returning id, email)
  insert into bench_users (n, id) select row_number() over (order by email), id from made`);
await db.execute(sql`insert into profiles (id, email, nickname, created_at) select u.id, 'bench-' || u.n || '@example.com', '读者' || u.n, ${year} from bench_users u`);
await db.execute(sql`insert into works (user_id, title, description, type, status, visibility, rating)
  select id, '基准作品', '', 'multi_chapter', 'completed', 'public', 'all_ages' from bench_users where n = 1`);
await db.execute(sql`insert into chapters (work_id, title, content, position) select w.id, '第' || g || '章', '正文', g from works w, generate_series(1, 100) g`);
for (let from = 0; from < ledger; from += 250_000) {
  await db.execute(sql`insert into token_transactions (user_id, amount, type, description, created_at)
    select u.id, case when g % 10 = 0 then 5000 else -(100 + g % 900) end,
           (case when g % 10 = 0 then 'grant' else 'generation' end)::token_transaction_type, '基准', ${year}
    from generate_series(${from + 1}::int, ${Math.min(ledger, from + 250_000)}::int) g join bench_users u on u.n = 1 + g % 20000`);
}
await db.execute(sql`insert into chapter_purchases (user_id, chapter_id, work_id, price, created_at)
  select u.id, c.id, c.work_id, 5, ${year} from bench_users u, chapters c where u.n <= 2000`);
await db.execute(sql`insert into payment_orders (out_trade_no, user_id, amount, status, paid_at, created_at)
  select 'bench-' || g, u.id, 30, case when g % 5 = 0 then 'pending' else 'paid' end::payment_order_status,
         case when g % 5 = 0 then null else now() - random() * interval '365 days' end, now() - interval '366 days'
  from generate_series(1, 50000) g join bench_users u on u.n = 1 + g % 20000`);
await db.execute(sql`insert into chapter_reads (chapter_id, day, user_id, work_id)
  select c.id, (now() at time zone 'Asia/Shanghai')::date - (g % 365), u.id, c.work_id
  from generate_series(1, 200000) g join bench_users u on u.n = 1 + g % 20000 join chapters c on c.position = 1 + g % 100
  on conflict do nothing`);
await db.execute(sql`vacuum analyze`);

const samples: number[] = [];
for (let i = 0; i < runs + 20; i++) {
  const start = performance.now();
  const series = await getDailySeries();
  if (series.days.length !== 30) throw new Error("expected 30 days");
  if (i >= 20) samples.push(performance.now() - start);
}
samples.sort((a, b) => a - b);
const p95 = percentile(samples, 95);
console.log(`getDailySeries (30 days), ${runs} runs: p50 ${fmt(percentile(samples, 50))} ms  p95 ${fmt(p95)} ms  max ${fmt(samples.at(-1)!)} ms  ${p95 < 100 ? "ok" : "MISSED (< 100 ms)"}`);
console.log(describeMachine());
await closeDatabase();
await dropPgDatabase(dbName);
