// npm run bench:feed: the 书架 and new-chapter notifications at scale on PostgreSQL
// (docs/benchmarks.md#bookshelf-and-notifications). Measures, through the same domain
// functions the pages call:
//   1. the shelf of a reader following 500 works (20-400 published chapters each, the reader
//      somewhere in 400 of them), with unread counts: listShelf, one query, both sorts:
//      p95 < 30 ms;
//   2. publishing a chapter of a work with 100,000 followers (insertChapter, what the
//      studio's 立即发布 calls): p95 < 50 ms, while two deliverers (separate pool
//      connections, as two processes would) work through the jobs;
//   3. the time from the first publish's commit until all 100,000 followers have its line:
//      < 60 s.
// Flags: --runs=N (shelf samples per sort, default 200), --publishes=N (default 10),
// --followers=N (default 100000), --keep (leave the database inkstone_bench_feed).
import { releaseAtOnce } from "../tests/fixtures/release-at-once";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor, rowsOf } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const runs = Number(flags.get("runs") ?? 200);
const publishes = Number(flags.get("publishes") ?? 10);
const FOLLOWERS = Number(flags.get("followers") ?? 100_000);
const SHELF = 500;
const dbName = "inkstone_bench_feed";

await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
process.env.DATABASE_POOL_SIZE ??= "6";
const { closeDatabase, db } = await import("~/db/client.server");
const { register } = await import("~/server/identity/auth.server");
const { createWork } = await import("~/server/catalog/works.server");
const { sql } = await import("drizzle-orm");
const { listShelf } = await import("~/server/reading/library.server");
const { insertChapter } = await import("~/server/studio/chapters.server");
const { deliverNotifications, pendingNotificationJobs } = await import("~/server/community/notifications.server");

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};
// Chapters go out at once, as in the tests' databases (tests/fixtures/release-at-once.ts):
// under the default policy this new, unsigned author's chapters would wait for a reviewer
// (decisions 196, 236), nobody would be told, and the wait for the last follower's line
// below would never end.
await releaseAtOnce(db);
const reader = await register(form({ email: "reader@example.com", password: "correct-horse-battery" }), "127.0.0.1");
const author = await register(form({ email: "author@example.com", password: "correct-horse-battery" }), "127.0.0.1");

// --- The shelf's data ---------------------------------------------------------------------
let t0 = performance.now();
await db.execute(sql`
  insert into works (user_id, title, description, type, status, visibility, price, chapter_count, word_count, updated_at)
  select ${author.id}, '书架作品' || g, '简介', 'series', 'ongoing', case when g % 10 = 0 then 'public-vip' else 'public' end::work_visibility,
         case when g % 10 = 0 then 5 else 0 end, 20 + (g * 37) % 381, 1000, now()
  from generate_series(1, ${SHELF}) g`);
await db.execute(sql`
  insert into chapters (work_id, title, content, position, word_count, state, publish_at)
  select w.id, '第' || n || '章', '正文', n * 65536, 2, 'published', now() - ((w.chapter_count - n) || ' hours')::interval - (w.id % 97 || ' days')::interval
  from works w cross join lateral generate_series(1, w.chapter_count) n
  where w.user_id = ${author.id}`);
await db.execute(sql`insert into favorites (user_id, work_id, created_at) select ${reader.id}, id, now() - interval '200 days' from works where user_id = ${author.id}`);
// The reader has opened 400 of the 500 works: in 250 of them within the last 10 chapters
// (keeping up, as most shelf works are), in 150 anywhere; bought 20.
await db.execute(sql`
  insert into reading_progress (user_id, work_id, chapter_id, paragraph, updated_at)
  select ${reader.id}, w.id, c.id, 3, now() - (w.id % 50 || ' hours')::interval
  from works w join lateral (
    select id from chapters c where c.work_id = w.id order by position
    offset case when w.id % 10 < 7 then w.chapter_count - 1 - (w.id % 10) else (w.id * 7919) % w.chapter_count end limit 1
  ) c on true
  where w.user_id = ${author.id} and w.id % 5 <> 0`);
