// npm run bench:scale: ten times the data (issue 35 part 3, docs/benchmarks.md#ten-times-the-data-npm-run-benchscale)
// on PostgreSQL. At --scale=1: 1,000,000 works, 10,000,000 chapters, 1,000,000 readers following
// 48 works each and buying a quarter of the paid ones they follow (48M favourites + 2M purchases),
// 20,000 authors, titles, descriptions and chapter text (about 300 characters) cut from the
// 西游记 corpus; one ongoing work followed by 100,000 readers. Seeded set-based
// (bench/lib-seed-site.ts, as bench:home), then measured through the domain functions the routes
// call:
//   1. search (searchWorks, as /works?q=): p95 < 20 ms for queries matching ≤ 1% of the works,
//      < 100 ms for any; and the plain listing (/works without a query: its count and an
//      OFFSET page), page 1, the middle and the last, with no target (docs/scale.md);
//   2. the signed-in home's loader (sharedHomeRows, then continueReading and shelfUpdates at
//      once), random readers: p95 < 50 ms;
//   3. a chapter page's loader (readChapter) for random published chapters: p95 < 30 ms;
//   4. rankings: a follow, a purchase and a 月票 each until the work's new count is on the
//      rankings' boards as a reader sees them (the stats poller's incremental refresh,
//      decision 267): < 5 s; and the full recount (the repair path) timed;
//   5. notifications: a chapter of the work with 100,000 followers published, until the last
//      follower's line exists: < 60 s.
// Flags: --scale=F (0.01 for a smoke run), --keep (leave the database inkstone_bench_scale[_F]),
// --reuse (skip the seed when that database holds this scale's data), --resume (seed what an
// interrupted seed left out: its accounts and works are kept), --as-is (measure the database as
// it stands, a seed still running elsewhere), --seed-only, --runs=N
// (samples per measure, default 300), --only=search,listing,home,chapter,rankings,fanout,
// --queries=漱,理 (search these instead of the picked ones).
import os from "node:os";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { databaseMark, markSeeded, seedSecondsOf, dropPgDatabase, ensurePgDatabase, fmt, parseFlags, scaleFlag, percentile, pgUrlFor, rowsOf } from "./lib-db";
import { describeSeededSite, HOT_WORK, seedSite, seedText } from "./lib-seed-site";

const flags = parseFlags(process.argv.slice(2));
const scale = scaleFlag(flags);
const WORKS = Math.round(1_000_000 * scale);
const CHAPTERS = Math.round(10_000_000 * scale);
const READERS = Math.round(1_000_000 * scale);
const FOLLOWS = Math.min(48, Math.floor(WORKS / 2));
const AUTHORS = Math.max(10, Math.round(WORKS / 50));
const HOT_FOLLOWERS = Math.min(100_000, READERS);
const runs = Number(flags.get("runs") ?? 300);
const only = new Set((flags.get("only") ?? "search,listing,home,chapter,rankings,fanout").split(","));
const dbName = scale === 1 ? "inkstone_bench_scale" : `inkstone_bench_scale_${String(scale).replace(/\D/g, "")}`;
const SEED_MARK = `bench:scale works=${WORKS} chapters=${CHAPTERS} readers=${READERS} follows=${FOLLOWS} hot=${HOT_FOLLOWERS}`;
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

// --- The database -------------------------------------------------------------------------
const url = pgUrlFor(dbName);
const mark = await databaseMark(dbName);
// --as-is: measure the database as it stands (a seed still running in another process: the
// search needs only the works), never seeding or dropping it.
const asIs = flags.has("as-is") && mark !== undefined;
const reuse = asIs || (flags.has("reuse") && mark?.startsWith(SEED_MARK) === true);
// --resume: an interrupted seed of this size keeps its accounts and works; the rest is seeded.
const resume = flags.has("resume") && mark !== undefined && !reuse;
await ensurePgDatabase(dbName, !reuse && !resume);
process.env.DATABASE_URL = url;
process.env.DATABASE_POOL_SIZE ??= "4";
// The seed's full recount runs for minutes at this size (the app's statement timeout is 30 s).
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "3600000";
// The queries are measured, not the few-second shared copy of their answers (except where said).
process.env.PAGE_CACHE = "0";
const { closeDatabase, db } = await import("~/db/client.server");
const { sql } = await import("drizzle-orm");
const { refreshWorkStats } = await import("~/server/catalog/work-stats.server");

