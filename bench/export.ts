// npm run bench:export [-- --rows=1000000 --runs=3 --fresh --build --build-dir=PATH --keep-files --no-gzip --no-floor]
//
// The database export (/exports/database.zip) of a PostgreSQL database with `rows`
// chapters of about 1 KB each, downloaded from the production server (node server.js)
// with an admin API token: wall time, bytes, CPU, and the server's resident memory
// (sampled every 50 ms, plus the kernel's high-water mark). The anchor is `pg_dump
// --inserts` of the same database, run right after each export (--runs=N pairs, 3 by
// default), and, for a like-for-like comparison of compression, `pg_dump --inserts |
// gzip -9` once. Two floors, measured once on the export's own database.sql read from a
// file in a fresh process with nothing else running: zlib level 9 as one stream (what
// the export did before it deflated in blocks), and the export's zip writer alone
// (level 9 blocks on several cores), which no export of this zip can beat.
// Targets (issue 6): server peak under 200 MB, time within 2x of pg_dump --inserts.
// --no-gzip and --no-floor leave those anchors out (quicker runs while iterating).
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
  const { rowsOf } = await import("~/server/platform/db-utils.server");
  const { hashPassword } = await import("~/server/platform/password.server");
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
          insert into chapters (work_id, title, content, position, word_count)
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
    await db.execute(sql`insert into admins (email, password_hash, role) values ('bench-admin@example.com', ${adminHash}, 'super')`);
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
  /** CPU seconds of the command itself (user + system), and of the whole machine meanwhile. */
  cpuSeconds?: number;
  machineCpu?: number;
}

/** CPU seconds the whole machine has spent busy so far (every core, from /proc/stat). */
function machineCpu(): number {
  const [, ...ticks] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return (user + nice + system + irq + softirq + steal) / 100; // USER_HZ = 100
}

function timed(command: string, env: NodeJS.ProcessEnv = process.env): TimedRun {
  // GNU time: elapsed seconds, peak resident set (KB) and CPU of the command; with a
  // pipe, the shell's children are measured separately, so the pipe runs inside `sh -c`.
  const machineBefore = machineCpu();
  const result = spawnSync("/usr/bin/time", ["-f", "%e %M %U %S", "sh", "-c", command], { env, encoding: "utf8" });
  const machine = machineCpu() - machineBefore;
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  const [seconds, peakKb, user, system] = result.stderr.trim().split("\n").pop()!.split(" ").map(Number);
  return { seconds, bytes: 0, peakKb, cpuSeconds: user + system, machineCpu: machine };
}

interface Floor {
  seconds: number;
  cpuSeconds: number;
  mb: number;
}

/**
 * The floors, each in a fresh process reading database.sql from a file with nothing else
 * running: zlib level 9 (memLevel 9) as one stream, the way the export deflated before;
 * and the export's own zip writer (level 9 blocks on several cores).
 */
