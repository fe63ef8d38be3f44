// npm run bench:stream [-- --only=postgres|pglite --endpoints=generate,continue --streams=20 --rounds=5 --chars=20000 --chunks=500 --delay=2 --ids-only --database=NAME --build | --app-dir=PATH]
//
// Streaming generation through the app versus straight from the test provider
// (tests/fakes/ai-provider.ts), with `streams` concurrent streams of `chars` characters
// in `chunks` chunks, `delay` ms apart. For each backend (PostgreSQL, PGlite): seed users
// with projects ready to generate and a serial ready to continue (in a child process that
// closes the database before the server opens it), start the production server (node
// server.js) pointed at the test provider, then per round run the streams directly
// against the provider, then through POST /api/generate (free writing: posting the
// setting and the plot's text as the page does), then through POST /api/continue (连载续写:
// the work, chapter, plan and a fresh request key, as /series-writing posts them; the
// serial has SERIAL_CHAPTERS published chapters with summaries, two summarised volumes, a
// bible of SERIAL_ENTITIES entities with aliases and facts, open threads, and a plan
// naming some of them, so the context is assembled as for a real serial). Reported, per endpoint:
//   - time to first byte (request sent to the first text arriving), and what the app adds
//     at p50 (target under 10 ms);
//   - sustained throughput: characters per second from the first to the last text of a
//     stream (target at least 90% of direct), and the round's aggregate.
// Every app stream is checked to deliver all the text and to end with its charge.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createParser } from "eventsource-parser";
import { StreamTextDecoder } from "~/server/ai/sse.server";
import { startFakeAiProvider, storyText, type FakeAiProvider } from "../tests/fakes/ai-provider";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor, runSelf } from "./lib-db";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { freePort, startServer, stopServer } from "./lib-server";

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SCRIPT), "..");
const RESULTS_DIR = path.join(ROOT, "bench/results");

type Backend = "postgres" | "pglite";

const flags = parseFlags(process.argv.slice(2));
/** --database=NAME: the throwaway PostgreSQL database (created and dropped by the run). */
const PG_DATABASE = flags.get("database") ?? "inkstone_bench_stream";
const log = (line: string) => console.error(line);
const STREAMS = Number(flags.get("streams") ?? 20);
const ROUNDS = Number(flags.get("rounds") ?? 5);
const CHARS = Number(flags.get("chars") ?? 20_000);
const CHUNKS = Number(flags.get("chunks") ?? 500);
const DELAY = Number(flags.get("delay") ?? 2);
/** --ids-only: post only projectId and plotId (as the benchmark did before 2026-11-22 06:00). */
const IDS_ONLY = flags.has("ids-only");
type Endpoint = "generate" | "continue";
/** --endpoints=generate,continue (default both): which app routes the rounds stream through. */
const ENDPOINTS = (flags.get("endpoints") ?? "generate,continue").split(",").filter((e): e is Endpoint => e === "generate" || e === "continue");
/** The serial each writer continues: published chapters (each summarised), bible entities (3 facts each), open threads. */
const SERIAL_CHAPTERS = 60;
const SERIAL_ENTITIES = 30;
const SERIAL_THREADS = 6;

interface Writer {
  cookie: string;
  projectId: string;
  plotId: string;
  theme: string;
  /** The serial to continue: its id, the next chapter's number, the plan typed for it. */
  workId: number;
  chapter: number;
  plan: string;
}

interface Sample {
  ttfb: number;
  /** First to last text, ms. */
  span: number;
  chars: number;
  ok: boolean;
}