log(`machine: ${describeMachine()}`);
let seedSeconds: number;
if (reuse) {
  seedSeconds = seedSecondsOf(mark);
  log(`reusing ${dbName} (${mark})`);
} else {
  const started = performance.now();
  log(`seeding ${dbName}: ${SEED_MARK}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  const corpus = seedText(Math.min(100_000, WORKS), 300);
  await seedSite(url, {
    works: WORKS,
    chapters: CHAPTERS,
    readers: READERS,
    follows: FOLLOWS,
    authors: AUTHORS,
    corpus,
    hotFollowers: HOT_FOLLOWERS,
    unfollowedReads: 3,
    resume,
    log,
  });
  const t = performance.now();
  await refreshWorkStats(0);
  await db.execute(sql`vacuum analyze work_stats`);
  log(`  refreshWorkStats (full recount): ${fmt((performance.now() - t) / 1000)} s`);
  seedSeconds = (performance.now() - started) / 1000;
  log(`seeded in ${fmt(seedSeconds, 0)} s; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  await markSeeded(dbName, SEED_MARK, seedSeconds);
}
log(await describeSeededSite(url, { seedSeconds, estimateChapters: true }));

if (!flags.has("seed-only")) {
  const before = busy();
  log(`before: 1-minute load average ${before.load1.toFixed(1)}, CPU calibration loop ${before.calibrationMs.toFixed(0)} ms`);
  if (only.has("search")) await measureSearch();
  if (only.has("listing")) await measureListing();
  if (only.has("home")) await measureHome();
  if (only.has("chapter")) await measureChapter();
  if (only.has("rankings")) await measureRankings();
  if (only.has("fanout")) await measureFanOut();
  log(describeBusy(before, busy()));
}

await closeDatabase();
if (!flags.has("keep") && !asIs) {
  await dropPgDatabase(dbName);
  log(`dropped ${dbName}`);
} else {
  log(`kept ${dbName}; rerun with --reuse --keep, drop with: dropdb -h 127.0.0.1 -U postgres ${dbName}`);
}

// --- Measures -------------------------------------------------------------------------------
function report(label: string, samples: number[], target?: number): void {
  samples.sort((a, b) => a - b);
  const p95 = percentile(samples, 95);
  log(
    `  ${label.padEnd(48)} n ${String(samples.length).padStart(4)}  p50 ${fmt(percentile(samples, 50)).padStart(6)} ms  p95 ${fmt(p95).padStart(6)} ms  max ${fmt(samples.at(-1)!).padStart(7)} ms` +
      (target === undefined ? "" : `  ${p95 < target ? "ok" : "MISSED"} (< ${target} ms)  load ${os.loadavg()[0].toFixed(1)}`),
  );
}

async function timed(n: number, fn: (i: number) => Promise<unknown>, warm = 10): Promise<number[]> {
  for (let i = 0; i < warm; i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i + warm);
    samples.push(performance.now() - t);
  }
  return samples;
}

type Viewer = { id: string; showR18: boolean; showAi: boolean };
async function randomReaders(n: number): Promise<Viewer[]> {
  // A random sample without sorting a million rows: readers' ids are random uuids.
  return rowsOf<{ id: string; show_r18: boolean; show_ai: boolean }>(
    await db.execute(sql`select id, show_r18, show_ai from profiles tablesample system (${Math.min(100, (100 * n * 20) / READERS)}) where email like 'reader%' limit ${n}`),
  ).map((r) => ({ id: r.id, showR18: r.show_r18, showAi: r.show_ai }));
}

async function measureSearch() {
  const { pickQueries, measure } = await import("./lib-search");
  const { searchWorks } = await import("~/server/catalog/search.server");
  log(`search (searchWorks as /works?q= runs it, a visitor; page 1 and the last page):`);
  const t = performance.now();
  const picked = await pickQueries(db, WORKS, WORKS > 100_000 ? 5 : undefined, flags.get("queries")?.split(","));
  log(`  queries picked in ${fmt((performance.now() - t) / 1000)} s (${WORKS > 100_000 ? "matches estimated from a 5% sample of the works' pages" : "each candidate's matches counted"})`);
  for (const q of picked) {
    const fraction = q.matches / WORKS;
    const target = fraction <= 0.01 ? 20 : 100;
    const first = await measure(db, () => searchWorks({ query: q.query, page: 1, viewer: null }), 3000);
    const last = await measure(db, () => searchWorks({ query: q.query, page: 1_000_000_000, viewer: null }), 3000);
    const worst = Math.max(first.p95, last.p95);
    log(
      `  ${q.query.padEnd(6, "　")} ${q.length} chars, ${String(q.matches).padStart(7)} works (${(fraction * 100).toFixed(2)}%)${q.label ? ` [${q.label}]` : ""}: ` +
        `page 1 p50 ${fmt(first.p50)} p95 ${fmt(first.p95)} ms; last page p50 ${fmt(last.p50)} p95 ${fmt(last.p95)} ms  ` +
        `${worst < target ? "ok" : "MISSED"} (< ${target} ms)  load ${os.loadavg()[0].toFixed(1)}  plans: ${first.plans.join(" / ")} | ${last.plans.join(" / ")}`,
    );
  }
}

