// npm run bench:import: a 10 MB GB18030 TXT with 3,000 chapters, decoded, parsed and
// stored through the publish path (publishWork), on PostgreSQL (default) or PGlite.
// Reports wall time and peak RSS per run, then the size of the reader's first HTML
// response for a 1 MB chapter (needs build/), then (PostgreSQL, needs build/) the same
// import posted to the production server's /submit several times in a row (a server's
// heap grows over repeated imports), published and as the wizard's preview step, with
// the server's CPU time, its RSS idle, before each run, at peak (sampled every 5 ms) and
// its high-water mark (VmHWM, which no sample can miss).
// Flags: --pglite, --runs=N (in-process runs), --server-runs=N (default 6),
// --server-only (skip the in-process runs and the reader).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { fullCorpusFile } from "./lib-corpus";
import { dropPgDatabase, ensurePgDatabase, pgUrlFor } from "./lib-db";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { freePort, memoryOf, sampleRss, startServer, stopServer } from "./lib-server";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const usePglite = args.has("pglite");
const runs = Number(args.get("runs") ?? 3);
const serverRuns = Number(args.get("server-runs") ?? 6);
const serverOnly = args.has("server-only");
const CHAPTERS = 3000;
const TARGET_BYTES = 10 * 1024 * 1024;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-import-"));

/** Chapters cut from the real novel (or any Chinese text), repeated to the target size. */
function buildGb18030File(): string {
  const corpusPath = fullCorpusFile() ?? path.resolve("tests/fixtures/corpus/xiyouji-excerpt.utf8.txt");
  const paragraphs = fs
    .readFileSync(corpusPath, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("####") && !l.startsWith("第"));
  // GB18030 uses 2 bytes per Chinese character: aim for TARGET_BYTES / 2 characters.
  const perChapter = Math.floor(TARGET_BYTES / 2 / CHAPTERS);
  const out: string[] = [];
  let p = 0;
  for (let c = 1; c <= CHAPTERS; c++) {
    out.push("####", `第${c}章　${paragraphs[p % paragraphs.length].slice(0, 12)}`);
    let len = 0;
    while (len < perChapter) {
      const para = paragraphs[p++ % paragraphs.length];
      out.push(`　　${para}`);
      len += para.length + 2;
    }
  }
  const utf8 = path.join(tmp, "novel.utf8.txt");
  const gb = path.join(tmp, "novel.gb18030.txt");
  fs.writeFileSync(utf8, out.join("\r\n"));
  execFileSync("iconv", ["-f", "UTF-8", "-t", "GB18030", "-o", gb, utf8]);
  return gb;
}

const machineBefore = busy();
const file = buildGb18030File();
const bytes = fs.readFileSync(file);
console.log(`TXT: ${(bytes.length / 1024 / 1024).toFixed(1)} MB GB18030, ${CHAPTERS} chapters`);

const dbName = "inkstone_bench_import";
if (usePglite) {
  process.env.PGLITE_DIR = path.join(tmp, "pglite");
  delete process.env.DATABASE_URL;
} else {
  await ensurePgDatabase(dbName, true);
  process.env.DATABASE_URL = pgUrlFor(dbName);
}
process.env.DATA_DIR = tmp;

const { closeDatabase } = await import("~/db/client.server");
const { register } = await import("~/server/identity/auth.server");
const { publishWork } = await import("~/server/studio/work-create.server");
const form = new FormData();
form.set("email", `bench-${Date.now()}@example.com`);
form.set("password", "bench-password");
const user = await register(form, "bench");

const results: { ms: number; peakMb: number; baseMb: number; chapters: number }[] = [];
for (let i = 0; i < (serverOnly ? 0 : runs); i++) {
  global.gc?.();
  const baseMb = process.memoryUsage().rss / 1024 / 1024;
  let peak = baseMb;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss / 1024 / 1024);
  }, 5);
  const t0 = performance.now();
  const work = await publishWork(
    user.id,
    { status: "completed", type: "multi_chapter", title: `导入测试${i + 1}`, description: "基准测试", rating: "all_ages", isAiGenerated: false, visibility: "public", separator: "####" },
    { txt: { name: "novel.txt", type: "text/plain", size: bytes.length, chunks: [bytes] }, cover: null },
  );
  const ms = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss / 1024 / 1024);
  results.push({ ms, peakMb: peak, baseMb, chapters: work.chapterCount });
}

