// npm run bench:export [-- --rows=1000000 --fresh --build --keep-files --no-gzip --no-floor]
//
// The database export (/exports/database.zip) of a PostgreSQL database with `rows`
// chapters of about 1 KB each, downloaded from the production server (node server.js)
// with an admin API token: wall time, bytes, and the server's resident memory (sampled
// every 50 ms, plus the kernel's high-water mark). The anchor is `pg_dump --inserts` of
// the same database (and, for a like-for-like comparison of compression,
// `pg_dump --inserts | gzip -9`), and the floor: the same database.sql deflated by zlib
// alone (level 9, one stream, from a file), which no export of this zip can beat.
// Targets (issue 6): server peak under 200 MB, time within 2x of pg_dump --inserts.
// --no-gzip and --no-floor leave those two anchors out (quicker runs while iterating).
//
// The database inkstone_bench_export is kept between runs (seeding a million rows takes
// a while); --fresh drops and re-seeds it. Seeding runs in a child process that closes
// the database before the server opens it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePgDatabase, fmt, parseFlags, pgUrlFor, runSelf } from "./lib-db";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { freePort, memoryOf, sampleRss } from "./lib-server";

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SCRIPT), "..");
const PG_DATABASE = "inkstone_bench_export";
const RESULTS_DIR = path.join(ROOT, "bench/results");
const flags = parseFlags(process.argv.slice(2));
const ROWS = Number(flags.get("rows") ?? 1_000_000);
const CHAPTERS_PER_WORK = 1000;
const log = (line: string) => console.error(line);

let running: ChildProcess | undefined;
process.on("exit", () => running?.kill("SIGKILL"));

// ---------------------------------------------------------------------------------------
// Child: migrate and seed (DATABASE_URL set by the parent), then register the token.

async function seed() {
  const { db, closeDatabase } = await import("~/db/client.server");
  const { sql } = await import("drizzle-orm");
  const { rowsOf } = await import("~/server/db-utils.server");
  const { hashPassword } = await import("~/server/password.server");
  const count = async (q: string) => Number(rowsOf<{ n: string }>(await db.execute(sql.raw(q)))[0].n);
  try {
    const have = await count("select count(*) as n from chapters");
    if (have < ROWS) {
      log(`seeding ${ROWS.toLocaleString()} chapters (have ${have.toLocaleString()})...`);
      await db.execute(sql.raw("truncate users, works, chapters cascade"));
      const hash = await hashPassword("bench-password");
      await db.execute(sql`
        insert into users (email, password_hash) values ('bench-author@example.com', ${hash})`);
      await db.execute(sql.raw(`
        insert into profiles (id, email, nickname) select id, email, '基准作者' from users;
        insert into credits (user_id, balance) select id, 0 from users;`));
      const works = Math.ceil(ROWS / CHAPTERS_PER_WORK);
      await db.execute(sql.raw(`
        insert into works (user_id, title, description, type, status, visibility, chapter_count, word_count)
        select u.id, '基准作品 ' || n, '用于导出基准测试的作品，第 ' || n || ' 部。', 'multi_chapter', 'completed', 'public', ${CHAPTERS_PER_WORK}, 0
        from users u, generate_series(1, ${works}) n`));
      // About 1 KB per chapter: 330 characters drawn at random from the 2,500 most
      // common CJK code points' range (3 bytes each) plus the row number, so deflate
      // finds about as little repetition as in real prose (it compresses ~2x), rather
      // than the 100x of one repeated sentence.
      const step = 100_000;
      for (let start = 0; start < ROWS; start += step) {
        const end = Math.min(ROWS, start + step);
        await db.execute(sql.raw(`
          insert into chapters (work_id, title, content, "order", word_count)
          select w.id, '第' || ((g - 1) % ${CHAPTERS_PER_WORK} + 1) || '章',
                 (select string_agg(chr(19968 + (random() * 2500)::int), '') from generate_series(1, 330 + 0 * g)) || ' #' || g,
                 (g - 1) % ${CHAPTERS_PER_WORK} + 1, 340
          from generate_series(${start + 1}, ${end}) g
          join works w on w.title = '基准作品 ' || ((g - 1) / ${CHAPTERS_PER_WORK} + 1)`));
        log(`  ${end.toLocaleString()} / ${ROWS.toLocaleString()}`);
      }
    }
    // The token the parent will use (only its hash is stored, as in the app).
    const token = process.env.BENCH_TOKEN!;
    await db.execute(sql.raw("delete from admin_api_tokens; delete from admins where email = 'bench-admin@example.com'"));
    const adminHash = await hashPassword(randomBytes(12).toString("hex"));
    await db.execute(sql`insert into admins (email, password_hash) values ('bench-admin@example.com', ${adminHash})`);
    await db.execute(sql`
      insert into admin_api_tokens (admin_id, name, token_hash)
      select id, 'bench', ${createHash("sha256").update(token).digest("hex")} from admins where email = 'bench-admin@example.com'`);
  } finally {
    await closeDatabase();
  }
}