/** Child process: users with tokens and a project ready to generate, and the provider configured. */
async function seedChild() {
  const { db, closeDatabase } = await import("~/db/client.server");
  const { eq } = await import("drizzle-orm");
  const { profiles } = await import("~/db/schema");
  const { register } = await import("~/server/identity/auth.server");
  const { createUserSession } = await import("~/server/identity/session.server");
  const writing = await import("~/server/ai/writing-projects.server");
  const { createWork } = await import("~/server/catalog/works.server");
  const { chapters } = await import("~/db/schema");
  const { asc } = await import("drizzle-orm");
  const bible = await import("~/server/studio/bible.server");
  const { createVolume } = await import("~/server/studio/chapters.server");
  const { configureFakeProvider } = await import("../tests/fakes/ai-provider-config");
  try {
    await configureFakeProvider(flags.get("endpoint")!, { db });
    const writers: Writer[] = [];
    for (let i = 0; i < STREAMS; i++) {
      const form = new FormData();
      form.set("email", `bench-stream-${Date.now()}-${i}@example.com`);
      form.set("password", "bench-password-123");
      const user = await register(form, `10.9.${Math.floor(i / 250)}.${i % 250}`);
      await db.update(profiles).set({ tokens: 100_000_000 }).where(eq(profiles.id, user.id));
      const project = await writing.createProject(user.id, "free", "测速");
      const theme = "测速用的整体设定。";
      await writing.saveTheme(user.id, project.id, theme);
      const character = await writing.saveCharacter(user.id, project.id, { name: "甲", personality: "乙", appearance: "丙", other: "" });
      const plotId = await writing.savePlot(user.id, project.id, {
        title: "测速情节",
        summary: "一段很长的情节。",
        environment: "某地",
        expectedWords: 5_000,
        characterIds: [character.id],
        additionalNotes: "",
      });
      const serial = await seedSerial(user.id);
      const setCookie = await createUserSession(new Request("http://127.0.0.1/"), user.id);
      writers.push({ cookie: setCookie.split(";")[0], projectId: project.id, plotId, theme, ...serial });
    }
    fs.writeFileSync(flags.get("out")!, JSON.stringify(writers));
  } finally {
    await closeDatabase();
  }

  /**
   * A serial as an author of a few months would have it, written through the domain
   * functions the studio uses: SERIAL_CHAPTERS published chapters of ~3,000 characters
   * (each ending with two characters' names), each summarised, two volumes with summaries,
   * SERIAL_ENTITIES bible entities (people, places, items, factions) with two aliases and
   * three facts each (some ranged), SERIAL_THREADS open threads (one overdue) and one
   * resolved, and a plan for the next chapter naming three entities.
   */
  async function seedSerial(userId: string) {
    const person = (k: number) => `角色${String.fromCharCode(0x7532 + k)}`; // 角色甲, 角色申...: distinct, no name inside another
    const body = (n: number) =>
      `${"夜色沉沉，风从河面吹来，灯火在远处摇晃。".repeat(140)}\n${person(n % SERIAL_ENTITIES)}看着${person((n * 7) % SERIAL_ENTITIES)}，没有说话。`;
    const work = await createWork(
      userId,
      { title: "测速连载", description: "测速用的连载", rating: "all_ages", isAiGenerated: false, visibility: "public", type: "series", status: "ongoing" },
      Array.from({ length: SERIAL_CHAPTERS }, (_, i) => ({ title: `第${i + 1}章`, content: body(i + 1) })),
      null,
    );
    const rows = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(asc(chapters.position));
    for (const [i, row] of rows.entries()) {
      await bible.saveChapterSummary(userId, work.id, row.id, `第${i + 1}章：${person(i % SERIAL_ENTITIES)}与${person((i * 7) % SERIAL_ENTITIES)}在河边相遇，${"局势一步步收紧，".repeat(6)}章末留下悬念。`);
    }
    for (const [v, before] of [rows[0].id, rows[SERIAL_CHAPTERS / 2].id].entries()) {
      const volumeId = await createVolume(userId, work.id, `第${v + 1}卷`, before);
      await bible.saveVolumeSummary(userId, work.id, volumeId, `第${v + 1}卷：${"众人离开小镇，各自踏上旅途，旧事渐渐浮出水面。".repeat(5)}`);
    }
    const kinds = ["character", "place", "item", "faction"] as const;
    for (let k = 0; k < SERIAL_ENTITIES; k++) {
      const name = person(k);
      const entityId = await bible.saveEntity(userId, work.id, { kind: kinds[k % 4], name, aliases: [`阿${name.slice(2)}${k}`, `${name}君`], description: `${name}的设定简介，${"性格沉稳，来历成谜。".repeat(3)}` });
      for (let f = 0; f < 3; f++) {
        const from = f === 0 ? null : 1 + ((k * 7 + f * 13) % SERIAL_CHAPTERS);
        await bible.saveFact(userId, work.id, { entityId, content: `事实${f + 1}：${name}${"在某一章之后改变了立场，".repeat(3)}`, fromChapter: from, untilChapter: f === 2 ? SERIAL_CHAPTERS + 20 : null });
      }
    }
    for (let t = 0; t < SERIAL_THREADS + 1; t++) {
      const threadId = await bible.saveThread(userId, work.id, { title: `伏笔${t + 1}`, note: `${person(t)}留下的线索，${"尚未解开。".repeat(4)}`, plantedChapter: 5 + t * 8, dueChapter: t === 0 ? 50 : t % 2 ? null : SERIAL_CHAPTERS + 5 * t });
      if (t === SERIAL_THREADS) await bible.setThreadStatus(userId, work.id, threadId, "resolved");
    }
    const plan = `${person(3)}和${person(11)}在渡口重逢，${person(20)}带来了北方的消息。${"两人商量下一步的去向，最后决定连夜出发。".repeat(5)}`;
    return { workId: work.id, chapter: SERIAL_CHAPTERS + 1, plan };
  }
}