await db.execute(sql`insert into work_purchases (user_id, work_id, price) select ${reader.id}, id, 5 from works where visibility = 'public-vip' and user_id = ${author.id} limit 20`);
const [{ n: chapterTotal }] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from chapters`));
console.log(`seeded the shelf: ${SHELF} works, ${chapterTotal} chapters in ${fmt((performance.now() - t0) / 1000)} s`);

// --- 100,000 followers of one work ----------------------------------------------------------
t0 = performance.now();
const popular = await createWork(author.id, { title: "热门连载", description: "简介", rating: "all_ages", isAiGenerated: false, visibility: "public", type: "series", status: "ongoing" }, [{ title: "第一章", content: "正文" }], null);
await db.execute(sql`
  with u as (
    insert into users (email, password_hash)
    select 'f' || g || '@example.com', 'not-a-login' from generate_series(1, ${FOLLOWERS}) g returning id, email
  ), p as (insert into profiles (id, email, nickname) select id, email, '读者' from u returning id)
  insert into favorites (user_id, work_id) select id, ${popular.id} from p`);
// As autovacuum would have: the visibility map lets the counts read the index alone.
await db.execute(sql.raw("vacuum analyze"));
console.log(`seeded ${FOLLOWERS} followers in ${fmt((performance.now() - t0) / 1000)} s`);

const before = busy();
console.log(`machine: ${describeMachine()}`);

// --- 1. The shelf -------------------------------------------------------------------------
for (const sort of ["updated", "read"] as const) {
  const viewer = { id: reader.id, showR18: false, showAi: true };
  const first = await listShelf(viewer, sort, 1, SHELF);
  if (first.items.length !== SHELF) throw new Error(`shelf has ${first.items.length} works`);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await listShelf(viewer, sort, 1, SHELF);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const p95 = percentile(samples, 95);
  const unread = first.items.reduce((a, i) => a + i.unread, 0);
  console.log(
    `shelf of ${SHELF} (sort ${sort}, ${unread} unread chapters in all; listShelf: a count and the page query)  p50 ${fmt(percentile(samples, 50))} ms  p95 ${fmt(p95)} ms  max ${fmt(samples.at(-1)!)} ms  ${p95 < 30 ? "ok" : "MISSED (< 30 ms)"}`,
  );
}

// --- 2 and 3. Publishing with 100,000 followers ---------------------------------------------
// First the same publish with no delivery running (its jobs are then discarded): what the
// request costs by itself, to tell it from the share of a machine the delivery takes.
const baselineMs: number[] = [];
for (let i = 0; i < publishes; i++) {
  const t = performance.now();
  await insertChapter(author.id, popular.id, { title: `预备第${i + 1}章`, content: "正文", release: { mode: "now" } }, "end");
  baselineMs.push(performance.now() - t);
}
// Each publication must have reached readers (not a reviewer's queue): else there is nothing to time.
const [released] = rowsOf<{ n: number }>(
  await db.execute(sql`select count(*)::int as n from chapters where work_id = ${popular.id} and title like '预备第%' and state = 'published'`),
);
if (released?.n !== publishes) throw new Error(`${publishes - (released?.n ?? 0)} of the ${publishes} chapters were not published (review before publishing?)`);
await db.execute(sql.raw("delete from notification_jobs"));
baselineMs.sort((a, b) => a - b);
console.log(
  `publishing a chapter with ${FOLLOWERS} followers, no delivery running  p50 ${fmt(percentile(baselineMs, 50))} ms  p95 ${fmt(percentile(baselineMs, 95))} ms`,
);

let stop = false;
const delivering = [1, 2].map(async () => {
  let batches = 0;
  while (!stop) {
    const n = await deliverNotifications();
    batches += n;
    if (n === 0) await new Promise((r) => setTimeout(r, 20));
  }
  return batches;
});
const requestMs: number[] = [];
let firstPublishedAt = 0;
let firstDoneMs = 0;
const watchFirst = (async () => {
  // The first publication's job is the oldest: it is done when only the later ones remain.
  while (firstPublishedAt === 0) await new Promise((r) => setTimeout(r, 10));
  for (;;) {
    const [row] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from notifications where work_id = ${popular.id}`));
    if (row.n >= FOLLOWERS) return (firstDoneMs = performance.now() - firstPublishedAt);
    // Ten times the target: a delivery that stopped fails the run instead of holding it.
    if (performance.now() - firstPublishedAt > 600_000) throw new Error(`after 10 minutes ${row.n} of ${FOLLOWERS} followers were told`);
    await new Promise((r) => setTimeout(r, 100));
  }
})();
for (let i = 0; i < publishes; i++) {
  const t = performance.now();
  await insertChapter(author.id, popular.id, { title: `第${i + 2}章`, content: "新的一章的正文", release: { mode: "now" } }, "end");
  const ms = performance.now() - t;
  if (i === 0) firstPublishedAt = performance.now();
  requestMs.push(ms);
  await new Promise((r) => setTimeout(r, 300));
}
await watchFirst;
const allStart = performance.now();
while ((await pendingNotificationJobs()) > 0) await new Promise((r) => setTimeout(r, 100));
const restMs = performance.now() - allStart;
stop = true;
const batches = await Promise.all(delivering);
requestMs.sort((a, b) => a - b);
const [check] = rowsOf<{ lines: number; min: number; max: number }>(
  await db.execute(sql`select count(*)::int as lines, min(count)::int as min, max(count)::int as max from notifications where work_id = ${popular.id}`),
);
const p95 = percentile(requestMs, 95);
console.log(
  `publishing a chapter with ${FOLLOWERS} followers (${publishes} publications, delivery running)  p50 ${fmt(percentile(requestMs, 50))} ms  p95 ${fmt(p95)} ms  max ${fmt(requestMs.at(-1)!)} ms  ${p95 < 50 ? "ok" : "MISSED (< 50 ms)"}`,
);
console.log(
  `every follower told of the first chapter ${fmt(firstDoneMs / 1000)} s after its publication  ${firstDoneMs < 60_000 ? "ok" : "MISSED (< 60 s)"}; the other ${publishes - 1} done ${fmt(restMs / 1000)} s later; batches per deliverer ${batches.join(", ")}`,
);
console.log(`lines: ${check.lines} (one per follower), chapters per line ${check.min}-${check.max}`);
console.log(describeBusy(before, busy()));

await closeDatabase();
if (!flags.has("keep")) await dropPgDatabase(dbName);
