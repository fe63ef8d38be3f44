// npm run bench:context: assembling the continuation prompt of a long serial on PostgreSQL
// (docs/benchmarks.md#continuation-context, docs/decisions/127). A work with 3,000 published
// chapters (about 3,000 characters each) in 30 volumes, every chapter and volume summarised,
// 1,000 bible entities with 2 aliases each and 5,000 facts with chapter ranges, and 200 plot
// threads; measures assembleContinuationContext for chapter 3,001 with plans naming different
// entities: p95 < 100 ms. Flags: --runs=N (default 300), --keep (leave inkstone_bench_context).
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor, rowsOf } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const runs = Number(flags.get("runs") ?? 300);
const CHAPTERS = 3_000;
const ENTITIES = 1_000;
const FACTS = 5_000;
const THREADS = 200;
const dbName = "inkstone_bench_context";

await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
process.env.DATABASE_POOL_SIZE ??= "6";
const { closeDatabase, db } = await import("~/db/client.server");
const { register } = await import("~/server/identity/auth.server");
const { createWork } = await import("~/server/catalog/works.server");
const { sql } = await import("drizzle-orm");
const { assembleContinuationContext } = await import("~/server/studio/context.server");

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};
const author = await register(form({ email: "author@example.com", password: "correct-horse-battery" }), "127.0.0.1");
const work = await createWork(author.id, { title: "三千章", description: "简介", rating: "all_ages", isAiGenerated: false, visibility: "public", type: "series", status: "ongoing" }, [{ title: "第1章", content: "正文" }], null);

let t0 = performance.now();
// Entity i is 人物i (aliases 阿i, 小i); the text of chapter n mentions three of them near its end.
await db.execute(sql`delete from chapters where work_id = ${work.id}`);
await db.execute(sql`
  insert into chapters (work_id, title, content, position, word_count, state, publish_at)
  select ${work.id}, '第' || n || '章', repeat('夜色沉沉，风从河面吹来。', 250) || '人物' || (n % ${ENTITIES}) || '看着阿' || ((n * 7) % ${ENTITIES}) || '，小' || ((n * 13) % ${ENTITIES}) || '没有说话。',
         n * 65536, 3000, 'published', now()
  from generate_series(1, ${CHAPTERS}) n`);
await db.execute(sql`
  insert into volumes (work_id, title, position)
  select ${work.id}, '第' || v || '卷', ((v - 1) * 100) * 65536 + 100 from generate_series(1, ${CHAPTERS / 100}) v`);
await db.execute(sql`insert into volume_summaries (volume_id, work_id, summary) select id, work_id, title || '：' || repeat('这一卷里发生了许多事。', 20) from volumes where work_id = ${work.id}`);
await db.execute(sql`insert into chapter_summaries (chapter_id, work_id, summary) select id, work_id, title || '：' || repeat('主角们奔走于江湖。', 15) from chapters where work_id = ${work.id}`);
await db.execute(sql`
  insert into story_entities (work_id, kind, name, description)
  select ${work.id}, (array['character','place','item','faction'])[1 + g % 4], '人物' || g, '第' || g || '号设定的简介' from generate_series(0, ${ENTITIES - 1}) g`);
await db.execute(sql`
  insert into story_entity_names (work_id, name, entity_id, is_alias)
  select ${work.id}, n.name, e.id, n.alias from story_entities e
  cross join lateral (values (e.name, false), ('阿' || substr(e.name, 3), true), ('小' || substr(e.name, 3), true)) n(name, alias)
  where e.work_id = ${work.id}`);
await db.execute(sql`
  insert into story_facts (work_id, entity_id, content, from_chapter, until_chapter)
  select ${work.id}, e.id, '事实' || f || '：' || repeat('细节', 10),
         case when f % 3 = 0 then null else 1 + (f * 37) % ${CHAPTERS} end,
         case when f % 2 = 0 then null else ${CHAPTERS} - (f * 11) % 500 end
  from (select id, row_number() over (order by id) - 1 as i from story_entities where work_id = ${work.id}) e
  cross join generate_series(1, ${FACTS / ENTITIES}) f`);
await db.execute(sql`update story_facts set until_chapter = null where until_chapter < from_chapter`);
await db.execute(sql`
  insert into plot_threads (work_id, title, note, planted_chapter, due_chapter, status)
  select ${work.id}, '伏笔' || g, repeat('说明', 20), 1 + (g * 13) % 2900, case when g % 4 = 0 then null else 2900 + g end,
         case when g % 2 = 0 then 'open' else 'resolved' end
  from generate_series(1, ${THREADS}) g`);
await db.execute(sql.raw("vacuum analyze"));
const [counts] = rowsOf<{ chapters: number; facts: number; threads: number }>(
  await db.execute(sql`select (select count(*)::int from chapters where work_id = ${work.id}) as chapters, (select count(*)::int from story_facts) as facts, (select count(*)::int from plot_threads) as threads`),
);
console.log(`seeded ${counts.chapters} chapters, ${counts.facts} facts, ${counts.threads} threads in ${fmt((performance.now() - t0) / 1000)} s`);

const before = busy();
console.log(`machine: ${describeMachine()}`);
const plan = (i: number) => `人物${(i * 17) % ENTITIES}和阿${(i * 29) % ENTITIES}在渡口重逢，小${(i * 31) % ENTITIES}带来了消息。`;
// Warm up (prepared statements, caches), then measure.
for (let i = 0; i < 20; i++) await assembleContinuationContext(work.id, CHAPTERS + 1, plan(i));
const samples: number[] = [];
let last = await assembleContinuationContext(work.id, CHAPTERS + 1, plan(0));
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  last = await assembleContinuationContext(work.id, CHAPTERS + 1, plan(i));
  samples.push(performance.now() - t);
}
samples.sort((a, b) => a - b);
const p95 = percentile(samples, 95);
// A floor for comparison: one trivial round trip on the same pool.
const floor: number[] = [];
for (let i = 0; i < 100; i++) {
  const t = performance.now();
  await db.execute(sql`select 1`);
  floor.push(performance.now() - t);
}
floor.sort((a, b) => a - b);
console.log(
  `assembleContinuationContext, chapter ${CHAPTERS + 1} (${runs} runs; prompt ${last.chars} characters, ~${last.estimatedTokens} tokens of ${last.budgetTokens}; ${last.namedEntities.length} entities named)  p50 ${fmt(percentile(samples, 50))} ms  p95 ${fmt(p95)} ms  max ${fmt(samples.at(-1)!)} ms  ${p95 < 100 ? "ok" : "MISSED (< 100 ms)"}`,
);
console.log(`sections: ${last.sections.map((s) => `${s.title} ${s.included}/${s.available}`).join("; ")}`);
console.log(`one trivial query on the same pool: p50 ${fmt(percentile(floor, 50))} ms (p50 ratio ${fmt(percentile(samples, 50) / percentile(floor, 50))}×)`);
console.log(describeBusy(before, busy()));

await closeDatabase();
if (!flags.has("keep")) await dropPgDatabase(dbName);