// ---------------------------------------------------------------------------------------
// Parent.


const mb = (bytes: number) => bytes / 2 ** 20;

/**
 * A private copy of the build, server.js and server/ (node_modules and migrations linked),
 * so a rebuild by someone else during the run cannot change the server under it.
 * --build-dir=PATH runs another build (a copy of an older one, to compare before and after).
 */
function snapshotBuild(into: string): string {
  const dir = path.join(into, "app");
  fs.cpSync(flags.get("build-dir") ?? path.join(ROOT, "build"), path.join(dir, "build"), { recursive: true });
  fs.cpSync(path.join(ROOT, "server"), path.join(dir, "server"), { recursive: true });
  for (const file of ["server.js", "package.json"]) fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  for (const link of ["node_modules", "drizzle"]) fs.symlinkSync(path.join(ROOT, link), path.join(dir, link));
  return dir;
}

async function waitForHealth(base: string, child: ChildProcess) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("server did not become healthy");
}

interface TimedRun {
  seconds: number;
  bytes: number;
  peakKb?: number;
}

function timed(command: string, env: NodeJS.ProcessEnv = process.env): TimedRun {
  // GNU time: elapsed seconds and the peak resident set of the command (KB); with a pipe,
  // the shell's children are measured separately, so the pipe runs inside `sh -c`.
  const result = spawnSync("/usr/bin/time", ["-f", "%e %M", "sh", "-c", command], { env, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  const [seconds, peakKb] = result.stderr.trim().split("\n").pop()!.split(" ").map(Number);
  return { seconds, bytes: 0, peakKb };
}

/**
 * The floor: the same database.sql deflated by zlib in this process (level 9, memLevel 9,
 * as the export does), read from a file, nothing else running in the process. Deflate is
 * one sequential stream, so no export that writes this zip can finish faster.
 */
function measureDeflate(sqlPath: string): { seconds: number; cpuSeconds: number; mb: number } {
  const script = `
    const fs = require("node:fs"), zlib = require("node:zlib");
    const { pipeline, Writable } = require("node:stream");
    const cpu = process.cpuUsage(), t = performance.now();
    let bytes = 0;
    pipeline(
      fs.createReadStream(process.argv[1], { highWaterMark: 1 << 20 }),
      zlib.createDeflateRaw({ level: 9, memLevel: 9, chunkSize: 256 * 1024 }),
      new Writable({ write(c, _e, cb) { bytes += c.length; cb(); } }),
      (err) => {
        if (err) throw err;
        const used = process.cpuUsage(cpu);
        console.log(JSON.stringify({ seconds: (performance.now() - t) / 1000, cpuSeconds: (used.user + used.system) / 1e6, bytes }));
      },
    );`;
  const result = spawnSync(process.execPath, ["-e", script, sqlPath], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`deflate floor failed: ${result.stderr}`);
  const { seconds, cpuSeconds, bytes } = JSON.parse(result.stdout) as { seconds: number; cpuSeconds: number; bytes: number };
  return { seconds, cpuSeconds, mb: mb(bytes) };
}

interface ExportRun {
  seconds: number;
  zipMb: number;
  sqlMb: number;
  idleRssMb: number;
  peakRssMb: number;
  highWaterMb: number;
  /** CPU seconds (user + system) of the server process and of its PostgreSQL backends. */
  serverCpu: number;
  postgresCpu: number;
}

/** CPU seconds used so far by a process (all its threads), from /proc. */
function cpuOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ = 100)
  } catch {
    return 0; // gone
  }
}

/** CPU seconds so far of each PostgreSQL backend connected to the database. */
function backendCpu(url: string): Map<number, number> {
  const out = spawnSync("psql", ["-qAt", "-d", url, "-c", "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()"], { encoding: "utf8" }).stdout;
  return new Map(out.split("\n").filter(Boolean).map((pid) => [Number(pid), cpuOf(Number(pid))]));
}

