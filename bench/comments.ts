// npm run bench:comments: 段评 at scale on PostgreSQL (docs/benchmarks.md#comments). One
// chapter of about 1 MB (3,000 paragraphs) carries 20,000 段评 (plus replies, 本章说 and a
// few hidden ones); a second chapter of the same text carries none. Measures:
//   1. the counts query (commentCounts, one grouped query): p95 < 20 ms;
//   2. the chapter's first response from the built server (`node server.js`): the counts
//      are in it (the bubbles of the first batch, every paragraph's count for later
//      batches), and its HTML stays < 100 KB; its time against the chapter without comments;
//   3. re-anchoring the 20,000 comments after an edit that inserts a paragraph at the top
//      (every comment moves), rewrites 30 paragraphs slightly, deletes one and splits one:
//      < 1 s; and the author's save (saveChapter, what the chapter editor calls) does not
//      wait for it: its latency against the same save of the chapter without comments.
// Flags: --runs=N (counts samples, default 200), --edits=N (default 10), --build (rebuild),
// --keep (leave the database inkstone_bench_comments for a look with psql).
import path from "node:path";
import { loadCorpus } from "./lib-corpus";
import { releaseAtOnce } from "../tests/fixtures/release-at-once";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { captureQueries, dropPgDatabase, ensurePgDatabase, executionMs, explainAnalyze, fmt, parseFlags, percentile, pgUrlFor, rowsOf } from "./lib-db";
import { ensureBuild, freePort, startServer, stopServer } from "./lib-server";

const flags = parseFlags(process.argv.slice(2));
const runs = Number(flags.get("runs") ?? 200);
const edits = Number(flags.get("edits") ?? 10);
const PARAGRAPHS = 3000;
const COMMENTS = 20_000;
const dbName = "inkstone_bench_comments";
const root = path.resolve(import.meta.dirname, "..");
const log = (line: string) => console.log(line);

ensureBuild(root, flags.has("build"), log);
await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
const { closeDatabase, db } = await import("~/db/client.server");
const { register } = await import("~/server/identity/auth.server");
const { createWork } = await import("~/server/catalog/works.server");
const { chapters } = await import("~/db/schema");
const { asc, eq, sql } = await import("drizzle-orm");
const { commentCounts, settleReanchors } = await import("~/server/community/comments.server");
const { saveChapter } = await import("~/server/studio/chapter-text.server");

// --- The data -----------------------------------------------------------------------------
// Real prose (bench:import's novel): paragraphs of consecutive sentences, about 115
// characters (340 bytes) each, so that neighbouring paragraphs differ as in a real chapter.
const { sentences } = loadCorpus();
let cursor = 0;
function paragraphText(i: number): string {
  let text = "";
  while (Array.from(text).length < 105) text += sentences[cursor++ % sentences.length];
  return `${text}（${i}）`;
}
const original = Array.from({ length: PARAGRAPHS }, (_, i) => paragraphText(i));
/** The edit: a paragraph inserted at the top, 30 rewritten slightly, one deleted, one split. */
function edited(): string[] {
  const out = original.map((p, i) => (i % 100 === 50 ? `${p.slice(0, 30)}，${p.slice(32)}他想。` : p));
  out.splice(2000, 1, original[2000].slice(0, 40), original[2000].slice(40));
  out.splice(1500, 1);
  return ["新添的一段楔子，交代了故事的来历。", ...out];
}
const versions = [original.join("\n\n"), edited().join("\n\n")];
const bytes = Buffer.byteLength(versions[0]);

// The author's edits go out at once, as in the tests' databases (tests/fixtures/release-at-once.ts):
// under the default policy a new, unsigned author's edit of a released chapter waits for a
// reviewer (decisions 196, 236), and the save would re-anchor nothing (the approval runs the
// same re-anchoring later).
await releaseAtOnce(db);

const form = new FormData();
form.set("email", `bench-comments-${Date.now()}@example.com`);
form.set("password", "bench-password-1");
const author = await register(form, "bench");
const readers: string[] = [];
for (let i = 0; i < 5; i++) {
  const f = new FormData();
  f.set("email", `bench-comments-reader-${i}-${Date.now()}@example.com`);
  f.set("password", "bench-password-1");
  readers.push((await register(f, "bench")).id);
}
const work = await createWork(
  author.id,
  { title: "段评基准", description: "bench:comments", type: "multi_chapter", status: "completed", visibility: "public", rating: "all_ages", isAiGenerated: false },
  [
    { title: "有段评的一章", content: versions[0] },
    { title: "没有段评的一章", content: versions[0] },
  ],
  null,
);
const [withComments, without] = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(asc(chapters.position));

