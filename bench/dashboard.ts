// npm run bench:dashboard: the back office's 30-day charts (getDailySeries) and its money
// figures (moneyByDay, /admin/money) on PostgreSQL over 1,000,000 token ledger rows spread
// over a year, with 20,000 users, 200,000 chapter purchases and as many author sales in the
// income ledger, 50,000 payment orders (1,250 refunded), 5,000 payouts and 200,000 chapter
// reads (docs/benchmarks.md#dashboard-charts-and-money-figures-npm-run-benchdashboard). Target: p95 < 100 ms for each.
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
const { moneyByDay } = await import("~/server/admin/payments.server");

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
// Each purchase is a sale in the author's income ledger (70% share), as purchases write it.
await db.execute(sql`insert into income_transactions (user_id, type, amount, gross, work_id, chapter_id, description, created_at)
  select w.user_id, 'sale', 3, p.price, p.work_id, p.chapter_id, '基准', p.created_at
  from chapter_purchases p join works w on w.id = p.work_id`);
await db.execute(sql`update payment_orders set refunded_at = paid_at + interval '1 day', refund_reason = '基准'
  where status = 'paid' and out_trade_no in (select 'bench-' || g from generate_series(1, 50000, 40) g)`);
await db.execute(sql`insert into payout_requests (user_id, amount, payee, status, settled_at, created_at)
  select u.id, 100, '支付宝', case when g % 4 = 0 then 'pending' else 'paid' end,
         case when g % 4 = 0 then null else ${year} end, now() - interval '366 days'
  from generate_series(1, 5000) g join bench_users u on u.n = 1 + g % 20000`);
await db.execute(sql`insert into chapter_reads (chapter_id, day, user_id, work_id)
  select c.id, (now() at time zone 'Asia/Shanghai')::date - (g % 365), u.id, c.work_id
  from generate_series(1, 200000) g join bench_users u on u.n = 1 + g % 20000 join chapters c on c.position = 1 + g % 100
  on conflict do nothing`);
await db.execute(sql`vacuum analyze`);

/** `runs` timed calls after 20 warm-ups, interleaved with the other measure's (same load). */
const measures = {
  "getDailySeries (30 days)": async () => {
    if ((await getDailySeries()).days.length !== 30) throw new Error("expected 30 days");
  },
  "moneyByDay (30 days)": async () => {
    const days = await moneyByDay(30);
    if (days.length !== 30 || !days.some((d) => d.purchases > 0)) throw new Error("expected 30 days with sales");
  },
};
const samples = new Map<string, number[]>(Object.keys(measures).map((name) => [name, []]));
for (let i = 0; i < runs + 20; i++) {
  for (const [name, run] of Object.entries(measures)) {
    const start = performance.now();
    await run();
    if (i >= 20) samples.get(name)!.push(performance.now() - start);
  }
}
for (const [name, list] of samples) {
  list.sort((a, b) => a - b);
  const p95 = percentile(list, 95);
  console.log(`${name}, ${runs} runs: p50 ${fmt(percentile(list, 50))} ms  p95 ${fmt(p95)} ms  max ${fmt(list.at(-1)!)} ms  ${p95 < 100 ? "ok" : "MISSED (< 100 ms)"}`);
}
console.log(describeMachine());
await closeDatabase();
await dropPgDatabase(dbName);