/** Starts `script` as the server, downloads /exports/database.zip with the token, stops it. */
async function measureExport(appDir: string, url: string, token: string, dataDir: string): Promise<ExportRun> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ["server.js"], {
    cwd: appDir,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: "127.0.0.1", NODE_ENV: "production", DATA_DIR: dataDir },
    stdio: ["ignore", "ignore", "inherit"],
  });
  running = server;
  const out = path.join(dataDir, "database.zip");
  try {
    await waitForHealth(base, server);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = memoryOf(server.pid!);
    const serverCpu = cpuOf(server.pid!);
    const backendsBefore = backendCpu(url);
    const sampler = sampleRss(server.pid!, 50);
    const started = performance.now();
    const response = await fetch(`${base}/exports/database.zip`, { headers: { Authorization: `Bearer ${token}` } });
    if (!response.ok || !response.body) throw new Error(`export failed: HTTP ${response.status} ${await response.text()}`);
    const file = fs.createWriteStream(out);
    let bytes = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (!file.write(chunk)) await new Promise<void>((r) => file.once("drain", () => r()));
    }
    await new Promise<void>((r) => file.end(() => r()));
    const seconds = (performance.now() - started) / 1000;
    const serverCpuUsed = cpuOf(server.pid!) - serverCpu;
    let postgresCpu = 0;
    for (const [pid, cpu] of backendCpu(url)) postgresCpu += cpu - (backendsBefore.get(pid) ?? 0);
    const peakRss = Math.max(idle.rss, sampler.stop());
    const after = memoryOf(server.pid!);
    const listing = spawnSync("unzip", ["-l", out], { encoding: "utf8" }).stdout;
    const sqlBytes = Number(/^\s*(\d+)\s+\S+\s+\S+\s+database\.sql$/m.exec(listing)?.[1] ?? NaN);
    // The archive must be complete and intact: test every entry's CRC.
    const check = spawnSync("unzip", ["-tq", out], { encoding: "utf8" });
    if (check.status !== 0) throw new Error(`database.zip is damaged: ${check.stdout} ${check.stderr}`);
    if (!flags.has("no-floor")) {
      const sqlFile = fs.openSync(path.join(dataDir, "database.sql"), "w");
      spawnSync("unzip", ["-p", out, "database.sql"], { stdio: ["ignore", sqlFile, "inherit"] });
      fs.closeSync(sqlFile);
    }
    return {
      seconds,
      zipMb: mb(bytes),
      sqlMb: mb(sqlBytes),
      idleRssMb: mb(idle.rss),
      peakRssMb: mb(peakRss),
      highWaterMb: mb(after.hwm),
      serverCpu: serverCpuUsed,
      postgresCpu,
    };
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
    running = undefined;
    fs.rmSync(out, { force: true });
  }
}