/**
 * /works without a query (searchWorks → its exact count and an OFFSET page), a visitor: no
 * target in issue 35; docs/scale.md ("The plain listing") says why it is measured.
 */
async function measureListing() {
  const { searchWorks } = await import("~/server/catalog/search.server");
  const list = (page: number) => searchWorks({ query: "", page, viewer: null });
  const { total, pageCount } = await list(1);
  log(`the plain listing (/works without a query, a visitor): ${total} works, ${pageCount} pages:`);
  const n = Math.min(runs, 20);
  for (const [label, page] of [["page 1", 1], ["the middle page", Math.ceil(pageCount / 2)], ["the last page", pageCount]] as const) {
    report(`${label} (${page})`, await timed(n, () => list(page), 2));
  }
}

async function measureHome() {
  const { continueReading, shelfUpdates } = await import("~/server/catalog/home.server");
  const { sharedHomeRows } = await import("~/server/catalog/rankings.server");
  const readers = await randomReaders(runs + 10);
  log(`signed-in home: the loader's rows for ${readers.length} random readers (${FOLLOWS} follows each):`);
  report("continueReading", await timed(runs, (i) => continueReading(readers[i % readers.length])));
  report("shelfUpdates", await timed(runs, (i) => shelfUpdates(readers[i % readers.length])));
  report("sharedHomeRows, not from the shared copy", await timed(Math.min(runs, 50), (i) => sharedHomeRows(readers[i % readers.length]), 3));
  // As the loader runs them: the shared rows (from the few-second shared copy), then both personal rows at once.
  process.env.PAGE_CACHE = "1";
  try {
    report(
      "the loader's three (shared copy on)",
      await timed(runs, async (i) => {
        const viewer = readers[(i + 3) % readers.length];
        await sharedHomeRows(viewer);
        await Promise.all([continueReading(viewer), shelfUpdates(viewer)]);
      }),
      50,
    );
  } finally {
    process.env.PAGE_CACHE = "0";
  }
}

async function measureChapter() {
  const { loadReaderPage } = await import("~/routes/shell/reader/reader-page.server");
  const { createUserSession } = await import("~/server/identity/session.server");
  // Random public works' random chapters (ids are contiguous: a random id, then its work).
  const picks = rowsOf<{ work_id: number; n: number }>(
    await db.execute(sql`
      select c.work_id, (select count(*) from chapters c2 where c2.work_id = c.work_id and c2.state = 'published' and c2.kind = 'chapter'
                         and (c2.position, c2.id) <= (c.position, c.id))::int as n
      from (select 1 + floor(random() * (select max(id) from chapters))::bigint as id from generate_series(1, ${runs * 3}) offset 0) r
      join chapters c on c.id = r.id join works w on w.id = c.work_id
      where w.visibility = 'public' and w.rating = 'all_ages' and not w.is_ai_generated and c.state = 'published'
      limit ${runs + 10}`),
  );
  const readers = await randomReaders(20);
  const cookies: string[] = [];
  for (const r of readers) cookies.push((await createUserSession(new Request("http://127.0.0.1/"), r.id)).split(";")[0]);
  log(`chapter page: the reader page's loader (loadReaderPage, /works/:id?chapter=N) for ${picks.length} random chapters of public works:`);
  const open = async (i: number, cookie: string | null) => {
    const { work_id, n } = picks[i % picks.length];
    const url = new URL(`http://127.0.0.1/works/${work_id}?chapter=${n}`);
    const page = (await loadReaderPage(new Request(url, cookie ? { headers: { Cookie: cookie } } : {}), url, String(work_id))) as unknown;
    const data = (page as { data?: { mode?: string } }).data ?? (page as { mode?: string });
    if (i === 0 && data.mode !== "chapter") throw new Error(`unexpected reader page mode ${String(data.mode)}`);
  };
  report("a visitor", await timed(runs, (i) => open(i, null)), 30);
  report("a signed-in reader (saves the reading place)", await timed(runs, (i) => open(i, cookies[i % cookies.length])), 30);
}