/** One stream straight from the provider, read the way the app reads it. */
async function direct(fake: FakeAiProvider): Promise<Sample> {
  const started = performance.now();
  const response = await fetch(`${fake.openaiEndpoint}/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: "Bearer bench" },
    body: JSON.stringify({ model: "bench", stream: true, messages: [{ role: "user", content: "bench" }] }),
  });
  const decoder = new StreamTextDecoder("openai");
  const reader = response.body!.getReader();
  let first = 0;
  let last = 0;
  let chars = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const text of decoder.push(value)) {
      const now = performance.now();
      if (!first) first = now;
      last = now;
      chars += Array.from(text).length;
    }
  }
  decoder.end();
  return { ttfb: first - started, span: last - first, chars, ok: chars === CHARS };
}

/** A fresh one-time request key, as /series-writing makes one for each 生成下一章. */
const freshKey = () => Array.from(crypto.getRandomValues(new Uint8Array(18)), (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * The form each endpoint's page posts. /api/generate: the ids, and the setting and the
 * plot's current text (the previous round's output, so unchanged after the warm-up
 * round). /api/continue: the work, the chapter, the plan and a new request key (a key
 * is spent by its first use).
 */
function formFor(endpoint: Endpoint, writer: Writer, content: string): FormData {
  const body = new FormData();
  if (endpoint === "continue") {
    body.set("workId", String(writer.workId));
    body.set("chapter", String(writer.chapter));
    body.set("requestKey", freshKey());
    body.set("plan", writer.plan);
    return body;
  }
  body.set("projectId", writer.projectId);
  body.set("plotId", writer.plotId);
  if (!IDS_ONLY) {
    body.set("theme", writer.theme);
    body.set("content", content);
  }
  return body;
}

/** One generation through POST /api/generate or /api/continue, sent and read as the page does. */
async function viaApp(base: string, endpoint: Endpoint, writer: Writer, content: string): Promise<Sample> {
  const body = formFor(endpoint, writer, content);
  const started = performance.now();
  const response = await fetch(`${base}/api/${endpoint}`, {
    method: "POST",
    headers: { Cookie: writer.cookie, Origin: base },
    body,
  });
  if (!response.ok) throw new Error(`/api/${endpoint} answered ${response.status}: ${await response.text()}`);
  let first = 0;
  let last = 0;
  let chars = 0;
  let done: { outputChars: number; charged: number; inputTokens: number; outputTokens: number; metering: string } | null = null;
  let startedChapter: number | undefined;
  const parser = createParser({
    onEvent: (event) => {
      if (event.event === "text") {
        const now = performance.now();
        if (!first) first = now;
        last = now;
        chars += Array.from(JSON.parse(event.data) as string).length;
      } else if (event.event === "start") startedChapter = (JSON.parse(event.data) as { chapter?: number }).chapter;
      else if (event.event === "done") done = JSON.parse(event.data);
      else if (event.event === "error") throw new Error(`generation failed: ${event.data}`);
    },
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done: end, value } = await reader.read();
    if (end) break;
    parser.feed(value);
  }
  const summary = done as { outputChars: number; charged: number; inputTokens: number; outputTokens: number; metering: string } | null;
  // Charged on the usage the test provider reports (1 token per 2 characters; decision 125).
  const ok =
    chars === CHARS &&
    summary?.outputChars === CHARS &&
    summary.metering === "actual" &&
    summary.outputTokens === Math.ceil(CHARS / 2) &&
    summary.charged === summary.inputTokens + summary.outputTokens &&
    (endpoint === "generate" || startedChapter === writer.chapter);
  return { ttfb: first - started, span: last - first, chars, ok };
}

interface AppRound {
  samples: Sample[];
  wall: number;
  /** CPU time (user + system) the server process used during the app streams. */
  serverCpu: number;
}

interface Round {
  direct: Sample[];
  directWall: number;
  /** Per endpoint, run one after the other (each against the same direct streams). */
  app: Partial<Record<Endpoint, AppRound>>;
}

/**
 * CPU time a process has used so far, in ms (Linux /proc; clock ticks of 10 ms). Unlike
 * latencies, it hardly depends on what else runs on the machine.
 */
function cpuTimeMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function round(fake: FakeAiProvider, base: string, writers: Writer[], content: string, serverPid: number): Promise<Round> {
  const t = performance.now();
  const d = await Promise.all(writers.map(() => direct(fake)));
  const directWall = performance.now() - t;
  const app: Round["app"] = {};
  for (const endpoint of ENDPOINTS) {
    const cpu = cpuTimeMs(serverPid);
    const started = performance.now();
    const samples = await Promise.all(writers.map((w) => viaApp(base, endpoint, w, content)));
    app[endpoint] = { samples, wall: performance.now() - started, serverCpu: cpuTimeMs(serverPid) - cpu };
  }
  return { direct: d, directWall, app };
}

/**
 * Steady load: `streams` clients, each running streams back to back, their first starts
 * spread evenly over one stream's duration, so that 20 streams are always in flight and a
 * new one starts every `duration / streams` ms (as when 20 writers are generating, not
 * pressing 生成 in the same millisecond). Each client runs `rounds + 2` streams; its first
 * and last are not counted (fewer than `streams` may be in flight then).
 */
async function steady(run: (i: number) => Promise<Sample>, count: number, duration: number, serverPid?: number) {
  const spacing = duration / count;
  const cpu = serverPid ? cpuTimeMs(serverPid) : 0;
  const started = performance.now();
  const perClient = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * spacing));
      const samples: Sample[] = [];
      for (let k = 0; k < ROUNDS + 2; k++) samples.push(await run(i));
      return samples.slice(1, -1);
    }),
  );
  const wall = performance.now() - started;
  return { samples: perClient.flat(), wall, serverCpu: serverPid ? cpuTimeMs(serverPid) - cpu : 0 };
}

function ensureBuild() {
  if (flags.has("app-dir")) return;
  const built = fs.existsSync(path.join(ROOT, "build/server/index.js"));
  if (built && !flags.has("build")) {
    log("using the existing build/ (pass --build to rebuild)");
    return;
  }
  log("building: npx react-router build");
  const r = spawnSync("npx", ["react-router", "build"], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) throw new Error("react-router build failed");
}

/**
 * A private copy of the build, server.js and server/ (node_modules and migrations linked), so a
 * rebuild by someone else during the run cannot pull the server out from under it.
 */
function snapshotBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-stream-app-"));
  // --app-dir=PATH runs another copy of the app (build/, server/, server.js, package.json),
  // e.g. one saved before a change, to compare before and after on the same machine state.
  const from = flags.get("app-dir") ?? ROOT;
  for (const sub of ["build", "server"]) fs.cpSync(path.join(from, sub), path.join(dir, sub), { recursive: true });
  for (const file of ["server.js", "package.json"]) fs.copyFileSync(path.join(from, file), path.join(dir, file));
  for (const link of ["node_modules", "drizzle"]) fs.symlinkSync(path.join(ROOT, link), path.join(dir, link));
  return dir;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const p = (xs: number[], q: number) => percentile(sorted(xs), q);
const rate = (s: Sample) => (s.span > 0 ? (s.chars / s.span) * 1000 : NaN);

interface SteadyRun {
  samples: Sample[];
  wall: number;
  serverCpu: number;
}

interface SteadyRuns {
  direct: SteadyRun;
  app: Partial<Record<Endpoint, SteadyRun>>;
  /** ms between two starts. */
  spacing: number;
}

const ROUTE_LABEL: Record<Endpoint, string> = { generate: "POST /api/generate", continue: "POST /api/continue" };

const row = (label: string, xs: Sample[], aggregate: number) =>
  `| ${label} | ${fmt(p(xs.map((s) => s.ttfb), 50))} | ${fmt(p(xs.map((s) => s.ttfb), 90))} | ${fmt(Math.max(...xs.map((s) => s.ttfb)))} | ${fmt(p(xs.map(rate), 50), 0)} | ${fmt(p(xs.map(rate), 10), 0)} | ${fmt(aggregate, 0)} |`;

interface AppResult {
  endpoint: Endpoint;
  samples: Sample[];
  aggregate: number;
  serverCpuPerStream: number;
}

/** Issue 35 part 4: what the app may add to the provider's first byte, at steady load and when all streams start at once. */
const ADDED_TTFB_TARGET_MS = { steady: 10, burst: 50 } as const;

/** One line of the summary table: what an endpoint adds under one way of loading the server. */
interface Verdict {
  backend: Backend;
  load: "steady" | "burst";
  endpoint: Endpoint;
  addedTtfb: number;
  perStream: number;
  aggregate: number;
  bad: number;
}

/** The table and the verdicts of one way of loading the server, every endpoint against the same direct streams. */
function compare(backend: Backend, load: Verdict["load"], d: Sample[], dAgg: number, apps: AppResult[], verdicts: Verdict[]): string[] {
  const dRate = p(d.map(rate), 50);
  const lines = [
    "| | TTFB p50 ms | TTFB p90 ms | TTFB max ms | per-stream chars/s p50 | per-stream chars/s p10 | aggregate chars/s |",
    "| --- | --: | --: | --: | --: | --: | --: |",
    row("direct", d, dAgg),
    ...apps.map((a) => row(`through ${ROUTE_LABEL[a.endpoint]}`, a.samples, a.aggregate)),
    "",
  ];
  for (const a of apps) {
    const added = p(a.samples.map((s) => s.ttfb), 50) - p(d.map((s) => s.ttfb), 50);
    const aRate = p(a.samples.map(rate), 50);
    const bad = a.samples.filter((s) => !s.ok).length + d.filter((s) => !s.ok).length;
    verdicts.push({ backend, load, endpoint: a.endpoint, addedTtfb: added, perStream: aRate / dRate, aggregate: a.aggregate / dAgg, bad });
    lines.push(
      `${ROUTE_LABEL[a.endpoint]}: ${a.samples.length} app streams, ${bad} incomplete or wrongly charged; server CPU (user + system) per stream ${fmt(a.serverCpuPerStream)} ms, streaming included (clock ticks of 10 ms)`,
      `- added time to first byte at p50: ${fmt(added)} ms — target < ${ADDED_TTFB_TARGET_MS[load]} ms: ${added < ADDED_TTFB_TARGET_MS[load] ? "met" : "**missed**"}`,
      `- sustained throughput, per stream p50: ${fmt((aRate / dRate) * 100, 0)}% of direct; aggregate: ${fmt((a.aggregate / dAgg) * 100, 0)}% — target ≥ 90%: ${aRate / dRate >= 0.9 ? "met" : "**missed**"}`,
      "",
    );
  }
  return lines;
}

function render(backend: Backend, rounds: Round[], steadyRuns: SteadyRuns, load: string, verdicts: Verdict[]): string {
  const rate = (walls: number[]) => (walls.length * STREAMS * CHARS) / (walls.reduce((s, x) => s + x, 0) / 1000);
  const steadyAgg = (run: SteadyRun) => ((run.samples.length + 2 * STREAMS) * CHARS) / (run.wall / 1000);
  const steadyApps: AppResult[] = ENDPOINTS.map((endpoint) => {
    const run = steadyRuns.app[endpoint]!;
    return { endpoint, samples: run.samples, aggregate: steadyAgg(run), serverCpuPerStream: run.serverCpu / (run.samples.length + 2 * STREAMS) };
  });
  const burstApps: AppResult[] = ENDPOINTS.map((endpoint) => {
    const runs = rounds.map((r) => r.app[endpoint]!);
    const samples = runs.flatMap((r) => r.samples);
    return { endpoint, samples, aggregate: rate(runs.map((r) => r.wall)), serverCpuPerStream: runs.reduce((s, r) => s + r.serverCpu, 0) / samples.length };
  });
  const posting = ENDPOINTS.map((e) =>
    e === "generate"
      ? `/api/generate ${IDS_ONLY ? "only the ids" : "the ids, setting and plot text as the page does"}`
      : `/api/continue the work, chapter ${SERIAL_CHAPTERS + 1}, the plan and a fresh request key as /series-writing does (a serial of ${SERIAL_CHAPTERS} summarised chapters, ${SERIAL_ENTITIES} entities with 3 facts each, ${SERIAL_THREADS} open threads)`,
  );
  const lines = [
    `### ${backend}`,
    "",
    `${STREAMS} concurrent streams of ${CHARS.toLocaleString("en")} characters in ${CHUNKS} chunks, ${DELAY} ms apart, posting to ${posting.join("; to ")}. The endpoints take turns, never at once.`,
    "",
    load,
    "",
    `#### Steady: ${STREAMS} streams always in flight, a new one every ${fmt(steadyRuns.spacing)} ms (${ROUNDS} counted per client)`,
    "",
    ...compare(backend, "steady", steadyRuns.direct.samples, steadyAgg(steadyRuns.direct), steadyApps, verdicts),
    `#### Burst: all ${STREAMS} started in the same millisecond, ${ROUNDS} rounds (after one warm-up round)`,
    "",
    ...compare(backend, "burst", rounds.flatMap((r) => r.direct), rate(rounds.map((r) => r.directWall)), burstApps, verdicts),
  ];
  return lines.join("\n");
}