function measureFloor(kind: "one-stream" | "zip-writer", sqlPath: string): Floor {
  const result = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, `--floor-child=${kind}`, sqlPath], { cwd: ROOT, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`floor ${kind} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").pop()!) as Floor;
}

async function floorChild(kind: string, sqlPath: string) {
  const zlib = await import("node:zlib");
  const { pipeline } = await import("node:stream/promises");
  const { Writable } = await import("node:stream");
  const cpu = process.cpuUsage();
  const started = performance.now();
  let bytes = 0;
  const input = fs.createReadStream(sqlPath, { highWaterMark: 1 << 20 });
  if (kind === "one-stream") {
    await pipeline(
      input,
      zlib.createDeflateRaw({ level: 9, memLevel: 9, chunkSize: 256 * 1024 }),
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          callback();
        },
      }),
    );
  } else {
    const { ZipWriter } = await import("~/server/platform/zip-writer.server");
    const zip = new ZipWriter({ level: 9, memLevel: 9 });
    const reading = (async () => {
      for await (const chunk of zip) bytes += chunk.byteLength;
    })();
    await zip.startEntry("database.sql");
    for await (const chunk of input) await zip.write(chunk as Buffer);
    await zip.endEntry();
    await zip.finish();
    await reading;
  }
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6, mb: mb(bytes) }));
}

interface ExportRun {
  seconds: number;
  zipMb: number;
  sqlMb: number;
  idleRssMb: number;
  peakRssMb: number;
  highWaterMb: number;
  /** CPU seconds (user + system) of the server process, its PostgreSQL backends, the download (curl), the whole machine. */
  serverCpu: number;
  postgresCpu: number;
  clientCpu: number;
  machineCpu: number;
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

/**
 * Starts server.js from `appDir`, downloads /exports/database.zip with the token, stops
 * it. With `keepSql`, database.sql is unzipped beside it (for the floors).
 */
async function measureExport(appDir: string, url: string, token: string, dataDir: string, keepSql: boolean): Promise<ExportRun> {
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
    const machineBefore = machineCpu();
    const sampler = sampleRss(server.pid!, 50);
    const started = performance.now();
    // Downloaded the way a script does it, with curl, under GNU time for its CPU.
    const download = spawn("/usr/bin/time", ["-f", "%U %S", "curl", "-sSf", "-H", `Authorization: Bearer ${token}`, "-o", out, `${base}/exports/database.zip`], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    download.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => download.once("exit", resolve));
    const seconds = (performance.now() - started) / 1000;
    const machine = machineCpu() - machineBefore;
    if (code !== 0) throw new Error(`export failed: ${stderr}`);
    const [clientUser, clientSystem] = stderr.trim().split("\n").pop()!.split(" ").map(Number);
    const bytes = fs.statSync(out).size;
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
    if (keepSql) {
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
      clientCpu: clientUser + clientSystem,
      machineCpu: machine,
    };
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
    running = undefined;
    fs.rmSync(out, { force: true });
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

interface Pair {
  export: ExportRun;
  pgDump: TimedRun;
}

async function main() {
  const floorKind = flags.get("floor-child");
  if (floorKind) return floorChild(floorKind, process.argv[process.argv.length - 1]);
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
  const runs = Math.max(1, Number(flags.get("runs") ?? 3));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-export-"));
  const pairs: Pair[] = [];
  const floors: { oneStream?: Floor; zipWriter?: Floor } = {};
  const dumpGz: TimedRun = { seconds: 0, bytes: 0 };
  try {
    const appDir = snapshotBuild(dataDir);
    const dumpFile = path.join(dataDir, "pg_dump.sql");
    for (let run = 1; run <= runs; run++) {
      const keepSql = run === 1 && !flags.has("no-floor");
      const e = await measureExport(appDir, url, token, dataDir, keepSql);
      log(`run ${run}: export via server.js ${fmt(e.seconds)} s (CPU: server ${fmt(e.serverCpu)} s, PostgreSQL ${fmt(e.postgresCpu)} s, curl ${fmt(e.clientCpu)} s, machine ${fmt(e.machineCpu)} s), zip ${fmt(e.zipMb)} MB (database.sql ${fmt(e.sqlMb)} MB), server peak RSS ${fmt(e.peakRssMb)} MB (idle ${fmt(e.idleRssMb)} MB)`);
      const dump = timed(`pg_dump --inserts -d '${url}' -f '${dumpFile}'`);
      dump.bytes = fs.statSync(dumpFile).size;
      fs.rmSync(dumpFile);
      log(`run ${run}: pg_dump --inserts ${fmt(dump.seconds)} s (CPU: pg_dump ${fmt(dump.cpuSeconds ?? 0)} s, machine ${fmt(dump.machineCpu ?? 0)} s), ${fmt(mb(dump.bytes))} MB; export / pg_dump ${fmt(e.seconds / dump.seconds, 2)}x`);
      pairs.push({ export: e, pgDump: dump });
    }
    const sqlPath = path.join(dataDir, "database.sql");
    if (fs.existsSync(sqlPath)) {
      floors.oneStream = measureFloor("one-stream", sqlPath);
      log(`floor, zlib level 9 as one stream: ${fmt(floors.oneStream.seconds)} s (${fmt(floors.oneStream.cpuSeconds)} s CPU), ${fmt(floors.oneStream.mb)} MB`);
      floors.zipWriter = measureFloor("zip-writer", sqlPath);
      log(`floor, the zip writer alone (level 9 blocks): ${fmt(floors.zipWriter.seconds)} s (${fmt(floors.zipWriter.cpuSeconds)} s CPU), ${fmt(floors.zipWriter.mb)} MB`);
      fs.rmSync(sqlPath);
    }
    // The gzip anchor takes a minute or more; --no-gzip leaves it out.
    if (!flags.has("no-gzip")) {
      Object.assign(dumpGz, timed(`pg_dump --inserts -d '${url}' | gzip -9 > '${dumpFile}.gz'`));
      dumpGz.bytes = fs.statSync(`${dumpFile}.gz`).size;
      log(`pg_dump --inserts | gzip -9: ${fmt(dumpGz.seconds)} s, ${fmt(mb(dumpGz.bytes))} MB`);
    }
  } finally {
    if (!flags.has("keep-files")) fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const machineAfter = busy();
  const exportMedian = median(pairs.map((p) => p.export.seconds));
  const dumpMedian = median(pairs.map((p) => p.pgDump.seconds));
  const zipMb = pairs[0].export.zipMb;
  const result = {
    rows: chapters,
    databaseMb: mb(size),
    runs: pairs.map((p) => ({ export: p.export, pgDump: { seconds: p.pgDump.seconds, mb: mb(p.pgDump.bytes), peakMb: (p.pgDump.peakKb ?? 0) / 1024, cpuSeconds: p.pgDump.cpuSeconds, machineCpu: p.pgDump.machineCpu } })),
    median: { exportSeconds: exportMedian, pgDumpSeconds: dumpMedian, ratio: median(pairs.map((p) => p.export.seconds / p.pgDump.seconds)) },
    pgDumpGzip9: { seconds: dumpGz.seconds, mb: mb(dumpGz.bytes) },
    floors,
  };
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const report = [
    `# Export benchmark ${stamp}`,
    "",
    `Machine: ${describeMachine()}. ${describeBusy(machineBefore, machineAfter)}`,
    "",
    `PostgreSQL database with ${chapters.toLocaleString()} chapters of about 1 KB (${fmt(mb(size), 0)} MB on disk). Each run: the export, then pg_dump --inserts.`,
    "",
    "| run | export wall | CPU: server / PostgreSQL / curl / whole machine | server RSS idle → peak (high-water) | output | pg_dump --inserts wall | CPU: pg_dump / whole machine | export / pg_dump |",
    "|---|---|---|---|---|---|---|---|",
    ...pairs.map(
      ({ export: e, pgDump: d }, i) =>
        `| ${i + 1} | ${fmt(e.seconds)} s | ${fmt(e.serverCpu)} / ${fmt(e.postgresCpu)} / ${fmt(e.clientCpu)} / ${fmt(e.machineCpu)} s | ${fmt(e.idleRssMb)} → **${fmt(e.peakRssMb)} MB** (${fmt(e.highWaterMb)}) | ${fmt(e.zipMb)} MB zip (${fmt(e.sqlMb)} MB SQL) | ${fmt(d.seconds)} s | ${fmt(d.cpuSeconds ?? 0)} / ${fmt(d.machineCpu ?? 0)} s | ${fmt(e.seconds / d.seconds, 2)}x |`,
    ),
    "",
    `Median: export ${fmt(exportMedian)} s, pg_dump --inserts ${fmt(dumpMedian)} s (${fmt(mb(pairs[0].pgDump.bytes))} MB SQL); median ratio ${fmt(result.median.ratio, 2)}x. Server peak RSS ${fmt(Math.min(...pairs.map((p) => p.export.peakRssMb)))}-${fmt(Math.max(...pairs.map((p) => p.export.peakRssMb)))} MB.`,
    ...(floors.oneStream && floors.zipWriter
      ? [
          "",
          "Floors (database.sql of run 1 from a file, a fresh process, nothing else in it):",
          "",
          "| | wall | CPU | output |",
          "|---|---|---|---|",
          `| zlib level 9 as one stream (how the export deflated before) | ${fmt(floors.oneStream.seconds)} s | ${fmt(floors.oneStream.cpuSeconds)} s | ${fmt(floors.oneStream.mb)} MB |`,
          `| the export's zip writer alone (level 9, 1 MB blocks on several cores) | ${fmt(floors.zipWriter.seconds)} s | ${fmt(floors.zipWriter.cpuSeconds)} s | ${fmt(floors.zipWriter.mb)} MB (zip) |`,
          "",
          `The export's zip is ${fmt((zipMb / floors.oneStream.mb - 1) * 100, 3)}% larger than one deflate stream of the same SQL. Zip writer floor / pg_dump --inserts (median) ${fmt(floors.zipWriter.seconds / dumpMedian, 2)}x.`,
        ]
      : []),
    ...(dumpGz.seconds > 0 ? ["", `pg_dump --inserts | gzip -9: ${fmt(dumpGz.seconds)} s, ${fmt(mb(dumpGz.bytes))} MB; median export / that ${fmt(exportMedian / dumpGz.seconds, 2)}x.`] : []),
    "",
  ].join("\n");
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(RESULTS_DIR, `export-${stamp}.md`), report);
  fs.writeFileSync(path.join(RESULTS_DIR, `export-${stamp}.json`), JSON.stringify(result, null, 2));
  console.log(report);
}

await main();
