// npm run bench:home: the signed-in home page (`/`) at the readers' issue's scale on
// PostgreSQL (docs/benchmarks.md#signed-in-home-at-scale-npm-run-benchhome). Target:
// p95 < 50 ms with 100,000 works, 1,000,000 chapters and 100,000 readers following 300
// works each (30,000,000 favourites). Measures:
//   1. the seed itself, set-based SQL as a restore would load it (tables first, then their
//      indexes and constraints), then `vacuum analyze` and one run of the app's own
//      refreshWorkStats (the background counts the shared rows read);
//   2. the domain functions the page's loader calls, one random reader after another:
//      continueReading, shelfUpdates, sharedHomeRows (from its few-second shared copy, and
//      apart its cold load, which one request in every few seconds pays);
//   3. GET / through the production server (node server.js, built first if build/ is
//      missing), sequential requests, each by a different random reader signed in by a
//      session the app's own createUserSession made: p50 / p95, in several rounds, with the
//      CPU time a request took in the server and in its PostgreSQL backends (from /proc).
// Flags: --scale=F (1: the scale; 0.01 for a smoke run: 1,000 works, 10,000
// chapters, 1,000 readers still following 300 works each), --keep (leave the database
// inkstone_homebench, or inkstone_homebench_<scale>, in place), --reuse (skip the seed
// when that database already holds this scale's data; it says so), --requests=N (per
// round, default 1000), --rounds=N (default 3), --runs=N (domain samples, default 500),
// --build (rebuild first), --explain (EXPLAIN ANALYZE the personal queries for one reader
// following 300 works).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { databaseMark, markSeeded, seedSecondsOf, captureQueries, dropPgDatabase, ensurePgDatabase, explainAnalyze, fmt, parseFlags, scaleFlag, percentile, pgUrlFor, rowsOf } from "./lib-db";
import { cpuMsOf, ensureBuild, freePort, startServer, stopServer } from "./lib-server";
import { describeSeededSite, seedSite } from "./lib-seed-site";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const flags = parseFlags(process.argv.slice(2));
const scale = scaleFlag(flags);
const WORKS = Math.round(100_000 * scale);
const CHAPTERS = Math.round(1_000_000 * scale);
const READERS = Math.round(100_000 * scale);
const FOLLOWS = Math.min(300, Math.floor(WORKS / 2));
const AUTHORS = Math.max(10, Math.round(WORKS / 50));
const requests = Number(flags.get("requests") ?? 1000);
const rounds = Number(flags.get("rounds") ?? 3);
const runs = Number(flags.get("runs") ?? 500);
const dbName = scale === 1 ? "inkstone_homebench" : `inkstone_homebench_${String(scale).replace(/\D/g, "")}`;
const SEED_MARK = `bench:home works=${WORKS} chapters=${CHAPTERS} readers=${READERS} follows=${FOLLOWS}`;
const log = (line: string) => console.log(line);

// --- The database -------------------------------------------------------------------------
const url = pgUrlFor(dbName);
const mark = await databaseMark(dbName);
const reuse = flags.has("reuse") && mark?.startsWith(SEED_MARK) === true;
await ensurePgDatabase(dbName, !reuse);
process.env.DATABASE_URL = url;
process.env.DATABASE_POOL_SIZE ??= "4";
// The bench signs the session cookies the server reads: the same secret in both.
process.env.SESSION_SECRET ??= "bench-home-session-secret-0123456789abcdef";
// The seed's and the bench's own refreshWorkStats may take longer than the app's 30 s
// statement timeout on a busy machine (the server keeps the app's default).
const serverEnv = { ...process.env };
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "600000";
const { closeDatabase, db } = await import("~/db/client.server");
const { sql } = await import("drizzle-orm");
const { refreshWorkStats } = await import("~/server/catalog/work-stats.server");
const { continueReading, shelfUpdates } = await import("~/server/catalog/home.server");
const { sharedHomeRows } = await import("~/server/catalog/rankings.server");
const { clearPublicCache } = await import("~/server/platform/public-cache.server");
const { createUserSession } = await import("~/server/identity/session.server");

const machine = describeMachine();
log(`machine: ${machine}`);
let seedSeconds: number;
if (reuse) {
  seedSeconds = seedSecondsOf(mark);
  log(`reusing ${dbName} (${mark})`);
} else {
  seedSeconds = await seed();
  await markSeeded(dbName, SEED_MARK, seedSeconds);
}
log(await describeSeededSite(url, { seedSeconds, estimateChapters: false }));