if (!serverOnly) console.log(`\n| run | backend | chapters | wall time | RSS before | peak RSS |`);
if (!serverOnly) console.log(`| --- | --- | --- | --- | --- | --- |`);
results.forEach((r, i) =>
  console.log(`| ${i + 1} | ${usePglite ? "PGlite" : "PostgreSQL"} | ${r.chapters} | ${(r.ms / 1000).toFixed(2)} s | ${r.baseMb.toFixed(0)} MB | ${r.peakMb.toFixed(0)} MB |`),
);
console.log(`\nmax resident set of the whole process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

// The reader's first response for a 1 MB chapter (target: under 100 KB of HTML), rendered
// by the production build's request handler as a visitor sees it: paragraphs of about 80
// characters, and the worst case of one 1 MB line.
const buildEntry = path.resolve("build/server/index.js");
if (serverOnly) {
  // the in-process part is skipped
} else if (fs.existsSync(buildEntry)) {
  const { createWork } = await import("~/server/catalog/works.server");
  const { createRequestHandler } = await import("react-router");
  const handle = createRequestHandler(await import(buildEntry), "production");
  const MB = 1024 * 1024;
  const line = "天色将晚，行者引着唐僧在山前寻个宿处，只见那松林里隐隐有座庄院。" ;
  const variants = {
    "80-character paragraphs": Array.from({ length: Math.ceil(MB / 3 / 80) }, (_, i) => `第${i + 1}段。${line.repeat(3).slice(0, 75)}`).join("\n"),
    "one 1 MB line": line.repeat(Math.ceil(MB / 3 / line.length)),
  };
  console.log(`\n| chapter | chapter size (UTF-8) | first HTML response |`);
  console.log(`| --- | --- | --- |`);
  for (const [name, content] of Object.entries(variants)) {
    const work = await createWork(
      user.id,
      { status: "completed", type: "single_chapter", title: `长章节 ${name}`, description: "基准测试", rating: "all_ages", isAiGenerated: false, visibility: "public" },
      [{ title: "正文", content }],
      null,
    );
    const response = await handle(new Request(`http://localhost/works/${work.id}?chapter=1`));
    const html = Buffer.byteLength(await response.text());
    if (response.status !== 200) throw new Error(`reader answered ${response.status}`);
    console.log(`| ${name} | ${(Buffer.byteLength(content) / MB).toFixed(2)} MB | ${(html / 1024).toFixed(1)} KB |`);
  }
} else {
  console.log("\n(no build/: run `npx react-router build` to measure the reader's first response)");
}

await closeDatabase();