// 20,000 段评 spread over the paragraphs (more near the start, as readers stop reading),
// 2,000 replies, 500 本章说, 200 hidden: bulk SQL, as the data is not the subject.
const paragraphsJson = JSON.stringify(original);
const usersLiteral = `{${readers.join(",")}}`;
await db.execute(sql`
  insert into comment_anchors (chapter_id, paragraph_index, paragraph_text)
  select ${withComments.id}, p, ${paragraphsJson}::jsonb ->> p from generate_series(0, ${PARAGRAPHS - 1}) p`);
await db.execute(sql`
  insert into chapter_comments (work_id, chapter_id, user_id, anchor_id, body, like_count, hidden_at, created_at)
  select ${work.id}, ${withComments.id}, (${usersLiteral}::uuid[])[1 + g % 5], a.id,
         '第' || g || '条段评', g % 7, case when g % 100 = 0 then now() end, now() - g * interval '1 second'
  from (select g, (floor(power(random(), 1.6) * ${PARAGRAPHS}))::int as p from generate_series(0, ${COMMENTS - 1}) g) pick
  join comment_anchors a on a.chapter_id = ${withComments.id} and a.paragraph_index = pick.p`);
await db.execute(sql`
  insert into chapter_comments (work_id, chapter_id, user_id, body)
  select ${work.id}, ${withComments.id}, (${usersLiteral}::uuid[])[1 + g % 5], '本章说' || g from generate_series(1, 500) g`);
await db.execute(sql`
  with tops as (select id from chapter_comments where chapter_id = ${withComments.id} and anchor_id is not null order by id limit 2000)
  insert into chapter_comments (work_id, chapter_id, user_id, parent_id, body)
  select ${work.id}, ${withComments.id}, ${readers[0]}::uuid, id, '回复' from tops`);
await db.execute(sql`vacuum analyze chapter_comments`);
await db.execute(sql`vacuum analyze comment_anchors`);

const before = busy();
console.log(
  `bench:comments on PostgreSQL: a ${(bytes / 1e6).toFixed(2)} MB chapter of ${PARAGRAPHS} paragraphs with ${COMMENTS.toLocaleString("en")} 段评 (+2,000 replies, 500 本章说, 200 hidden)`,
);

// --- 1. The counts query --------------------------------------------------------------------
{
  const samples: number[] = [];
  let paragraphsWithCounts = 0;
  const batch = [] as number[];
  for (let i = 0; i < runs + 10; i++) {
    let start = performance.now();
    const counts = await commentCounts(withComments.id);
    if (i >= 10) samples.push(performance.now() - start);
    paragraphsWithCounts = Object.keys(counts.paragraphs).length;
    // What the page asks: one batch of 50 paragraphs (the first, where 段评 are densest).
    start = performance.now();
    await commentCounts(withComments.id, { from: 0, to: 50 });
    if (i >= 10) batch.push(performance.now() - start);
  }
  for (const list of [samples, batch]) list.sort((a, b) => a - b);
  const p95 = percentile(samples, 95);
  console.log(
    `counts query, whole chapter (${paragraphsWithCounts} paragraphs with 段评)  p50 ${fmt(percentile(samples, 50))} ms  p95 ${fmt(p95)} ms  max ${fmt(samples.at(-1)!)} ms  ${p95 < 20 ? "ok" : "MISSED (< 20 ms)"}`,
  );
  const p95b = percentile(batch, 95);
  console.log(
    `counts query, one batch (paragraphs 0-49)  p50 ${fmt(percentile(batch, 50))} ms  p95 ${fmt(p95b)} ms  max ${fmt(batch.at(-1)!)} ms  ${p95b < 20 ? "ok" : "MISSED (< 20 ms)"}`,
  );
  // The same statements as PostgreSQL times them (EXPLAIN ANALYZE), without the client's
  // share of a busy machine, and the indexes they use.
  for (const [name, range] of [["whole chapter", undefined], ["one batch", { from: 0, to: 50 }]] as const) {
    const [statement] = await captureQueries(db, () => commentCounts(withComments.id, range));
    const times: number[] = [];
    let plan = "";
    for (let i = 0; i < 40; i++) {
      plan = await explainAnalyze(db, statement);
      times.push(executionMs(plan) ?? NaN);
    }
    times.sort((a, b) => a - b);
    const indexes = [...new Set([...plan.matchAll(/(?:Index|Index Only) Scan using (\S+)/g)].map((m) => m[1]))].join(", ");
    console.log(`  ${name}, execution in PostgreSQL  p50 ${fmt(percentile(times, 50))} ms  p95 ${fmt(percentile(times, 95))} ms  (${indexes})`);
  }
}

