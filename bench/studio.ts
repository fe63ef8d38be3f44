// npm run bench:studio: the chapter manager's operations in a 3,000-chapter work (about
// 10 MB of text, like bench:import's novel) on PostgreSQL: moving the last chapter to the
// first place, inserting a chapter in the middle, deleting one. Each is the domain
// function the /works/:id/chapters action calls, one transaction with the work's row lock.
// Reports p50/p95/max over --runs (default 60) and the machine. Target: p95 < 50 ms each.
import { describeBusy, busy, describeMachine } from "./lib-machine";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const runs = Number(flags.get("runs") ?? 60);
const CHAPTERS = 3000;
const dbName = "inkstone_bench_studio";

await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
const { closeDatabase } = await import("~/db/client.server");
const { register } = await import("~/server/identity/auth.server");
const { createWork } = await import("~/server/catalog/works.server");
const { db } = await import("~/db/client.server");
const { chapters } = await import("~/db/schema");
const { asc, eq } = await import("drizzle-orm");
const { deleteChapter, insertChapter, moveChapter } = await import("~/server/studio/chapters.server");

const form = new FormData();
form.set("email", `bench-studio-${Date.now()}@example.com`);
form.set("password", "bench-password-1");
const user = await register(form, "bench");
const paragraph = "大圣在花果山上，与群猴操演武艺，又访得四海龙王，求取兵器。".repeat(60);
const work = await createWork(
  user.id,
  { title: "基准长篇", description: "bench:studio", type: "multi_chapter", status: "completed", visibility: "public", rating: "all_ages", isAiGenerated: false },
  Array.from({ length: CHAPTERS }, (_, i) => ({ title: `第${i + 1}章`, content: `${paragraph}\n${i}` })),
  null,
);
await db.execute((await import("drizzle-orm")).sql`analyze chapters`);

async function lastChapterId(): Promise<number> {
  const [row] = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(asc(chapters.position)).offset(CHAPTERS - 1).limit(1);
  return row.id;
}

async function time(name: string, op: (i: number) => Promise<unknown>) {
  const samples: number[] = [];
  for (let i = 0; i < runs + 5; i++) {
    const start = performance.now();
    await op(i);
    if (i >= 5) samples.push(performance.now() - start); // the first few warm the pool and plans
  }
  samples.sort((a, b) => a - b);
  const p95 = percentile(samples, 95);
  console.log(`${name.padEnd(28)} p50 ${fmt(percentile(samples, 50))} ms  p95 ${fmt(p95)} ms  max ${fmt(samples.at(-1)!)} ms  ${p95 < 50 ? "ok" : "MISSED (< 50 ms)"}`);
}

const before = busy();
console.log(`bench:studio on PostgreSQL, ${CHAPTERS} chapters, ${runs} runs each`);
await time("move last → first", async () => moveChapter(user.id, work.id, await lastChapterId(), 1));
const inserted: number[] = [];
await time("insert at place 1,500", async (i) => inserted.push(await insertChapter(user.id, work.id, { title: `插入${i}`, content: paragraph }, { at: 1500 })));
await time("delete (a middle chapter)", async (i) => deleteChapter(user.id, work.id, inserted[i]));
console.log(describeMachine());
console.log(describeBusy(before, busy()));
await closeDatabase();
await dropPgDatabase(dbName);
