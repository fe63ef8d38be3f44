// npm run bench:author-export [-- --runs=3 --chapters=3000 --build --epubcheck]
//
// The author's own downloads (/works/:id/export.epub and .txt, decision 097/098) of a
// 3,000-chapter work (bench:studio's work: about 5 KB of text a chapter, 15 MB in all)
// with 30 volumes and a cover, from the production server (node server.js) on
// PostgreSQL, signed in as its author: time to the first byte, total time, bytes, and
// the server's resident memory (sampled every 10 ms) before and at its peak. The TXT is
// the anchor: it is the same database read with nothing to build, so EPUB time / TXT
// time is what the book costs. Then the reader's table of contents of that work
// (/works/:id, the visitor's and the signed-in reader's first HTML response) against
// its budget of 100 KB. --epubcheck runs epubcheck on the last EPUB (about a minute).
// --chapters=9000 (a 45 MB work) shows that the server's memory does not grow with the book.
// Targets: server peak growth bounded (not the size of the book: under 100 MB above idle
// for a 15 MB work), EPUB within 3x of the TXT, table of contents under 100 KB.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, pgUrlFor } from "./lib-db";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { ensureBuild, freePort, memoryOf, sampleRss, signIn, startServer, stopServer } from "./lib-server";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const flags = parseFlags(process.argv.slice(2));
const runs = Number(flags.get("runs") ?? 3);
const CHAPTERS = Number(flags.get("chapters") ?? 3000);
const VOLUMES = 30;
const dbName = "inkstone_bench_author_export";
const log = (line: string) => console.error(line);
const MB = 2 ** 20;

const machineBefore = busy();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-author-export-"));
process.env.DATA_DIR = tmp;
await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);

// ---- The work, through the domain functions (as bench:studio builds it) ---------------
const email = `bench-author-export-${Date.now()}@example.com`;
const password = "bench-password-1";
let workId: number;
{
  const { closeDatabase, db } = await import("~/db/client.server");
  const { register } = await import("~/server/identity/auth.server");
  const { createWork } = await import("~/server/catalog/works.server");
  const { createVolume } = await import("~/server/studio/chapters.server");
  const { storeCover } = await import("~/server/platform/images.server");
  const { chapters, works } = await import("~/db/schema");
  const { asc, eq, sql } = await import("drizzle-orm");
  const form = new FormData();
  form.set("email", email);
  form.set("password", password);
  const user = await register(form, "bench");
  const paragraph = "大圣在花果山上，与群猴操演武艺，又访得四海龙王，求取兵器。".repeat(60);
  log(`seeding ${CHAPTERS} chapters, ${VOLUMES} volumes and a cover...`);
  const work = await createWork(
    user.id,
    { title: "基准长篇：导出", description: "bench:author-export", type: "multi_chapter", status: "completed", visibility: "public", rating: "all_ages", isAiGenerated: false },
    Array.from({ length: CHAPTERS }, (_, i) => ({ title: `第${i + 1}章 花果山`, content: `${paragraph}\n${i}` })),
    null,
  );
  const rows = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(asc(chapters.position));
  for (let v = 0; v < VOLUMES; v++) await createVolume(user.id, work.id, `第${v + 1}卷`, rows[Math.floor((v * CHAPTERS) / VOLUMES)].id);
  const png = await sharp({ create: { width: 600, height: 800, channels: 3, background: "#4a7" } }).png().toBuffer();
  await db.update(works).set({ coverUrl: await storeCover(user.id, png) }).where(eq(works.id, work.id));
  await db.execute(sql`analyze chapters`);
  workId = work.id;
  await closeDatabase();
}

ensureBuild(ROOT, flags.has("build"), log);
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const server = await startServer({ cwd: ROOT, env: { ...process.env, DATABASE_URL: pgUrlFor(dbName), DATA_DIR: tmp }, port });
const pid = server.pid!;

interface Download {
  status: number;
  bytes: number;
  firstByteMs: number;
  ms: number;
  beforeMb: number;
  peakMb: number;
}