async function main() {
  if (process.argv.includes("--seed-child")) return seed();

  const machineBefore = busy();
  await ensurePgDatabase(PG_DATABASE, flags.has("fresh"));
  const url = pgUrlFor(PG_DATABASE);
  const token = `inkadm_${randomBytes(32).toString("base64url")}`;
  const seedStart = performance.now();
  await runSelf(SCRIPT, ["--seed-child", ...process.argv.slice(2)], { ...process.env, DATABASE_URL: url, BENCH_TOKEN: token });
  log(`seed/migrate: ${fmt((performance.now() - seedStart) / 1000)} s`);
  spawnSync("psql", ["-q", "-d", url, "-c", "vacuum analyze"], { stdio: "inherit" });
  const [{ size, chapters }] = JSON.parse(
    spawnSync("psql", ["-qAt", "-d", url, "-c", "select json_agg(json_build_object('size', pg_database_size(current_database()), 'chapters', (select count(*) from chapters)))"], { encoding: "utf8" }).stdout,
  ) as { size: number; chapters: number }[];
  log(`database: ${chapters.toLocaleString()} chapters, ${fmt(mb(size), 0)} MB on disk`);

  if (flags.has("build") || !fs.existsSync(path.join(ROOT, "build/server/index.js"))) {
    spawnSync("npx", ["react-router", "build"], { cwd: ROOT, stdio: "inherit" });
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-export-"));
  const exports: Record<string, ExportRun> = {};
  let result: Record<string, unknown>;
  try {
    exports.server = await measureExport(snapshotBuild(dataDir), url, token, dataDir);
    const e = exports.server;
    log(`export via server.js: ${fmt(e.seconds)} s (CPU: server ${fmt(e.serverCpu)} s, PostgreSQL ${fmt(e.postgresCpu)} s), zip ${fmt(e.zipMb)} MB (database.sql ${fmt(e.sqlMb)} MB), server peak RSS ${fmt(e.peakRssMb)} MB (idle ${fmt(e.idleRssMb)} MB)`);
    let floor: ReturnType<typeof measureDeflate> | undefined;
    const sqlPath = path.join(dataDir, "database.sql");
    if (fs.existsSync(sqlPath)) {
      floor = measureDeflate(sqlPath);
      fs.rmSync(sqlPath);
      log(`zlib level 9 alone on database.sql: ${fmt(floor.seconds)} s (${fmt(floor.cpuSeconds)} s CPU), ${fmt(floor.mb)} MB`);
    }
    const dumpFile = path.join(dataDir, "pg_dump.sql");
    const dump = timed(`pg_dump --inserts -d '${url}' -f '${dumpFile}'`);
    dump.bytes = fs.statSync(dumpFile).size;
    fs.rmSync(dumpFile);
    log(`pg_dump --inserts: ${fmt(dump.seconds)} s, ${fmt(mb(dump.bytes))} MB, peak ${fmt((dump.peakKb ?? 0) / 1024)} MB`);
    // The gzip anchor takes minutes; --no-gzip leaves it out (reported as 0).
    const dumpGz: TimedRun = { seconds: 0, bytes: 0 };
    if (!flags.has("no-gzip")) {
      Object.assign(dumpGz, timed(`pg_dump --inserts -d '${url}' | gzip -9 > '${dumpFile}.gz'`));
      dumpGz.bytes = fs.statSync(`${dumpFile}.gz`).size;
      log(`pg_dump --inserts | gzip -9: ${fmt(dumpGz.seconds)} s, ${fmt(mb(dumpGz.bytes))} MB`);
    }
    result = {
      rows: chapters,
      databaseMb: mb(size),
      exports,
      pgDump: { seconds: dump.seconds, mb: mb(dump.bytes), peakMb: (dump.peakKb ?? 0) / 1024 },
      pgDumpGzip9: { seconds: dumpGz.seconds, mb: mb(dumpGz.bytes) },
      deflateFloor: floor,
    };
  } finally {
    if (!flags.has("keep-files")) fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const machineAfter = busy();
  const r = result as {
    rows: number;
    databaseMb: number;
    exports: Record<string, ExportRun>;
    pgDump: { seconds: number; mb: number; peakMb: number };
    pgDumpGzip9: { seconds: number; mb: number };
    deflateFloor?: { seconds: number; cpuSeconds: number; mb: number };
  };
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const report = [
    `# Export benchmark ${stamp}`,
    "",
    `Machine: ${describeMachine()}. ${describeBusy(machineBefore, machineAfter)}`,
    "",
    `PostgreSQL database with ${r.rows.toLocaleString()} chapters of about 1 KB (${fmt(r.databaseMb, 0)} MB on disk).`,
    "",
    "| | wall time | output | peak memory |",
    "|---|---|---|---|",
    ...Object.entries(r.exports).map(
      ([, e]) =>
        `| /exports/database.zip via server.js (zlib 9) | ${fmt(e.seconds)} s (CPU: server ${fmt(e.serverCpu)} s, PostgreSQL ${fmt(e.postgresCpu)} s) | ${fmt(e.zipMb)} MB zip (${fmt(e.sqlMb)} MB SQL) | server RSS ${fmt(e.peakRssMb)} MB (idle ${fmt(e.idleRssMb)} MB, high-water ${fmt(e.highWaterMb)} MB) |`,
    ),
    `| pg_dump --inserts | ${fmt(r.pgDump.seconds)} s | ${fmt(r.pgDump.mb)} MB SQL | pg_dump ${fmt(r.pgDump.peakMb)} MB |`,
    ...(r.pgDumpGzip9.seconds > 0 ? [`| pg_dump --inserts \\| gzip -9 | ${fmt(r.pgDumpGzip9.seconds)} s | ${fmt(r.pgDumpGzip9.mb)} MB gz | |`] : []),
    ...(r.deflateFloor
      ? [`| zlib level 9 alone on database.sql (one stream, from a file) | ${fmt(r.deflateFloor.seconds)} s (${fmt(r.deflateFloor.cpuSeconds)} s CPU) | ${fmt(r.deflateFloor.mb)} MB deflate | |`]
      : []),
    "",
    ...Object.entries(r.exports).map(
      ([, e]) =>
        `export time / pg_dump --inserts ${fmt(e.seconds / r.pgDump.seconds, 2)}x` +
        (r.pgDumpGzip9.seconds > 0 ? `; / pg_dump | gzip -9 ${fmt(e.seconds / r.pgDumpGzip9.seconds, 2)}x` : "") +
        (r.deflateFloor ? `; / zlib 9 alone ${fmt(e.seconds / r.deflateFloor.seconds, 2)}x (zlib 9 alone / pg_dump --inserts ${fmt(r.deflateFloor.seconds / r.pgDump.seconds, 2)}x).` : "."),
    ),
    "",
  ].join("\n");
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(RESULTS_DIR, `export-${stamp}.md`), report);
  fs.writeFileSync(path.join(RESULTS_DIR, `export-${stamp}.json`), JSON.stringify(r, null, 2));
  console.log(report);
}

await main();