// --- 2. The chapter's first response -------------------------------------------------------
{
  const port = await freePort();
  const server = await startServer({ cwd: root, env: { ...process.env, NODE_ENV: "production" }, port, logFile: "/tmp/bench-comments-server.log" });
  try {
    const origin = `http://127.0.0.1:${port}`;
    const page = async (order: number) => {
      const start = performance.now();
      const response = await fetch(`${origin}/works/${work.id}?chapter=${order}`, { headers: { "Accept-Encoding": "identity" } });
      const html = await response.text();
      return { ms: performance.now() - start, html, status: response.status };
    };
    const first = await page(1);
    if (first.status !== 200) throw new Error(`chapter page answered ${first.status}`);
    const bubbles = (first.html.match(/data-count="\d+\+?"/g) ?? []).length;
    const size = Buffer.byteLength(first.html);
    const plainSize = Buffer.byteLength((await page(2)).html);
    console.log(
      `first response: ${(size / 1024).toFixed(1)} KB of HTML (${((size - plainSize) / 1024).toFixed(1)} KB more than without 段评), ${bubbles} count bubbles in the first batch  ${size < 100 * 1024 ? "ok" : "MISSED (< 100 KB)"}`,
    );
    const times = { with: [] as number[], without: [] as number[] };
    for (let i = 0; i < 30; i++) {
      times.with.push((await page(1)).ms);
      times.without.push((await page(2)).ms);
    }
    for (const list of Object.values(times)) list.sort((a, b) => a - b);
    const ratio = percentile(times.with, 50) / percentile(times.without, 50);
    console.log(
      `chapter page  with 段评 p50 ${fmt(percentile(times.with, 50))} ms p95 ${fmt(percentile(times.with, 95))} ms;  without p50 ${fmt(percentile(times.without, 50))} ms p95 ${fmt(percentile(times.without, 95))} ms  (ratio ${fmt(ratio, 2)})`,
    );
  } finally {
    await stopServer(server);
  }
}

// --- 3. Re-anchoring after an edit, and the author's save ----------------------------------
{
  const save = (chapterId: number, content: string) => saveChapter(author.id, work.id, chapterId, { kind: "save", title: "一章", content });
  const saves = { with: [] as number[], without: [] as number[] };
  const reanchors: number[] = [];
  for (let i = 0; i < edits + 1; i++) {
    const content = versions[(i + 1) % 2];
    let start = performance.now();
    await save(without.id, content);
    const plain = performance.now() - start;
    await settleReanchors();
    start = performance.now();
    await save(withComments.id, content);
    const saved = performance.now() - start;
    await settleReanchors();
    const total = performance.now() - start;
    if (i === 0) continue; // warm-up
    saves.without.push(plain);
    saves.with.push(saved);
    reanchors.push(total - saved);
  }
  const [moved] = rowsOf<{ detached: string; anchored: string }>(
    await db.execute(sql`
      select count(*) filter (where a.paragraph_index is null) as detached, count(*) filter (where a.paragraph_index is not null) as anchored
      from chapter_comments c join comment_anchors a on a.id = c.anchor_id where c.chapter_id = ${withComments.id}`),
  );
  // The saves must have reached the chapter readers see, else there was nothing to re-anchor.
  const [shown] = await db.select({ content: chapters.content, pending: chapters.pendingContent }).from(chapters).where(eq(chapters.id, withComments.id));
  if (shown?.content !== versions[(edits + 1) % 2] || shown.pending !== null) throw new Error("the author's saves did not reach the published chapter (review before publishing?)");
  for (const list of [saves.with, saves.without, reanchors]) list.sort((a, b) => a - b);
  const p95 = percentile(reanchors, 95);
  console.log(
    `re-anchoring 20,000 段评 after an edit (${edits} edits)  p50 ${fmt(percentile(reanchors, 50))} ms  p95 ${fmt(p95)} ms  max ${fmt(reanchors.at(-1)!)} ms  ${p95 < 1000 ? "ok" : "MISSED (< 1 s)"}  (now ${moved.anchored} on a paragraph, ${moved.detached} in 本章说)`,
  );
  const ratio = percentile(saves.with, 50) / percentile(saves.without, 50);
  console.log(
    `author's save  with 20,000 段评 p50 ${fmt(percentile(saves.with, 50))} ms p95 ${fmt(percentile(saves.with, 95))} ms;  without p50 ${fmt(percentile(saves.without, 50))} ms p95 ${fmt(percentile(saves.without, 95))} ms  (ratio ${fmt(ratio, 2)})`,
  );
}

console.log(describeMachine());
console.log(describeBusy(before, busy()));
await closeDatabase();
if (!flags.has("keep")) await dropPgDatabase(dbName);