async function download(pathname: string, cookie: string, saveTo?: string): Promise<Download> {
  const beforeMb = memoryOf(pid).rss / MB;
  const sampler = sampleRss(pid, 10);
  const t0 = performance.now();
  const response = await fetch(`${origin}${pathname}`, { headers: { Cookie: cookie } });
  let firstByteMs = 0;
  let bytes = 0;
  const out = saveTo ? fs.createWriteStream(saveTo) : null;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByteMs = performance.now() - t0;
    bytes += chunk.byteLength;
    out?.write(chunk);
  }
  const ms = performance.now() - t0;
  if (out) await new Promise((resolve) => out.end(resolve));
  return { status: response.status, bytes, firstByteMs, ms, beforeMb, peakMb: sampler.stop() / MB };
}

const epubFile = path.join(tmp, "book.epub");
try {
  const cookie = await signIn(origin, email, { register: false, password });
  // Warm the routes once (module loading, sharp for the cover, query plans).
  for (const ext of ["txt", "epub"]) await download(`/works/${workId}/export.${ext}`, cookie);
  await new Promise((r) => setTimeout(r, 1000));

  console.log(`bench:author-export on PostgreSQL: ${CHAPTERS} chapters, ${VOLUMES} volumes, a cover; server RSS idle after warm-up ${fmt(memoryOf(pid).rss / MB, 0)} MB`);
  console.log(`\n| download | run | bytes | first byte | total | server RSS before | server peak RSS | peak − before |`);
  console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |`);
  const totals: Record<string, number[]> = { txt: [], epub: [] };
  for (let i = 0; i < runs; i++) {
    // Interleaved, so a busy moment on the shared machine falls on both alike.
    for (const ext of ["txt", "epub"] as const) {
      const d = await download(`/works/${workId}/export.${ext}`, cookie, ext === "epub" && i === runs - 1 ? epubFile : undefined);
      if (d.status !== 200) throw new Error(`export.${ext} answered ${d.status}`);
      totals[ext].push(d.ms);
      console.log(
        `| ${ext.toUpperCase()} | ${i + 1} | ${fmt(d.bytes / MB, 2)} MB | ${fmt(d.firstByteMs, 0)} ms | ${fmt(d.ms / 1000, 2)} s | ${fmt(d.beforeMb, 0)} MB | ${fmt(d.peakMb, 0)} MB | ${fmt(d.peakMb - d.beforeMb, 0)} MB |`,
      );
    }
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const ratio = median(totals.epub) / median(totals.txt);
  console.log(`\nEPUB / TXT time (medians): ${fmt(ratio, 2)}x ${ratio <= 3 ? "(target ≤ 3x: met)" : "(target ≤ 3x: MISSED)"}`);
  console.log(`server VmHWM (whole run, warm-up included): ${fmt(memoryOf(pid).hwm / MB, 0)} MB`);

  // The reader's table of contents of the same work: the first HTML response.
  console.log(`\n| table of contents (/works/${workId}) | status | HTML | time |`);
  console.log(`| --- | --- | --- | --- |`);
  for (const [who, headers] of [["visitor", {}], ["signed-in reader", { Cookie: cookie }]] as const) {
    const t0 = performance.now();
    const response = await fetch(`${origin}/works/${workId}`, { headers });
    const html = await response.text();
    const kb = Buffer.byteLength(html) / 1024;
    console.log(`| ${who} | ${response.status} | ${fmt(kb, 1)} KB ${kb < 100 ? "(< 100 KB: met)" : "(budget 100 KB: MISSED)"} | ${fmt(performance.now() - t0, 0)} ms |`);
  }

  if (flags.has("epubcheck")) {
    const t0 = performance.now();
    const check = spawnSync("java", ["-jar", fs.realpathSync("/usr/bin/epubcheck"), epubFile], { encoding: "utf8", maxBuffer: 64 * MB });
    const summary = `${check.stdout}${check.stderr}`.split("\n").find((l) => l.startsWith("Messages:")) ?? "(no summary)";
    console.log(`\nepubcheck on the ${CHAPTERS}-chapter EPUB: exit ${check.status}, ${summary} (${fmt((performance.now() - t0) / 1000, 0)} s)`);
  }
} finally {
  await stopServer(server);
  await dropPgDatabase(dbName);
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`\n${describeMachine()}\n${describeBusy(machineBefore, busy())}`);
