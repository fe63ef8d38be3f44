// npm run bench:screening: sensitive-word screening at scale (docs/benchmarks.md#screening,
// docs/decisions/195), on PostgreSQL, through the domain functions the app calls:
//   1. a 50,000-word list imported as a UTF-8 TXT (importScreeningWords), as the back office does;
//   2. screenText over a 1 MB chapter (西游记's first megabyte, with evasions inserted):
//      p95 < 30 ms;
//   3. the matcher's memory: the heap it holds once built (after a full GC): < 50 MB;
//   4. the rebuild after a change (addScreeningWord, then the process's matcher rebuilt
//      from the table): < 2 s.
// Flags: --runs=N (screenings, default 60), --words=N (default 50000), --keep (leave the
// database inkstone_bench_screening). Run with node --expose-gc (the npm script does).
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { loadCorpus, makeRandom } from "./lib-corpus";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const runs = Number(flags.get("runs") ?? 60);
const WORDS = Number(flags.get("words") ?? 50_000);
const dbName = "inkstone_bench_screening";
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc (npm run bench:screening)");

await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
const { closeDatabase } = await import("~/db/client.server");
const { importScreeningWords, addScreeningWord } = await import("~/server/screening/words.server");
const { screenText, reloadScreening } = await import("~/server/screening/screening.server");
const { Matcher } = await import("~/server/screening/matcher.server");
const { db } = await import("~/db/client.server");
const { screeningWords } = await import("~/db/schema");

const before = busy();
const rand = makeRandom(30);
const corpus = loadCorpus();
const actor = { admin: { id: null, email: "bench@example.com" }, address: "127.0.0.1" };

// The list: 1% phrases of the novel (they hit), the rest random Han words of 2-6 characters.
const words = new Set<string>();
while (words.size < WORDS * 0.01) {
  const clause = corpus.clauses[Math.floor(rand() * corpus.clauses.length)];
  if (clause.length >= 4) words.add(clause.slice(0, 4));
}
while (words.size < WORDS) {
  const length = 2 + Math.floor(rand() * 5);
  let word = "";
  for (let i = 0; i < length; i++) word += String.fromCharCode(0x4e00 + Math.floor(rand() * 0x51a5));
  words.add(word);
}
const levels = ["禁止", "审核", "替换"];
const txt = [...words].map((w, i) => `${w}\t其他\t${levels[i % 3]}`).join("\n");
let t = performance.now();
const imported = await importScreeningWords(actor, { name: "bench.txt", bytes: new TextEncoder().encode(txt) }, { category: "其他", level: "forbid" });
const importMs = performance.now() - t;

// The chapter: 1 MB of the novel, every 500th character followed by a zero-width space or
// a full-width letter, so the folding has work to do.
let chapter = "";
for (let i = 0; Buffer.byteLength(chapter) < 1024 * 1024; i += 500) {
  chapter += corpus.text.slice(i, i + 500) + (i % 1000 ? "\u200b" : "Ａ");
}
while (Buffer.byteLength(chapter) > 1024 * 1024) chapter = chapter.slice(0, -1);

const times: number[] = [];
let hits = 0;
for (let i = 0; i < runs + 5; i++) {
  t = performance.now();
  const result = await screenText(chapter);
  const ms = performance.now() - t;
  if (i >= 5) times.push(ms); // 5 warm-up runs
  hits = result.hits.length;
}
times.sort((a, b) => a - b);

// Memory: the heap a built matcher holds, after full collections.
const rows = await db.select({ word: screeningWords.word, category: screeningWords.category, level: screeningWords.level }).from(screeningWords);
gc();
gc();
const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
let held: InstanceType<typeof Matcher> | null = new Matcher(rows);
gc();
gc();
const heapAfter = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
const matcherMb = (heapAfter - heapBefore) / 2 ** 20;
const tableMb = held.tableBytes / 2 ** 20;
held = null;

// Rebuild after a change: one word added, this process's matcher rebuilt from the table.
const rebuilds: number[] = [];
for (let i = 0; i < 5; i++) {
  t = performance.now();
  await addScreeningWord(actor, { word: `基准新词${i}`, category: "其他", level: "forbid" });
  rebuilds.push(performance.now() - t);
}
t = performance.now();
const reloaded = await reloadScreening();
const reloadMs = performance.now() - t;
const after = busy();

console.log(`machine: ${describeMachine()}`);
console.log(describeBusy(before, after));
console.log(`list: ${imported.added} words imported as a ${(txt.length / 1024).toFixed(0)} KB TXT in ${fmt(importMs, 0)} ms; ${reloaded.words} in the matcher after the adds`);
console.log(`chapter: ${(Buffer.byteLength(chapter) / 2 ** 20).toFixed(2)} MB, ${chapter.length} UTF-16 units, ${hits} hits`);
console.log(`screenText over the chapter (${runs} runs): p50 ${fmt(percentile(times, 50))} ms, p95 ${fmt(percentile(times, 95))} ms, max ${fmt(times[times.length - 1])} ms (target p95 < 30 ms)`);
console.log(`matcher memory: ${fmt(matcherMb)} MB of heap and buffers held (typed arrays ${fmt(tableMb)} MB) (target < 50 MB)`);
console.log(`addScreeningWord with this process's rebuild: ${rebuilds.map((r) => fmt(r, 0)).join(", ")} ms; reloadScreening alone ${fmt(reloadMs, 0)} ms (target < 2000 ms)`);

await closeDatabase();
if (!flags.has("keep")) await dropPgDatabase(dbName);
