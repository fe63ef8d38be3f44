// npm run bench:reader-stats: what recording a read for the author's statistics costs the
// reader page (docs/decisions/099). On PostgreSQL, the /works/:id?chapter=N loader
// (loadReaderPage) for a signed-in reader, over 200 chapters, interleaved:
//   - "reopen": a chapter this reader already opened today: the in-process memo answers,
//     no statistics query (the cost the page had before);
//   - "first open today": a chapter this reader has not opened today: one
//     INSERT ... ON CONFLICT DO NOTHING beside the position save, in parallel.
// Reports p50/p95 of each and their ratio, with the machine.
import { describeBusy, busy, describeMachine } from "./lib-machine";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const CHAPTERS = Number(flags.get("chapters") ?? 200);
const dbName = "inkstone_bench_reader_stats";

await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
const { closeDatabase } = await import("~/db/client.server");
const { register } = await import("~/server/identity/auth.server");
const { createWork } = await import("~/server/catalog/works.server");
const { createUserSession } = await import("~/server/identity/session.server");
const { loadReaderPage } = await import("~/routes/shell/reader/reader-page.server");

async function account(name: string) {
  const form = new FormData();
  form.set("email", `bench-${name}-${Date.now()}@example.com`);
  form.set("password", "bench-password-1");
  const user = await register(form, "bench");
  const cookie = (await createUserSession(new Request("http://localhost/"), user.id)).split(";")[0];
  return { user, cookie };
}
const author = await account("author");
const warm = await account("warm");
const fresh = await account("fresh");
const paragraph = "大圣在花果山上，与群猴操演武艺，又访得四海龙王，求取兵器。".repeat(20);
const work = await createWork(
  author.user.id,
  { title: "基准连载", description: "bench:reader-stats", type: "multi_chapter", status: "completed", visibility: "public", rating: "all_ages", isAiGenerated: false },
  Array.from({ length: CHAPTERS }, (_, i) => ({ title: `第${i + 1}章`, content: `${paragraph}\n${i}` })),
  null,
);

async function open(cookie: string, order: number) {
  const url = new URL(`http://localhost/works/${work.id}?chapter=${order}`);
  const start = performance.now();
  await loadReaderPage(new Request(url, { headers: { Cookie: cookie } }), url, String(work.id));
  return performance.now() - start;
}

// The warm reader opens every chapter once (rows written, memo filled); warms plans too.
for (let i = 1; i <= CHAPTERS; i++) await open(warm.cookie, i);
for (let i = 1; i <= 20; i++) await open(fresh.cookie, CHAPTERS - i + 1);

const before = busy();
const reopen: number[] = [];
const first: number[] = [];
for (let i = 1; i <= CHAPTERS - 20; i++) {
  reopen.push(await open(warm.cookie, i));
  first.push(await open(fresh.cookie, i));
}
reopen.sort((a, b) => a - b);
first.sort((a, b) => a - b);
const line = (name: string, s: number[]) => `${name.padEnd(20)} p50 ${fmt(percentile(s, 50))} ms  p95 ${fmt(percentile(s, 95))} ms`;
console.log(`bench:reader-stats on PostgreSQL, ${reopen.length} chapter opens each, interleaved`);
console.log(line("reopen (no write)", reopen));
console.log(line("first open today", first));
console.log(`ratio first/reopen: p50 ${fmt(percentile(first, 50) / percentile(reopen, 50), 2)}, p95 ${fmt(percentile(first, 95) / percentile(reopen, 95), 2)}`);
console.log(describeMachine());
console.log(describeBusy(before, busy()));
await closeDatabase();
await dropPgDatabase(dbName);
