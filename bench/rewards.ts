// npm run bench:rewards [-- --scale=0.1 --runs=300 --keep --reuse]: 月票, 推荐票, 打赏 and the rankings
// on PostgreSQL (docs/benchmarks.md#rewards, decision 222). At --scale=1 the issue's size:
// 100,000 works, 1,000,000 readers, 10,000,000 votes and tips (4M 月票 casts, 4M 推荐票
// casts, 2M tips over the last 60 days, with their rankings' tallies), and one work with
// 100,000 fans (at every scale). Seeded set-based (generate_series), then measured:
// 1. casting a vote (castVotes, 月票 and 推荐票 alternately) and a tip (tipWork), each by a
//    random reader on a random work: p95 < 10 ms;
// 2. every ranking page's query (月票榜, 推荐票榜, 打赏榜 by day, week, month, the shared
//    copy turned off): p95 < 50 ms;
// 3. the 粉丝榜 of the work with 100,000 fans, with a random fan's own place: p95 < 30 ms.
import { describeMachine } from "./lib-machine";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const scale = Number(flags.get("scale") ?? 1);
const runs = Number(flags.get("runs") ?? 300);
const keep = flags.has("keep");
// --reuse: measure a database kept by an earlier run at the same scale (--keep) without seeding
// again: at --scale=1 the seed takes a quarter of an hour, so it can run while the machine is
// busy and the measuring when it is quiet.
const reuseAsked = flags.has("reuse");
const WORKS = Math.max(100, Math.round(100_000 * scale));
const READERS = Math.max(1000, Math.round(1_000_000 * scale));
const MONTHLY = Math.round(4_000_000 * scale);
const RECOMMEND = Math.round(4_000_000 * scale);
const TIPS = Math.round(2_000_000 * scale);
const HOT_FANS = 100_000;
const AUTHORS = Math.max(10, Math.round(WORKS / 10));
// The hot work's fans: 100,000, or every reader at a scale with fewer.
const FANS = Math.min(HOT_FANS, READERS);
const dbName = "inkstone_bench_rewards";

const seededScale = async (): Promise<number | null> => {
  const postgres = (await import("postgres")).default;
  const probe = postgres(pgUrlFor(dbName), { max: 1, onnotice: () => {} });
  try {
    const [row] = await probe`select scale from bench_seed`;
    return row ? Number(row.scale) : null;
  } catch {
    return null;
  } finally {
    await probe.end({ timeout: 5 });
  }
};
const reuse = reuseAsked && (await ensurePgDatabase(dbName, false)) === false && (await seededScale()) === scale;
if (reuseAsked && !reuse) console.log(`no ${dbName} seeded at scale ${scale} to reuse: seeding`);
if (!reuse) await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
// Seeding statements of millions of rows, on every connection of the pool.
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "0";
// The query, not the few-second shared copy, is what is measured.
process.env.PAGE_CACHE = "0";
const { closeDatabase, db } = await import("~/db/client.server");
const { sql } = await import("drizzle-orm");
const { castVotes } = await import("~/server/community/votes.server");
const { tipWork } = await import("~/server/economy/tips.server");
const { fanRanking } = await import("~/server/community/fans.server");
const { periodRankingBoard } = await import("~/server/catalog/rankings.server");

