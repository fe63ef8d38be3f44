// npm run bench:soak [-- --minutes=10 --idle=1 --only=postgres|pglite --connections=10 --users=20 --works=2000 --fresh --build --snapshots]
//
// Memory under a long signed-in load (docs/benchmarks.md#soak-npm-run-benchsoak): the production server
// (node server.js) on a loopback port, loaded for --minutes with a mix of signed-in
// pages and the reader (listing, search, landing, reader page, next paragraphs, saving
// the reading position, and a new login every few seconds), then left idle for --idle
// minutes. It stops by itself. The server's RSS is read from /proc, and its
// process.memoryUsage() split (heap, external, array buffers) is logged by
// bench/lib-memory-probe.js loaded into it, to tell a leak in JavaScript from memory
// held outside the heap.
//
// Target: RSS after the soak and the idle minute within 25% of its level after the
// warm-up (the first minute of load, or a fifth of a shorter run).
//
// Data is kept between runs: PostgreSQL database inkstone_bench_soak, PGlite data dir
// ./data/bench-pglite/soak. --fresh drops and re-seeds them.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { and, eq, sql } from "drizzle-orm";
import { profiles, works } from "~/db/schema";
import { loadCorpus, ngramsByFrequency } from "./lib-corpus";
import { ensurePgDatabase, fmt, parseFlags, pgUrlFor, runSelf } from "./lib-db";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { ensureBuild, freePort, memoryOf, signIn, startServer, stopServer } from "./lib-server";
import { seedBench } from "./lib-seed";

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SCRIPT), "..");
const PG_DATABASE = "inkstone_bench_soak";
const PGLITE_DATA_DIR = path.join(ROOT, "data/bench-pglite/soak");
const RESULTS_DIR = path.join(ROOT, "bench/results");
const READER_TITLE = "耐久测试连载";
const PASSWORD = "bench-password-1";

type Backend = "postgres" | "pglite";

// autocannon ships no type declarations: the part of its API used here.
interface SoakRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  timeout?: number;
  requests: { setupRequest: (req: SoakRequest) => SoakRequest }[];
}) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

interface SeedInfo {
  works: number;
  pages: number;
  /** Works with chapters to read: id and number of chapters. */
  readable: { id: number; chapters: number }[];
  queries: string[];
}

interface Sample {
  /** Seconds since the load started. */
  at: number;
  phase: "load" | "idle";
  rss: number;
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
  arrayBuffers?: number;
}

const flags = parseFlags(process.argv.slice(2));
const log = (line: string) => console.error(line);
const MB = 2 ** 20;

// The server child, killed if this script ends early.
let running: ChildProcess | undefined;
process.on("exit", () => running?.kill("SIGKILL"));

/** Child process: open the database the server will use, seed it, close it. */
async function seedChild() {
  const out = flags.get("out")!;
  const { db, closeDatabase } = await import("~/db/client.server");
  const { createWork } = await import("~/server/catalog/works.server");
  const { register } = await import("~/server/identity/auth.server");
  try {
    const seeded = await seedBench(db, {
      works: Number(flags.get("works") ?? 2_000),
      concurrency: process.env.DATABASE_URL ? 2 : 1,
      log,
    });
    // Works with real chapters for the reader: 10 works of 5 chapters of 200 paragraphs.
    let readable = await db
      .select({ id: works.id, chapters: works.chapterCount })
      .from(works)
      .where(and(eq(works.title, READER_TITLE), eq(works.visibility, "public")));
    if (readable.length === 0) {
      const form = new FormData();
      form.set("email", `bench-soak-author-${Date.now()}@example.com`);
      form.set("password", PASSWORD);
      const author = await register(form, "127.0.0.1");
      await db.update(profiles).set({ nickname: "耐久作者" }).where(eq(profiles.id, author.id));
      const sentences = loadCorpus().sentences;
      let next = 0;
      const paragraph = () => Array.from({ length: 4 }, () => sentences[next++ % sentences.length]).join("");
      for (let w = 0; w < 10; w++) {
        const chapters = Array.from({ length: 5 }, (_, c) => ({
          title: `第${c + 1}章`,
          content: Array.from({ length: 200 }, paragraph).join("\n\n"),
        }));
        await createWork(
          author.id,
          {
            title: READER_TITLE,
            description: "耐久测试用的连载作品",
            type: "multi_chapter",
            status: "completed",
            visibility: "public",
            rating: "all_ages",
            isAiGenerated: false,
          },
          chapters,
          null,
        );
      }
      readable = await db
        .select({ id: works.id, chapters: works.chapterCount })
        .from(works)
        .where(and(eq(works.title, READER_TITLE), eq(works.visibility, "public")));
    }
    const [{ n }] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(works)
      .where(sql`${works.visibility} in ('public', 'public-vip')`);
    // Searches of two characters from the novel, common and rare.
    const bigrams = ngramsByFrequency(loadCorpus(), 2);
    const queries = [5, 10, 20, 40, 80, 160, 320, 640].map((rank) => bigrams[rank].gram);
    const info: SeedInfo = { works: seeded.works, pages: Math.max(1, Math.ceil(n / 12)), readable, queries };
    fs.writeFileSync(out, JSON.stringify(info));
  } finally {
    await closeDatabase();
  }
}