// --- Readers to sign in: random ones, each once per round -----------------------------------
type Viewer = { id: string; showR18: boolean; showAi: boolean };
const readerCount = Math.min(READERS, Math.max(requests, runs));
const readers = rowsOf<{ id: string; show_r18: boolean; show_ai: boolean }>(
  await db.execute(sql`select id, show_r18, show_ai from profiles where email like 'reader%' order by random() limit ${readerCount}`),
).map((r): Viewer => ({ id: r.id, showR18: r.show_r18, showAi: r.show_ai }));

const before = busy();
log(`before: 1-minute load average ${before.load1.toFixed(1)}, CPU calibration loop ${before.calibrationMs.toFixed(0)} ms`);

// --- EXPLAIN of the personal queries ---------------------------------------------------------
if (flags.has("explain")) {
  const viewer = readers[0];
  for (const [name, fn] of [
    ["continueReading", () => continueReading(viewer)],
    ["shelfUpdates", () => shelfUpdates(viewer)],
  ] as const) {
    await fn();
    for (const statement of await captureQueries(db, fn)) {
      log(`\n--- ${name}: ${statement.text.slice(0, 120).replace(/\s+/g, " ")}...`);
      log(await explainAnalyze(db, statement));
    }
  }
}

// --- 2. The domain functions ----------------------------------------------------------------
const summary = (samples: number[]) => {
  samples.sort((a, b) => a - b);
  return `p50 ${fmt(percentile(samples, 50))} ms  p95 ${fmt(percentile(samples, 95))} ms  max ${fmt(samples.at(-1)!)} ms`;
};
{
  const reading: number[] = [];
  const shelf: number[] = [];
  const shared: number[] = [];
  const loader: number[] = [];
  let items = 0;
  let updates = 0;
  for (const v of readers.slice(0, 20)) await Promise.all([continueReading(v), shelfUpdates(v), sharedHomeRows(v)]); // warm-up
  for (let i = 0; i < runs; i++) {
    const viewer = readers[i % readers.length];
    let t = performance.now();
    items += (await continueReading(viewer)).length;
    reading.push(performance.now() - t);
    t = performance.now();
    updates += (await shelfUpdates(viewer)).length;
    shelf.push(performance.now() - t);
    t = performance.now();
    await sharedHomeRows(viewer);
    shared.push(performance.now() - t);
    // As the loader runs them: the shared rows, then both personal rows at once.
    const other = readers[(i + runs) % readers.length];
    t = performance.now();
    await sharedHomeRows(other);
    await Promise.all([continueReading(other), shelfUpdates(other)]);
    loader.push(performance.now() - t);
  }
  const cold: number[] = [];
  for (let i = 0; i < 20; i++) {
    clearPublicCache();
    const t = performance.now();
    await sharedHomeRows(readers[i]);
    cold.push(performance.now() - t);
  }
  log(`\ndomain functions, ${runs} random readers (${fmt(items / runs)} 继续阅读 and ${fmt(updates / runs)} 书架更新 items on average):`);
  log(`  continueReading                          ${summary(reading)}`);
  log(`  shelfUpdates                             ${summary(shelf)}`);
  log(`  sharedHomeRows (shared copy)             ${summary(shared)}`);
  log(`  sharedHomeRows cold (20 loads)           ${summary(cold)}`);
  log(`  the loader's three (personal in parallel) ${summary(loader)}`);
}

// --- 3. GET / through the production server ---------------------------------------------------
const p95s: number[] = [];
if (!flags.has("domain-only")) await measureServer();
log(describeBusy(before, busy()));
if (p95s.length > 0) {
  const met = p95s.filter((p) => p < 50).length;
  log(`GET / p95 over the rounds: ${p95s.map((p) => fmt(p)).join(", ")} ms; target p95 < 50 ms met in ${met} of ${p95s.length} rounds`);
}

await closeDatabase();
if (!flags.has("keep")) {
  await dropPgDatabase(dbName);
  log(`dropped ${dbName}`);
} else {
  log(`kept ${dbName} (its size is on the data line above); rerun with --reuse --keep, drop with: dropdb -h 127.0.0.1 -U postgres ${dbName}`);
}