const started = performance.now();
const step = async (label: string, statement: ReturnType<typeof sql>) => {
  const t = performance.now();
  await db.execute(statement);
  console.log(`  ${label}: ${fmt((performance.now() - t) / 1000)} s`);
};
console.log(`bench:rewards on PostgreSQL, scale ${scale}: ${WORKS} works, ${READERS} readers, ${MONTHLY + RECOMMEND} vote casts, ${TIPS} tips, ${FANS} fans on one work`);
const visibleWorks = async () => ((await db.execute(sql`select count(*)::int as visible from bench_works`)) as unknown as { visible: number }[])[0].visible;
const hotWork = async () => ((await db.execute(sql`select id as hot from bench_works where n = 2`)) as unknown as { hot: number }[])[0].hot;
let visible = 0;
let hot = 0;
if (reuse) {
  visible = await visibleWorks();
  hot = await hotWork();
  console.log(`reusing ${dbName}, seeded earlier at scale ${scale}`);
} else {
  // Accounts: authors first (ids 1..AUTHORS by row number), then readers; all a year old.
  await step(
    "accounts",
    sql`insert into users (email, password_hash, created_at)
        select 'bench-rewards-' || g || '@example.com', 'none', now() - interval '365 days' from generate_series(1, ${AUTHORS + READERS}) g`,
  );
  await step(
    "profiles and credits",
    sql`with u as (insert into profiles (id, email, nickname) select id, email, '读者' || right(email, 10) from users returning id)
        insert into credits (user_id, balance) select id, 100000000 from u`,
  );
  await db.execute(sql`create unlogged table bench_people as select row_number() over (order by email) as n, id from users`);
  await db.execute(sql`create index on bench_people (n)`);
  await step(
    "works",
    sql`insert into works (user_id, title, description, type, status, visibility, rating, is_ai_generated, price, word_count, chapter_count, created_at)
        select p.id, '基准作品' || g, '简介', 'single_chapter', 'completed', case when g % 10 = 0 then 'private' else 'public' end::work_visibility,
               'all_ages', false, 0, 1000, 1, now() - interval '100 days'
        from generate_series(1, ${WORKS}) g join bench_people p on p.n = 1 + g % ${AUTHORS}`,
  );
  // The works readers can see (9 in 10: every tenth is private, so the boards' listing rule filters).
  await db.execute(sql`create unlogged table bench_works as select row_number() over (order by id) as n, id, user_id from works where visibility = 'public'`);
  await db.execute(sql`create index on bench_works (n)`);
  visible = await visibleWorks();
  // Votes and tips: a skewed choice of visible work (the square of a uniform number), a reader among the readers, a time in the last 60 days.
  // The random picks are made in a subquery first: in a join condition random() would be drawn per candidate pair.
  const picks = (n: number) => sql`(
    select g, 1 + floor(power(random(), 2) * ${visible})::int as wn, ${AUTHORS} + 1 + floor(random() * ${READERS})::int as pn,
           now() - random() * interval '60 days' as at
    from generate_series(1, ${n}) g offset 0) s
    join bench_works w on w.n = s.wn
    join bench_people p on p.n = s.pn`;
  const castsOf = (kind: "monthly" | "recommend", n: number) => sql`
    insert into work_votes (user_id, work_id, kind, count, created_at)
    select p.id, w.id, ${kind}, 1 + (s.g % 3), s.at from ${picks(n)}`;
  await step("月票 casts", castsOf("monthly", MONTHLY));
  await step("推荐票 casts", castsOf("recommend", RECOMMEND));
  await step(
    "tips",
    sql`insert into work_tips (user_id, work_id, author_id, amount, message, created_at)
        select p.id, w.id, w.user_id, (1 + (s.g % 10)) * 100, '', s.at from ${picks(TIPS)}`,
  );
  // The rankings' tallies, as the casts and tips would have added them (China-time periods).
  const china = (column: string) => sql.raw(`((${column} at time zone 'UTC') + interval '8 hours')`);
  for (const [label, source, metric, amount] of [
    ["月票 tallies", "work_votes where kind = 'monthly'", "monthly", "count"],
    ["推荐票 tallies", "work_votes where kind = 'recommend'", "recommend", "count"],
    ["打赏 tallies", "work_tips", "tip", "amount"],
  ] as const) {
    await step(
      label,
      sql`insert into work_ranking_tallies (metric, period, starts_on, work_id, total)
          select ${metric}, p.period, p.starts_on, s.work_id, sum(s.${sql.raw(amount)})
          from (select * from ${sql.raw(source)}) s
          cross join lateral (values ('day', ${china("s.created_at")}::date), ('week', date_trunc('week', ${china("s.created_at")})::date),
                                     ('month', date_trunc('month', ${china("s.created_at")})::date)) as p(period, starts_on)
          group by 1, 2, 3, 4`,
    );
  }
  // Readers' month rows: enough spent this month for the casts measured below.
  await step(
    "readers' months",
    sql`insert into reader_vote_months (user_id, month, spent, monthly_used)
        select id, date_trunc('month', ${china("now()")})::date, 100000, 0 from bench_people where n > ${AUTHORS}`,
  );
  // The hot work's 100,000 fans (and some fan value on the works tipped).
  hot = await hotWork();
  await step(
    "fans",
    sql`insert into work_fans (work_id, user_id, fan_value)
        select ${hot}, id, 1 + floor(random() * 100000)::int from bench_people where n > ${AUTHORS} and n <= ${AUTHORS + FANS}`,
  );
  // As autovacuum leaves a settled table: the visibility map lets index-only scans skip the heap.
  await step("vacuum analyze", sql`vacuum analyze`);
  const [counted] = (await db.execute(sql`select (select count(*) from work_votes)::int as votes, (select count(*) from work_tips)::int as tips`)) as unknown as { votes: number; tips: number }[];
  console.log(`  rows: ${counted.votes} vote casts, ${counted.tips} tips`);
  console.log(`seeded in ${fmt((performance.now() - started) / 1000)} s`);
  await db.execute(sql`create table bench_seed as select ${scale}::float8 as scale`);
}