/** What a signed-in reader asks for, drawn at random with these weights. */
function requestMaker(origin: string, seed: SeedInfo, cookies: string[]) {
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
  const int = (max: number) => 1 + Math.floor(Math.random() * max);
  const mix: [number, () => Omit<SoakRequest, "headers"> & { form?: boolean }][] = [
    [25, () => ({ method: "GET", path: `/works?page=${int(Math.min(seed.pages, 50))}` })],
    [15, () => ({ method: "GET", path: `/works?q=${encodeURIComponent(pick(seed.queries))}&page=1` })],
    [10, () => ({ method: "GET", path: "/" })],
    [
      25,
      () => {
        const w = pick(seed.readable);
        return { method: "GET", path: `/works/${w.id}?chapter=${int(w.chapters)}` };
      },
    ],
    [
      15,
      () => {
        const w = pick(seed.readable);
        return { method: "GET", path: `/works/${w.id}/paragraphs?chapter=${int(w.chapters)}&from=${50 * int(3)}` };
      },
    ],
    [
      10,
      () => {
        const w = pick(seed.readable);
        return { method: "POST", path: `/works/${w.id}/progress`, body: `chapter=${int(w.chapters)}&paragraph=${int(199)}`, form: true };
      },
    ],
  ];
  const total = mix.reduce((sum, [weight]) => sum + weight, 0);
  return (): SoakRequest => {
    let r = Math.random() * total;
    const [, make] = mix.find(([weight]) => (r -= weight) < 0) ?? mix[0];
    const { form, ...req } = make();
    const headers: Record<string, string> = { Cookie: pick(cookies) };
    if (form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      headers.Origin = origin;
    }
    return { ...req, headers };
  };
}

/** process.memoryUsage() lines the probe wrote, by time. */
function readProbe(file: string): { t: number; rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number }[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((row) => typeof row.rss === "number");
}