async function measureServer() {
  // Counts fresh for the next 5 minutes, so the server's stats poller does not recompute
  // them during the measurement (it would on start with older ones); timed, as it is the
  // background cost of this data size.
  let t0 = performance.now();
  await refreshWorkStats(0);
  log(`\nrefreshWorkStats over this data: ${fmt((performance.now() - t0) / 1000)} s (background, every 5 minutes)`);

  await db.execute(sql`delete from sessions`);
  const cookies: string[] = [];
  t0 = performance.now();
  for (const reader of readers.slice(0, Math.min(readers.length, requests))) {
    const setCookie = await createUserSession(new Request("http://127.0.0.1/"), reader.id);
    cookies.push(setCookie.split(";")[0]);
  }
  log(`${cookies.length} sessions made by createUserSession in ${fmt((performance.now() - t0) / 1000)} s`);

  ensureBuild(ROOT, flags.has("build"), log);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-home-"));
  const serverLog = path.join(dataDir, "server.log");
  const server = await startServer({
    cwd: ROOT,
    env: { ...serverEnv, NODE_ENV: "production", DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    port,
    logFile: serverLog,
  });
  process.on("exit", () => server.kill("SIGKILL"));
  try {
    const get = async (cookie: string) => {
      const res = await fetch(`${origin}/`, { headers: { Cookie: cookie } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`GET / answered ${res.status}`);
      return body;
    };
    // Warm-up (JIT, pool, the shared copy), and a check that the page is the signed-in one.
    let personal = 0;
    for (let i = 0; i < Math.min(100, cookies.length); i++) {
      const body = await get(cookies[i]);
      if (!body.includes("退出登录")) throw new Error("GET /: not signed in");
      if (body.includes('data-testid="shelf-updates"') || body.includes('data-testid="continue-reading"')) personal++;
    }
    log(`\nGET / signed in (${personal} of the first ${Math.min(100, cookies.length)} pages show 继续阅读 or 书架更新):`);
    // CPU time per request of the server and of its PostgreSQL backends, from /proc: a
    // figure other processes on a shared machine disturb far less than latency.
    const backends = async () =>
      rowsOf<{ pid: number }>(
        await db.execute(sql`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`),
      ).map((r) => r.pid);
    const cpuOf = (pids: number[]) =>
      pids.reduce((sum, pid) => {
        try {
          return sum + cpuMsOf(pid);
        } catch {
          return sum; // gone
        }
      }, 0);
    for (let round = 1; round <= rounds; round++) {
      const order = [...cookies].sort(() => Math.random() - 0.5);
      const pgPids = await backends();
      const cpuBefore = { server: cpuMsOf(server.pid!), pg: cpuOf(pgPids) };
      const samples: number[] = [];
      let bytes = 0;
      for (const cookie of order) {
        const t = performance.now();
        bytes += (await get(cookie)).length;
        samples.push(performance.now() - t);
      }
      const serverCpu = (cpuMsOf(server.pid!) - cpuBefore.server) / samples.length;
      const pgCpu = (cpuOf(pgPids) - cpuBefore.pg) / samples.length;
      samples.sort((a, b) => a - b);
      const p95 = percentile(samples, 95);
      p95s.push(p95);
      log(
        `  round ${round}: ${samples.length} requests, ${samples.length} readers, ${fmt(bytes / samples.length / 1024, 0)} KiB a page  ${summary(samples)}  ${p95 < 50 ? "ok" : "MISSED (< 50 ms)"}  (load ${os.loadavg()[0].toFixed(1)}; CPU a request: server ${fmt(serverCpu)} ms, PostgreSQL ${fmt(pgCpu)} ms)`,
      );
    }
  } finally {
    await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// --- 1. The seed -----------------------------------------------------------------------------
/**
 * Set-based (bench/lib-seed-site.ts): readers, authors, works, chapters, favourites, reading
 * positions, purchases; then `vacuum analyze` and the real refreshWorkStats.
 */
async function seed(): Promise<number> {
  const started = performance.now();
  log(`seeding ${dbName}: ${WORKS} works, ${CHAPTERS} chapters, ${READERS} readers following ${FOLLOWS} works each`);
  await seedSite(url, { works: WORKS, chapters: CHAPTERS, readers: READERS, follows: FOLLOWS, authors: AUTHORS, log });
  const t = performance.now();
  await refreshWorkStats(0);
  await db.execute(sql`vacuum analyze work_stats`);
  log(`  refreshWorkStats: ${fmt((performance.now() - t) / 1000)} s`);
  const seconds = (performance.now() - started) / 1000;
  log(`seeded in ${fmt(seconds, 0)} s`);
  return seconds;
}