const pick = async (table: "bench_people" | "bench_works", lo: number, hi: number) => {
  const n = lo + Math.floor(Math.random() * (hi - lo + 1));
  const rows = (await db.execute(sql`select id, n from ${sql.raw(table)} where n = ${n}`)) as unknown as { id: string | number }[];
  return rows[0].id;
};
const reader = async () => ({ id: String(await pick("bench_people", AUTHORS + 1, AUTHORS + READERS)), showR18: false, showAi: true });
const publicWork = async () => Number(await pick("bench_works", 1, visible));

const report = (label: string, samples: number[], target: number) => {
  samples.sort((a, b) => a - b);
  const p95 = percentile(samples, 95);
  console.log(`${label.padEnd(34)} p50 ${fmt(percentile(samples, 50))} ms  p95 ${fmt(p95)} ms  max ${fmt(samples.at(-1)!)} ms  ${p95 < target ? "ok" : `MISSED (< ${target} ms)`}`);
};

const votes: number[] = [];
const tips: number[] = [];
for (let i = 0; i < runs + 20; i++) {
  const [who, workId] = [await reader(), await publicWork()];
  let t = performance.now();
  await castVotes(who, { workId, kind: i % 2 ? "monthly" : "recommend", count: "1" });
  const v = performance.now() - t;
  t = performance.now();
  await tipWork(who, { workId, chapterOrder: null, amount: "100", message: "" });
  const p = performance.now() - t;
  if (i >= 20) {
    votes.push(v);
    tips.push(p);
  }
}
report("cast a vote (月票/推荐票)", votes, 10);
report("tip 100 credits", tips, 10);

const boards: number[] = [];
for (let i = 0; i < Math.max(30, Math.round(runs / 9)); i++) {
  for (const board of ["monthly-votes", "recommend-votes", "tips"] as const) {
    for (const period of ["day", "week", "month"] as const) {
      const t = performance.now();
      const rows = await periodRankingBoard(board, period, null);
      if (i === 0 && rows.length === 0) throw new Error(`empty board ${board} ${period}`);
      if (i >= 2) boards.push(performance.now() - t);
    }
  }
}
report("ranking board (9 boards)", boards, 50);

const fans: number[] = [];
for (let i = 0; i < runs + 20; i++) {
  const fan = String(await pick("bench_people", AUTHORS + 1, AUTHORS + FANS));
  const t = performance.now();
  const ranking = await fanRanking(hot, fan);
  // A random fan is mostly outside the first 1,000: the place said as 未进入前 1000 名 (decision 207).
  if (ranking.fans.length !== 50 || (!ranking.viewer?.place && !ranking.viewer?.outside)) throw new Error("unexpected fan ranking");
  if (i >= 20) fans.push(performance.now() - t);
}
report(`粉丝榜 of a work with ${FANS} fans`, fans, 30);
console.log(describeMachine());
await closeDatabase();
if (!keep) await dropPgDatabase(dbName);