async function measureRankings() {
  const { rankingBoard } = await import("~/server/catalog/rankings.server");
  const { setFavorite } = await import("~/server/reading/favorites.server");
  const { purchaseWork } = await import("~/server/economy/ledger.server");
  const { statsJob } = await import("~/server/jobs/stats-poller.server");
  log(`rankings: a change until the board shows it (the stats job as server.js runs it: every ${process.env.STATS_POLL_INTERVAL_MS ?? 1000} ms):`);
  let t = performance.now();
  await refreshWorkStats(0);
  log(`  full recount (refreshWorkStats, the repair path, hourly): ${fmt((performance.now() - t) / 1000)} s  load ${os.loadavg()[0].toFixed(1)}`);
  const queued = async () => rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from work_stats_queue`))[0].n;
  statsJob.start();
  try {
    const readers = await randomReaders(40);
    // Buyers: credits for the purchases.
    await db.execute(sql`insert into credits (user_id, balance) select id, 1000000 from unnest(${`{${readers.map((r) => r.id).join(",")}}`}::uuid[]) id
                         on conflict (user_id) do update set balance = 1000000`);
    const seen = async (board: "favorites" | "bestselling-7d", workId: number, score: number, since: number) => {
      for (;;) {
        const row = (await rankingBoard(board, null)).find((w) => w.id === workId);
        if (row && row.score >= score) return performance.now() - since;
        if (performance.now() - since > 60_000) throw new Error(`${board}: work ${workId} never reached ${score}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const follow: number[] = [];
    const buy: number[] = [];
    for (const reader of readers.slice(0, 20)) {
      // The 收藏榜's leader, followed by a reader who does not follow it yet.
      const top = (await rankingBoard("favorites", null))[0];
      const follows = rowsOf(await db.execute(sql`select 1 from favorites where user_id = ${reader.id} and work_id = ${top.id}`)).length > 0;
      if (follows) await setFavorite(reader, top.id, false);
      // A random moment against the job's ticks.
      await new Promise((r) => setTimeout(r, 1100 + Math.random() * 1000));
      const before = (await rankingBoard("favorites", null))[0].score;
      t = performance.now();
      await setFavorite(reader, top.id, true);
      follow.push(await seen("favorites", top.id, before + 1, t));
    }
    report("follow the 收藏榜's first → its count on the board", follow, 5000);
    const paid = rowsOf<{ id: number; price: number }>(
      await db.execute(sql`select w.id, w.price from work_stats s join works w on w.id = s.work_id
                           where w.visibility = 'public-vip' and w.sale_mode = 'whole' and w.rating = 'all_ages' and not w.is_ai_generated
                           order by s.credits_7d desc limit 1`),
    ).map((r) => ({ id: Number(r.id), price: Number(r.price) }))[0];
    for (const reader of readers.slice(20)) {
      if (rowsOf(await db.execute(sql`select 1 from work_purchases where user_id = ${reader.id} and work_id = ${paid.id}`)).length > 0) continue;
      await new Promise((r) => setTimeout(r, 1100 + Math.random() * 1000));
      const before = (await rankingBoard("bestselling-7d", null)).find((w) => w.id === paid.id)?.score ?? 0;
      t = performance.now();
      await purchaseWork(reader.id, paid.id);
      buy.push(await seen("bestselling-7d", paid.id, before + paid.price, t));
    }
    report(`buy the 畅销榜's first (${paid.price} credits) → on the board`, buy, 5000);
    log(`  queue rows left: ${await queued()}`);
  } finally {
    await statsJob.stop();
  }
}

async function measureFanOut() {
  const { insertChapter } = await import("~/server/studio/chapters.server");
  const { deliverNotifications, pendingNotificationJobs } = await import("~/server/community/notifications.server");
  const [hot] = rowsOf<{ id: number; user_id: string; followers: number }>(
    await db.execute(sql.raw(`select w.id::int, w.user_id, (select count(*) from favorites f where f.work_id = w.id)::int as followers from works w where w.id = (${HOT_WORK})`)),
  );
  log(`notifications: a new chapter of work ${hot.id} with ${hot.followers} followers, until the last follower's line exists:`);
  await db.execute(sql`delete from notifications where work_id = ${hot.id}`);
  // A signed author (签约, decision 236): their chapters go out at once under the default review policy.
  await db.execute(sql`update users set contract = 'signed' where id = ${hot.user_id}`);
  const t = performance.now();
  await insertChapter(hot.user_id, hot.id, { title: "第新章 百万之后", content: "却说那猴王得了金箍棒，回到花果山。" }, "end");
  const published = performance.now() - t;
  // What every process's notification job does on the chapter-published event.
  const batches = await deliverNotifications();
  const total = performance.now() - t;
  const [told] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from notifications where work_id = ${hot.id} and kind = 'chapters'`));
  log(
    `  publish ${fmt(published)} ms; ${told.n} followers told in ${batches} batches; publish → last line ${fmt(total / 1000, 2)} s  ` +
      `${total < 60_000 ? "ok" : "MISSED"} (< 60 s)  pending jobs ${await pendingNotificationJobs()}  load ${os.loadavg()[0].toFixed(1)}`,
  );
}
