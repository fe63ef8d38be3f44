// npm run bench:stream [-- --only=postgres|pglite --streams=20 --rounds=5 --chars=20000 --chunks=500 --delay=2 --ids-only --build | --app-dir=PATH]
//
// Streaming generation through the app versus straight from the test provider
// (tests/fakes/ai-provider.ts), with `streams` concurrent streams of `chars` characters
// in `chunks` chunks, `delay` ms apart. For each backend (PostgreSQL, PGlite): seed users
// with projects ready to generate (in a child process that closes the database before
// the server opens it), start the production server (node server.js) pointed at the
// test provider, then per round run the streams directly against the provider and then
// through POST /api/generate (posting the setting and the plot's text as the page does). Reported:
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
const PG_DATABASE = "inkstone_bench_stream";
const RESULTS_DIR = path.join(ROOT, "bench/results");

type Backend = "postgres" | "pglite";

const flags = parseFlags(process.argv.slice(2));
const log = (line: string) => console.error(line);
const STREAMS = Number(flags.get("streams") ?? 20);
const ROUNDS = Number(flags.get("rounds") ?? 5);
const CHARS = Number(flags.get("chars") ?? 20_000);
const CHUNKS = Number(flags.get("chunks") ?? 500);
const DELAY = Number(flags.get("delay") ?? 2);
/** --ids-only: post only projectId and plotId (as the benchmark did before 2026-11-22 06:00). */
const IDS_ONLY = flags.has("ids-only");