function summaryTable(verdicts: Verdict[]): string {
  return [
    "| backend | load | endpoint | TTFB added p50 ms (< 10 steady, < 50 burst) | per-stream throughput, % of direct (≥ 90) | aggregate, % of direct | bad streams |",
    "| --- | --- | --- | --: | --: | --: | --: |",
    ...verdicts.map(
      (v) =>
        `| ${v.backend} | ${v.load} | ${ROUTE_LABEL[v.endpoint]} | ${fmt(v.addedTtfb)}${v.addedTtfb < ADDED_TTFB_TARGET_MS[v.load] ? "" : " **missed**"} | ${fmt(v.perStream * 100, 0)}${v.perStream >= 0.9 ? "" : " **missed**"} | ${fmt(v.aggregate * 100, 0)} | ${v.bad} |`,
    ),
    "",
  ].join("\n");
}

async function main() {
  const only = flags.get("only");
  const backends: Backend[] = only === "postgres" || only === "pglite" ? [only] : ["postgres", "pglite"];
  ensureBuild();
  const appDir = snapshotBuild();
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const text = storyText(CHARS);
  const fake = await startFakeAiProvider({ defaults: { text, chunkCount: CHUNKS, delayMs: DELAY } });
  const sections: string[] = [];
  const verdicts: Verdict[] = [];
  try {
    for (const backend of backends) {
      log(`\n== ${backend} ==`);
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production" };
      delete env.PGLITE_DIR;
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-stream-"));
      env.DATA_DIR = dataDir;
      if (backend === "postgres") {
        await ensurePgDatabase(PG_DATABASE, true);
        env.DATABASE_URL = pgUrlFor(PG_DATABASE);
      } else {
        delete env.DATABASE_URL;
      }
      const out = path.join(dataDir, "writers.json");
      await runSelf(SCRIPT, ["--seed-child", `--out=${out}`, `--endpoint=${fake.openaiEndpoint}`, `--streams=${STREAMS}`], env);
      const writers = JSON.parse(fs.readFileSync(out, "utf8")) as Writer[];
      const port = await freePort();
      const server = await startServer({ cwd: appDir, env, port, logFile: path.join(RESULTS_DIR, "stream-server.log") });
      const base = `http://127.0.0.1:${port}`;
      const rounds: Round[] = [];
      let steadyRuns: SteadyRuns | undefined;
      const before = busy();
      let after = before;
      try {
        log("warm-up round");
        await round(fake, base, writers, text, server.pid!);
        for (let i = 1; i <= ROUNDS; i++) {
          const r = await round(fake, base, writers, text, server.pid!);
          rounds.push(r);
          log(
            `round ${i}: TTFB p50 direct ${fmt(p(r.direct.map((s) => s.ttfb), 50))} ms, ` +
              ENDPOINTS.map((e) => `${e} ${fmt(p(r.app[e]!.samples.map((s) => s.ttfb), 50))} ms`).join(", ") +
              `; chars/s p50 direct ${fmt(p(r.direct.map(rate), 50), 0)}, ` +
              ENDPOINTS.map((e) => `${e} ${fmt(p(r.app[e]!.samples.map(rate), 50), 0)}`).join(", "),
          );
        }
        // Steady load: each stream's start spread over one direct stream's duration.
        const directStreams = rounds.flatMap((r) => r.direct);
        const duration = p(directStreams.map((x) => x.ttfb + x.span), 50);
        log(`steady load: ${STREAMS} clients, a start every ${fmt(duration / STREAMS)} ms`);
        const steadyDirect = await steady(() => direct(fake), STREAMS, duration);
        const steadyApp: SteadyRuns["app"] = {};
        for (const endpoint of ENDPOINTS) steadyApp[endpoint] = await steady((i) => viaApp(base, endpoint, writers[i], text), STREAMS, duration, server.pid!);
        steadyRuns = { direct: steadyDirect, app: steadyApp, spacing: duration / STREAMS };
        after = busy();
      } finally {
        await stopServer(server);
        fs.rmSync(dataDir, { recursive: true, force: true });
        if (backend === "postgres") await dropPgDatabase(PG_DATABASE);
      }
      sections.push(render(backend, rounds, steadyRuns!, describeBusy(before, after), verdicts));
    }
  } finally {
    await fake.close();
    fs.rmSync(appDir, { recursive: true, force: true });
  }
  const report = [`Machine: ${describeMachine()}, ${new Date().toISOString()}.`, "", summaryTable(verdicts), ...sections].join("\n");
  console.log(report);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  fs.writeFileSync(path.join(RESULTS_DIR, `stream-${stamp}.md`), report);
  log(`\nsaved to bench/results/stream-${stamp}.md`);
}

if (flags.has("seed-child")) {
  await seedChild();
} else {
  await main();
}