async function soak(backend: Backend, options: { minutes: number; idle: number; warmup: number; connections: number; users: number }) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    // Sign-ins from one address, many times: out of the login rate limit's way.
    RATE_LIMIT_PER_ADDRESS: "1000000",
    RATE_LIMIT_PER_EMAIL: "1000000",
    LOGIN_LOCK_AFTER: "1000000",
    LOGIN_ADDRESS_LIMIT: "1000000",
  };
  delete env.PGLITE_DIR;
  if (backend === "postgres") {
    await ensurePgDatabase(PG_DATABASE, flags.has("fresh"));
    env.DATABASE_URL = pgUrlFor(PG_DATABASE);
    env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-soak-"));
  } else {
    if (flags.has("fresh")) fs.rmSync(PGLITE_DATA_DIR, { recursive: true, force: true });
    fs.mkdirSync(PGLITE_DATA_DIR, { recursive: true });
    delete env.DATABASE_URL;
    env.DATA_DIR = PGLITE_DATA_DIR;
  }
  const seedOut = path.join(os.tmpdir(), `inkstone-bench-soak-${process.pid}-${backend}.json`);
  await runSelf(SCRIPT, [`--seed-child`, `--out=${seedOut}`, `--works=${flags.get("works") ?? 2_000}`], env);
  const seed = JSON.parse(fs.readFileSync(seedOut, "utf8")) as SeedInfo;
  fs.rmSync(seedOut, { force: true });
  log(`${seed.works} works, ${seed.readable.length} to read`);

  const probeFile = path.join(os.tmpdir(), `inkstone-bench-soak-${process.pid}-${backend}.memory.jsonl`);
  fs.rmSync(probeFile, { force: true });
  env.SOAK_PROBE_FILE = probeFile;
  env.SOAK_PROBE_MS = "5000";
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = await startServer({
    cwd: ROOT,
    env,
    port,
    logFile: path.join(RESULTS_DIR, `soak-server-${backend}.log`),
    nodeFlags: ["--import", "./bench/lib-memory-probe.js"],
  });
  running = server;
  const pid = server.pid!;
  const startRss = memoryOf(pid).rss;
  const busyBefore = busy();
  const samples: Sample[] = [];
  const t0 = Date.now();
  let warmRss = 0;
  let result: AutocannonResult;
  let logins = 0;
  let loginFailures = 0;
  try {
    const stamp = Date.now();
    const cookies: string[] = [];
    for (let i = 0; i < options.users; i++) cookies.push(await signIn(origin, `bench-soak-${stamp}-${i}@example.com`, { register: true, password: PASSWORD }));
    const next = requestMaker(origin, seed, cookies);

    const sample = (phase: Sample["phase"]) => samples.push({ at: (Date.now() - t0) / 1000, phase, rss: memoryOf(pid).rss });
    const sampler = setInterval(() => sample("load"), 5_000);
    // A new session every few seconds, replacing one of the readers' (sessions and their
    // cookies come and go as in real use).
    const relogin = setInterval(() => {
      const i = Math.floor(Math.random() * cookies.length);
      signIn(origin, `bench-soak-${stamp}-${i}@example.com`, { register: false, password: PASSWORD }).then(
        (cookie) => {
          cookies[i] = cookie;
          logins++;
        },
        () => loginFailures++,
      );
    }, 3_000);
    // --snapshots: heap snapshots (written by the probe) after warm-up and at the end, to compare.
    const snapshot = () => flags.has("snapshots") && process.kill(pid, "SIGUSR2");
    const warm = setTimeout(() => {
      warmRss = memoryOf(pid).rss;
      snapshot();
      log(`after warm-up (${options.warmup} min): RSS ${fmt(warmRss / MB, 0)} MB`);
    }, options.warmup * 60_000);
    const progress = setInterval(() => log(`${fmt((Date.now() - t0) / 60_000, 1)} min: RSS ${fmt(memoryOf(pid).rss / MB, 0)} MB`), 60_000);
    try {
      result = await autocannon({
        url: origin,
        connections: options.connections,
        duration: options.minutes * 60,
        timeout: 30,
        // Merged into autocannon's own request (its host and port) every time.
        requests: [
          {
            setupRequest: (req) => {
              const made = next();
              return { ...req, ...made, headers: { ...req.headers, ...made.headers } };
            },
          },
        ],
      });
    } finally {
      clearInterval(sampler);
      clearInterval(relogin);
      clearTimeout(warm);
      clearInterval(progress);
    }
    sample("load");
    const endRss = memoryOf(pid).rss;
    log(`end of load: RSS ${fmt(endRss / MB, 0)} MB; idle ${options.idle} min`);
    const idleSampler = setInterval(() => sample("idle"), 5_000);
    await new Promise((r) => setTimeout(r, options.idle * 60_000));
    clearInterval(idleSampler);
    sample("idle");
    snapshot();
    await new Promise((r) => setTimeout(r, flags.has("snapshots") ? 20_000 : 0));
  } finally {
    const hwm = memoryOf(pid).hwm;
    await stopServer(server);
    running = undefined;
    if (backend === "postgres" && env.DATA_DIR) fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    samples.push({ at: -1, phase: "idle", rss: hwm }); // the high-water mark, reported apart
  }
  const busyAfter = busy();
  const hwm = samples.pop()!.rss;
  // The probe's heap split beside each RSS sample (the nearest line in time).
  const probe = readProbe(probeFile);
  fs.rmSync(probeFile, { force: true });
  for (const s of samples) {
    const at = t0 + s.at * 1000;
    const near = probe.reduce<(typeof probe)[number] | undefined>((best, row) => (!best || Math.abs(row.t - at) < Math.abs(best.t - at) ? row : best), undefined);
    if (near && Math.abs(near.t - at) < 6_000) Object.assign(s, { heapUsed: near.heapUsed, heapTotal: near.heapTotal, external: near.external, arrayBuffers: near.arrayBuffers });
  }
  return {
    backend,
    seed,
    startRss,
    warmRss,
    finalRss: samples[samples.length - 1].rss,
    hwm,
    samples,
    result: result!,
    logins,
    loginFailures,
    busy: describeBusy(busyBefore, busyAfter),
  };
}

