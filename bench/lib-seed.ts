// Seeds a benchmark database with authors and works through the app's own drizzle
// schema (so check constraints and the gram index expression apply as in production).
// Reuses what is there when it already holds the requested data.
import { count, like, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { profiles, users, works } from "~/db/schema";
import { int, loadCorpus, makeDescription, makeNickname, makeRandom, makeTitle } from "./lib-corpus";

export interface SeedOptions {
  works: number;
  authors?: number;
  seed?: number;
  batchSize?: number;
  /** Batches in flight at once (use 1 on PGlite, which serialises anyway). */
  concurrency?: number;
  log?: (line: string) => void;
}

export interface SeedResult {
  works: number;
  authors: number;
  reused: boolean;
  seconds: number;
}

const AUTHOR_EMAIL = (i: number) => `bench-author-${i}@example.com`;

type WorkInsert = typeof works.$inferInsert;

function makeWork(rand: () => number, i: number, total: number, authorIds: string[], corpus = loadCorpus()): WorkInsert {
  const type = rand() < 0.45 ? "single_chapter" : rand() < 0.5 ? "multi_chapter" : "series";
  const status = type === "series" && rand() < 0.5 ? "ongoing" : "completed";
  const v = rand();
  const visibility = v < 0.7 ? "public" : v < 0.85 ? "public-vip" : "private";
  const chapterCount = type === "single_chapter" ? 1 : int(rand, 2, 120);
  // Three years of works, roughly in id order, newest last.
  const span = 3 * 365 * 24 * 3600 * 1000;
  const createdAt = new Date(Date.now() - span + Math.floor(((i + rand()) / total) * span));
  return {
    userId: authorIds[Math.floor(rand() * authorIds.length)],
    title: makeTitle(rand, corpus),
    description: makeDescription(rand, corpus),
    wordCount: chapterCount * int(rand, 800, 6000),
    chapterCount,
    type,
    status,
    visibility,
    rating: rand() < 0.15 ? "r18" : "all_ages",
    isAiGenerated: rand() < 0.2,
    price: visibility === "public-vip" ? int(rand, 1, 50) : 0,
    createdAt,
    updatedAt: createdAt,
  };
}

export async function seedBench(db: Database, options: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const wantWorks = options.works;
  const wantAuthors = options.authors ?? Math.max(10, Math.min(500, Math.round(wantWorks / 250)));
  const batchSize = options.batchSize ?? 1000;
  const concurrency = options.concurrency ?? 1;
  const rand = makeRandom(options.seed ?? 20240607);
  const corpus = loadCorpus();

  const [{ n: haveWorks }] = await db.select({ n: count() }).from(works);
  const [{ n: haveAuthors }] = await db
    .select({ n: count() })
    .from(users)
    .where(like(users.email, "bench-author-%"));
  if (haveWorks === wantWorks && haveAuthors === wantAuthors) {
    log(`reusing ${haveWorks} works by ${haveAuthors} authors`);
    return { works: haveWorks, authors: haveAuthors, reused: true, seconds: (performance.now() - started) / 1000 };
  }

  if (haveWorks > 0 || haveAuthors > 0) {
    log(`database holds ${haveWorks} works / ${haveAuthors} bench authors: clearing them`);
    await db.execute(sql`truncate table ${works} restart identity cascade`);
    await db.delete(users).where(like(users.email, "bench-author-%"));
  }

  // Authors: users + profiles.
  const authorRows = Array.from({ length: wantAuthors }, (_, i) => ({
    email: AUTHOR_EMAIL(i),
    // Not a valid hash: these accounts never sign in.
    passwordHash: "bench-no-login",
  }));
  const inserted = await db.insert(users).values(authorRows).returning({ id: users.id, email: users.email });
  const authorIds = inserted.map((u) => u.id);
  await db.insert(profiles).values(
    inserted.map((u, i) => ({
      id: u.id,
      email: u.email,
      nickname: makeNickname(rand, corpus, i),
      showR18: rand() < 0.3,
      showAi: rand() < 0.8,
    })),
  );

  // Works in batches; the rows are generated in order so a seed gives the same data.
  let done = 0;
  let lastLog = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let start = 0; start < wantWorks; start += batchSize) {
    const rows: WorkInsert[] = [];
    for (let i = start; i < Math.min(wantWorks, start + batchSize); i++) rows.push(makeWork(rand, i, wantWorks, authorIds, corpus));
    const p: Promise<void> = db
      .insert(works)
      .values(rows)
      .then(() => {
        done += rows.length;
        if (performance.now() - lastLog > 5000) {
          lastLog = performance.now();
          log(`  ${done}/${wantWorks} works (${((performance.now() - started) / 1000).toFixed(0)} s)`);
        }
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= concurrency) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  log(`seeded ${wantWorks} works by ${wantAuthors} authors in ${seconds.toFixed(1)} s`);
  return { works: wantWorks, authors: wantAuthors, reused: false, seconds };
}