interface Writer {
  cookie: string;
  projectId: string;
  plotId: string;
  theme: string;
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
  const { register } = await import("~/server/auth.server");
  const { createUserSession } = await import("~/server/session.server");
  const writing = await import("~/server/writing.server");
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
      const setCookie = await createUserSession(new Request("http://127.0.0.1/"), user.id);
      writers.push({ cookie: setCookie.split(";")[0], projectId: project.id, plotId, theme });
    }
    fs.writeFileSync(flags.get("out")!, JSON.stringify(writers));
  } finally {
    await closeDatabase();
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

/**
 * One generation through POST /api/generate, sent and read as the page does: the form
 * carries the setting and the plot's current text (the previous round's output, so
 * unchanged after the warm-up round) besides the ids.
 */
async function viaApp(base: string, writer: Writer, content: string): Promise<Sample> {
  const body = new FormData();
  body.set("projectId", writer.projectId);
  body.set("plotId", writer.plotId);
  if (!IDS_ONLY) {
    body.set("theme", writer.theme);
    body.set("content", content);
  }
  const started = performance.now();
  const response = await fetch(`${base}/api/generate`, {
    method: "POST",
    headers: { Cookie: writer.cookie, Origin: base },
    body,
  });
  if (!response.ok) throw new Error(`/api/generate answered ${response.status}: ${await response.text()}`);
  let first = 0;
  let last = 0;
  let chars = 0;
  let done: { outputChars: number; charged: number; inputTokens: number; outputTokens: number; metering: string } | null = null;
  const parser = createParser({
    onEvent: (event) => {
      if (event.event === "text") {
        const now = performance.now();
        if (!first) first = now;
        last = now;
        chars += Array.from(JSON.parse(event.data) as string).length;
      } else if (event.event === "done") done = JSON.parse(event.data);
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
    summary.charged === summary.inputTokens + summary.outputTokens;
  return { ttfb: first - started, span: last - first, chars, ok };
}

interface Round {
  direct: Sample[];
  app: Sample[];
  directWall: number;
  appWall: number;
  /** CPU time (user + system) the server process used during the app streams. */
  serverCpu: number;
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
  let t = performance.now();
  const d = await Promise.all(writers.map(() => direct(fake)));
  const directWall = performance.now() - t;
  const cpu = cpuTimeMs(serverPid);
  t = performance.now();
  const a = await Promise.all(writers.map((w) => viaApp(base, w, content)));
  const appWall = performance.now() - t;
  return { direct: d, app: a, directWall, appWall, serverCpu: cpuTimeMs(serverPid) - cpu };
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
  app: SteadyRun;
  /** ms between two starts. */
  spacing: number;
}

const row = (label: string, xs: Sample[], aggregate: number) =>
  `| ${label} | ${fmt(p(xs.map((s) => s.ttfb), 50))} | ${fmt(p(xs.map((s) => s.ttfb), 90))} | ${fmt(Math.max(...xs.map((s) => s.ttfb)))} | ${fmt(p(xs.map(rate), 50), 0)} | ${fmt(p(xs.map(rate), 10), 0)} | ${fmt(aggregate, 0)} |`;

/** The table and the verdicts of one way of loading the server. */
function compare(d: Sample[], a: Sample[], dAgg: number, aAgg: number, serverCpuPerStream: number): string[] {
  const added = p(a.map((s) => s.ttfb), 50) - p(d.map((s) => s.ttfb), 50);
  const dRate = p(d.map(rate), 50);
  const aRate = p(a.map(rate), 50);
  const bad = a.filter((s) => !s.ok).length + d.filter((s) => !s.ok).length;
  return [
    `${a.length} app streams, ${bad} incomplete or wrongly charged.`,
    "",
    "| | TTFB p50 ms | TTFB p90 ms | TTFB max ms | per-stream chars/s p50 | per-stream chars/s p10 | aggregate chars/s |",
    "| --- | --: | --: | --: | --: | --: | --: |",
    row("direct", d, dAgg),
    row("through the app", a, aAgg),
    "",
    `- server CPU (user + system) per app stream: ${fmt(serverCpuPerStream)} ms, streaming included (clock ticks of 10 ms)`,
    `- added time to first byte at p50: ${fmt(added)} ms — target < 10 ms: ${added < 10 ? "met" : "**missed**"}`,
    `- sustained throughput, per stream p50: ${fmt((aRate / dRate) * 100, 0)}% of direct; aggregate: ${fmt((aAgg / dAgg) * 100, 0)}% — target ≥ 90%: ${aRate / dRate >= 0.9 ? "met" : "**missed**"}`,
    "",
  ];
}

function render(backend: Backend, rounds: Round[], steadyRuns: SteadyRuns, load: string): string {
  const aggregate = (r: Round[], key: "directWall" | "appWall") =>
    (r.length * STREAMS * CHARS) / (r.reduce((s, x) => s + x[key], 0) / 1000);
  const burst = rounds.flatMap((r) => r.app);
  const steadyAgg = (run: SteadyRun) => ((run.samples.length + 2 * STREAMS) * CHARS) / (run.wall / 1000);
  const lines = [
    `### ${backend}`,
    "",
    `${STREAMS} concurrent streams of ${CHARS.toLocaleString("en")} characters in ${CHUNKS} chunks, ${DELAY} ms apart, posting ${IDS_ONLY ? "only the ids" : "the ids, setting and plot text as the page does"}.`,
    "",
    load,
    "",
    `#### Steady: ${STREAMS} streams always in flight, a new one every ${fmt(steadyRuns.spacing)} ms (${ROUNDS} counted per client)`,
    "",
    ...compare(
      steadyRuns.direct.samples,
      steadyRuns.app.samples,
      steadyAgg(steadyRuns.direct),
      steadyAgg(steadyRuns.app),
      steadyRuns.app.serverCpu / (steadyRuns.app.samples.length + 2 * STREAMS),
    ),
    `#### Burst: all ${STREAMS} started in the same millisecond, ${ROUNDS} rounds (after one warm-up round)`,
    "",
    ...compare(
      rounds.flatMap((r) => r.direct),
      burst,
      aggregate(rounds, "directWall"),
      aggregate(rounds, "appWall"),
      rounds.reduce((s, r) => s + r.serverCpu, 0) / burst.length,
    ),
  ];
  return lines.join("\n");
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
            `round ${i}: direct TTFB p50 ${fmt(p(r.direct.map((s) => s.ttfb), 50))} ms, app ${fmt(p(r.app.map((s) => s.ttfb), 50))} ms; ` +
              `chars/s p50 direct ${fmt(p(r.direct.map(rate), 50), 0)}, app ${fmt(p(r.app.map(rate), 50), 0)}`,
          );
        }
        // Steady load: each stream's start spread over one direct stream's duration.
        const directStreams = rounds.flatMap((r) => r.direct);
        const duration = p(directStreams.map((x) => x.ttfb + x.span), 50);
        log(`steady load: ${STREAMS} clients, a start every ${fmt(duration / STREAMS)} ms`);
        const steadyDirect = await steady(() => direct(fake), STREAMS, duration);
        const steadyApp = await steady((i) => viaApp(base, writers[i], text), STREAMS, duration, server.pid!);
        steadyRuns = { direct: steadyDirect, app: steadyApp, spacing: duration / STREAMS };
        after = busy();
      } finally {
        await stopServer(server);
        fs.rmSync(dataDir, { recursive: true, force: true });
        if (backend === "postgres") await dropPgDatabase(PG_DATABASE);
      }
      sections.push(render(backend, rounds, steadyRuns!, describeBusy(before, after)));
    }
  } finally {
    await fake.close();
    fs.rmSync(appDir, { recursive: true, force: true });
  }
  const report = [`Machine: ${describeMachine()}, ${new Date().toISOString()}.`, "", ...sections].join("\n");
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