type SoakReport = Awaited<ReturnType<typeof soak>>;

function render(r: SoakReport, options: { minutes: number; idle: number; warmup: number; connections: number; users: number }): string {
  const lines: string[] = [];
  const ratio = r.finalRss / r.warmRss;
  lines.push(`### ${r.backend} — ${options.minutes} min of signed-in load, then ${options.idle} min idle`);
  lines.push("");
  lines.push(
    `${r.seed.works.toLocaleString("en")} works (${r.seed.readable.length} with 5 chapters of 200 paragraphs for the reader); ${options.connections} connections, ` +
      `${options.users} signed-in readers, a new login every 3 s (${r.logins} logins, ${r.loginFailures} failed).`,
  );
  lines.push("");
  lines.push(r.busy);
  lines.push("");
  const res = r.result;
  const codes = Object.entries(res.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}: ${count}`)
    .join(", ");
  lines.push(
    `Requests: ${res.requests.total.toLocaleString("en")} (${fmt(res.requests.average, 0)}/s), p50 ${res.latency.p50} ms, p99 ${res.latency.p99} ms, ` +
      `errors ${res.errors}, timeouts ${res.timeouts}, non-2xx ${res.non2xx} (status codes ${codes}).`,
  );
  lines.push("");
  lines.push(
    `RSS: ${fmt(r.startRss / MB, 0)} MB at start, **${fmt(r.warmRss / MB, 0)} MB after warm-up** (${options.warmup} min), ` +
      `**${fmt(r.finalRss / MB, 0)} MB after the load and ${options.idle} min idle** (${fmt(ratio * 100, 0)}% of the warm-up level), peak ${fmt(r.hwm / MB, 0)} MB. ` +
      `Target ≤ 125%: ${ratio <= 1.25 ? "met" : "**missed**"}.`,
  );
  lines.push("");
  lines.push("| min | phase | RSS MB | heap used MB | heap total MB | external MB | array buffers MB |");
  lines.push("| --: | --- | --: | --: | --: | --: | --: |");
  // One row a minute, and the last sample.
  let nextAt = 0;
  r.samples.forEach((s, i) => {
    if (s.at < nextAt && i !== r.samples.length - 1) return;
    nextAt = Math.floor(s.at / 60 + 1) * 60;
    const mb = (v?: number) => (v === undefined ? "-" : fmt(v / MB, 0));
    lines.push(`| ${fmt(s.at / 60, 1)} | ${s.phase} | ${mb(s.rss)} | ${mb(s.heapUsed)} | ${mb(s.heapTotal)} | ${mb(s.external)} | ${mb(s.arrayBuffers)} |`);
  });
  lines.push("");
  return lines.join("\n");
}

async function main() {
  const only = flags.get("only");
  const backends: Backend[] = only === "postgres" || only === "pglite" ? [only] : ["postgres", "pglite"];
  const minutes = Number(flags.get("minutes") ?? 10);
  const options = {
    minutes,
    idle: Number(flags.get("idle") ?? 1),
    warmup: Math.min(1, minutes / 5),
    connections: Number(flags.get("connections") ?? 10),
    users: Number(flags.get("users") ?? 20),
  };
  if (!(minutes > 0) || !(options.idle >= 0)) throw new Error("--minutes must be > 0 and --idle >= 0");
  ensureBuild(ROOT, flags.has("build"), log);
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const sections: string[] = [];
  for (const backend of backends) {
    log(`\n== ${backend} ==`);
    sections.push(render(await soak(backend, options), options));
  }
  const report = [`Machine: ${describeMachine()}.`, "", ...sections].join("\n");
  console.log(report);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  fs.writeFileSync(path.join(RESULTS_DIR, `soak-${stamp}.md`), report);
  log(`\nsaved to bench/results/soak-${stamp}.md`);
}


// Last, so every declaration above is initialised before it runs.
if (flags.has("seed-child")) {
  await seedChild();
} else {
  await main();
}