// The same file through the production server, as an author uploads it: register, log
// in, POST /submit as multipart form data, `serverRuns` times in a row on one server (a
// server's heap grows over repeated imports before it collects). Publish (the direct
// upload, 302) first, then on a fresh server the wizard's preview step (intent
// preview-txt, 200: parse and stage the chapters), which a JavaScript author's browser
// sends as soon as the file is chosen, then on another the no-JavaScript flow (preview,
// then publish the staged chapters by their token, without the file). PGlite is skipped: it cannot be open in this
// process and the server's at once.
async function throughServer(intent: "publish" | "preview-txt" | "preview-then-publish") {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // The server answers with a redirect or a page: read what it stored from the database.
  const pg = postgres(pgUrlFor(dbName), { max: 1, onnotice: () => {} });
  const storedChapters = async (title: string) => {
    if (intent === "preview-txt") {
      const [row] = await pg`select jsonb_array_length(chapters) as n from txt_imports order by created_at desc limit 1`;
      return row.n as number;
    }
    const [row] = await pg`select chapter_count, word_count from works where title = ${title}`;
    const [stored] = await pg`select count(*)::int as n from chapters c join works w on w.id = c.work_id where w.title = ${title}`;
    if (!row || row.chapter_count !== stored.n) throw new Error(`${title}: chapter_count ${row?.chapter_count}, rows ${stored.n}`);
    return row.chapter_count as number;
  };
  const server = await startServer({ cwd: path.resolve("."), env: { ...process.env, DATA_DIR: tmp }, port });
  try {
    const account = { email: `bench-server-${intent}-${Date.now()}@example.com`, password: "bench-password", redirectTo: "/" };
    const post = (to: string, body: URLSearchParams | FormData, cookie = "") =>
      fetch(`${origin}${to}`, { method: "POST", body, headers: { Origin: origin, Cookie: cookie }, redirect: "manual" });
    await post("/auth/register", new URLSearchParams(account));
    const login = await post("/auth/login", new URLSearchParams(account));
    const cookie = login.headers.getSetCookie()[0]?.split(";")[0];
    if (!cookie) throw new Error(`login failed: ${login.status}`);
    await new Promise((r) => setTimeout(r, 1000));
    const MB = 1024 * 1024;
    const cpuMs = () => {
      const fields = fs.readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ");
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
    };
    const what = { publish: "Publish (302)", "preview-txt": "Preview step (200)", "preview-then-publish": "Preview, then publish the staged chapters without the file (200, then 302: the no-JavaScript flow; peak over both requests)" };
    console.log(`\n${what[intent]} through the server; server RSS idle: ${(memoryOf(server.pid!).rss / MB).toFixed(0)} MB`);
    console.log(`\n| run | via | chapters | wall time | server CPU | server RSS before | server peak RSS (5 ms samples) | server VmHWM so far |`);
    console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |`);
    for (let i = 0; i < serverRuns; i++) {
      const title = `服务器导入${intent}${i + 1}`;
      const form = new FormData();
      const fields = { status: "completed", type: "multi_chapter", title, description: "基准测试", rating: "all_ages", visibility: "public", separator: "####" };
      for (const [k, v] of Object.entries(fields)) form.set(k, v);
      if (intent === "preview-txt") form.set("intent", intent);
      if (intent !== "preview-then-publish") form.set("txt", new File([bytes], "novel.txt", { type: "text/plain" }));
      const before = memoryOf(server.pid!).rss / MB;
      const cpu0 = cpuMs();
      const sampler = sampleRss(server.pid!, 5);
      const t0 = performance.now();
      if (intent === "preview-then-publish") {
        const preview = new FormData();
        preview.set("intent", "preview-txt");
        preview.set("separator", "####");
        preview.set("txt", new File([bytes], "novel.txt", { type: "text/plain" }));
        const html = await (await post("/submit", preview, cookie)).text();
        const token = /name="importToken" value="([^"]+)"/.exec(html)?.[1];
        if (!token) throw new Error("the preview page has no import token");
        form.set("importToken", token);
      }
      const response = await post("/submit", form, cookie);
      const body = await response.text();
      const ms = performance.now() - t0;
      const peak = sampler.stop() / MB;
      const cpu = cpuMs() - cpu0;
      if (response.status !== (intent === "preview-txt" ? 200 : 302)) throw new Error(`/submit answered ${response.status}: ${body.slice(0, 300)}`);
      const chapters = await storedChapters(title);
      const hwm = memoryOf(server.pid!).hwm / MB;
      console.log(`| ${i + 1} | POST /submit (${intent}) | ${chapters} | ${(ms / 1000).toFixed(2)} s | ${(cpu / 1000).toFixed(2)} s | ${before.toFixed(0)} MB | ${peak.toFixed(0)} MB | ${hwm.toFixed(0)} MB |`);
    }
  } finally {
    await stopServer(server);
    await pg.end({ timeout: 5 });
  }
}

if (!usePglite && fs.existsSync(buildEntry)) {
  await throughServer("publish");
  await throughServer("preview-txt");
  await throughServer("preview-then-publish");
}

if (!usePglite) await dropPgDatabase(dbName);
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`\n${describeMachine()}\n${describeBusy(machineBefore, busy())}`);
