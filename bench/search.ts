// npm run bench:search [-- --only=postgres|pglite --works=100000 --fresh --budget=3000]
//
// Measures the app's searchWorks (app/server/catalog/search.server.ts: capped count + newest 12,
// the same code the /works page runs), on page 1 and on a page past the end (which shows
// the last page), on a database of realistic Chinese works, against a pg_trgm-only
// comparison query of the same shape (exact count + newest 12), on PostgreSQL and PGlite.
//
// Each backend runs in its own child process (the app's database client is one per
// process and reads DATABASE_URL / PGLITE_DIR at import). The seeded databases are kept
// and reused: PostgreSQL database inkstone_bench_search, PGlite ./data/bench-pglite/search.
// --fresh drops and re-seeds them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { profiles, works } from "~/db/schema";
import { ensurePgDatabase, fmt, parseFlags, pgUrlFor, query, runSelf } from "./lib-db";
import { busy, describeBusy, describeMachine, type Busy } from "./lib-machine";
import { seedBench } from "./lib-seed";
import { measure, pickQueries, type Timing } from "./lib-search";

const SCRIPT = fileURLToPath(import.meta.url);
const PG_DATABASE = "inkstone_bench_search";
const PGLITE_ROOT = path.resolve("data/bench-pglite");
const PGLITE_DIR = path.join(PGLITE_ROOT, "search");
const RESULTS_DIR = path.resolve("bench/results");
const TRGM_INDEXES = ["works_bench_title_trgm_idx", "works_bench_description_trgm_idx"] as const;

type Backend = "postgres" | "pglite";


interface QueryResult {
  length: number;
  query: string;
  label: string;
  matches: number;
  fraction: number;
  /** searchWorks, page 1. */
  grams: Timing;
  /** searchWorks, a page past the end: the last page. */
  last: Timing;
  /** What searchWorks reported: the (capped) total and the page count. */
  total: number;
  totalCapped: boolean;
  pageCount: number;
  trgm?: Timing;
}

interface BackendResult {
  backend: Backend;
  version: string;
  works: number;
  authors: number;
  seed: { reused: boolean; seconds: number };
  vacuumSeconds: number;
  trgmBuildSeconds: number;
  sizes: Record<string, string>;
  settings: Record<string, string>;
  /** How busy the machine was when the measurements started and ended. */
  busy: { before: Busy; after: Busy };
  queries: QueryResult[];
}

const flags = parseFlags(process.argv.slice(2));
const log = (line: string) => console.error(line);


async function main() {
  const only = flags.get("only");
  const backends: Backend[] = only === "postgres" || only === "pglite" ? [only] : ["postgres", "pglite"];
  const passOn = [...flags.entries()].filter(([k]) => k !== "only").map(([k, v]) => (v === "true" ? `--${k}` : `--${k}=${v}`));
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const results: BackendResult[] = [];
  for (const backend of backends) {
    const out = path.join(os.tmpdir(), `inkstone-bench-search-${process.pid}-${backend}.json`);
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (backend === "postgres") {
      await ensurePgDatabase(PG_DATABASE, flags.has("fresh"));
      env.DATABASE_URL = pgUrlFor(PG_DATABASE);
    } else {
      if (flags.has("fresh")) fs.rmSync(PGLITE_DIR, { recursive: true, force: true });
      delete env.DATABASE_URL;
      env.PGLITE_DIR = PGLITE_DIR;
    }
    // Session secret and anything else the app writes go to a scratch data dir.
    env.DATA_DIR = PGLITE_ROOT;
    log(`\n== ${backend} ==`);
    await runSelf(SCRIPT, [`--child=${backend}`, `--out=${out}`, ...passOn], env);
    results.push(JSON.parse(fs.readFileSync(out, "utf8")) as BackendResult);
    fs.rmSync(out, { force: true });
  }
  const report = [`Machine: ${describeMachine()}.`, "", ...results.map(renderBackend)].join("\n");
  console.log(report);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  fs.writeFileSync(path.join(RESULTS_DIR, `search-${stamp}.md`), report);
  fs.writeFileSync(path.join(RESULTS_DIR, `search-${stamp}.json`), JSON.stringify(results, null, 2));
  log(`\nsaved to bench/results/search-${stamp}.{md,json}`);
}

function pct(f: number): string {
  const p = f * 100;
  return p >= 10 ? `${p.toFixed(0)}%` : p >= 1 ? `${p.toFixed(1)}%` : `${p.toFixed(2)}%`;
}

function verdict(r: BackendResult, q: QueryResult): string {
  if (r.backend !== "postgres") return "";
  const limit = q.fraction <= 0.01 ? 20 : 100;
  const worst = Math.max(q.grams.p95, q.last.p95);
  return worst < limit ? `ok (<${limit})` : `**MISS** (<${limit})`;
}

function renderBackend(r: BackendResult): string {
  const lines: string[] = [];
  lines.push(`### ${r.backend} — ${r.works.toLocaleString("en")} works, ${r.authors} authors`);
  lines.push("");
  lines.push(`${r.version}`);
  lines.push("");
  lines.push(
    `Seed: ${r.seed.reused ? "reused existing data" : `${r.seed.seconds.toFixed(0)} s`}; VACUUM ANALYZE ${r.vacuumSeconds.toFixed(1)} s; ` +
      (Number.isFinite(r.trgmBuildSeconds) ? `pg_trgm indexes built in ${r.trgmBuildSeconds.toFixed(1)} s. ` : "pg_trgm not measured. ") + `Sizes: ${Object.entries(r.sizes).filter(([, v]) => v)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}.`,
  );
  lines.push("");
  lines.push(describeBusy(r.busy.before, r.busy.after));
  if (Object.keys(r.settings).length) {
    lines.push("");
    lines.push(`Settings: ${Object.entries(r.settings).map(([k, v]) => `${k}=${v}`).join(", ")}.`);
  }
  lines.push("");
  lines.push(
    "| len | query | matches | shown as | p1 p50 | p1 p95 | last page | last p50 | last p95 | target (p95 ms) | pg_trgm p50 | pg_trgm p95 |",
  );
  lines.push("| --: | --- | --: | --- | --: | --: | --: | --: | --: | --- | --: | --: |");
  for (const q of r.queries) {
    lines.push(
      `| ${q.length} | ${q.query}${q.label ? ` (${q.label})` : ""} | ${q.matches.toLocaleString("en")} (${pct(q.fraction)}) | ` +
        `${q.totalCapped ? `${q.total}+` : q.total} | ${fmt(q.grams.p50)} | ${fmt(q.grams.p95)} | ${q.pageCount} | ${fmt(q.last.p50)} | ${fmt(q.last.p95)} | ` +
        `${verdict(r, q)} | ${fmt(q.trgm?.p50 ?? NaN)} | ${fmt(q.trgm?.p95 ?? NaN)} |`,
    );
  }
  lines.push("");
  lines.push("Plans (EXPLAIN ANALYZE of the exact statements, with the planner settings searchWorks sets):");
  lines.push("");
  lines.push("| len | query | searchWorks page 1 | searchWorks last page | pg_trgm (count / page) |");
  lines.push("| --: | --- | --- | --- | --- |");
  for (const q of r.queries) {
    const show = (t: Timing) =>
      t.plans.map((p, i) => `${p} (${fmt(t.explainMs[i] ?? NaN)} ms)`).join(" / ");
    lines.push(`| ${q.length} | ${q.query} | ${show(q.grams)} | ${show(q.last)} | ${q.trgm ? show(q.trgm) : "-"} |`);
  }
  lines.push("");
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------
// Child: one backend.

async function child(backend: Backend) {
  const out = flags.get("out");
  if (!out) throw new Error("--out missing");
  const wantWorks = Number(flags.get("works") ?? 100_000);
  const budgetMs = Number(flags.get("budget") ?? 3000);
  // The queries themselves are measured, not the shared few-second copy of their answers.
  process.env.PAGE_CACHE = "0";
  const { db, closeDatabase } = await import("~/db/client.server");
  const search = { ...(await import("~/server/catalog/search.server")), ...(await import("~/server/catalog/search-sql.server")) };
  try {
    const [{ version }] = await query<{ version: string }>(db, sql`select version() as version`);
    log(version);
    const seed = await seedBench(db, { works: wantWorks, concurrency: backend === "postgres" ? 2 : 1, log });

    // Measure our design with no pg_trgm index present, so the planner cannot use one.
    for (const name of TRGM_INDEXES) await db.execute(sql.raw(`drop index if exists ${name}`));
    let t = performance.now();
    await db.execute(sql`vacuum (analyze) works`);
    await db.execute(sql`analyze users`);
    await db.execute(sql`analyze profiles`);
    const vacuumSeconds = (performance.now() - t) / 1000;
    log(`vacuum analyze: ${vacuumSeconds.toFixed(1)} s`);

    const [{ n: totalWorks }] = await query<{ n: number }>(db, sql`select count(*)::int as n from works`);
    const [{ n: authors }] = await query<{ n: number }>(
      db,
      sql`select count(*)::int as n from users where email like 'bench-author-%'`,
    );
    const picked = await pickQueries(db, totalWorks);
    log(`queries: ${picked.map((q) => `${q.query} ${pct(q.matches / totalWorks)}`).join(", ")}`);

    const viewer = null; // an anonymous visitor: public + paid works, all-ages only
    const busyBefore = busy();
    // Our design: searchWorks itself, page 1 and a page past the end (the last page).
    const gramsRuns = new Map<string, { first: Timing; last: Timing; result: Awaited<ReturnType<typeof search.searchWorks>> }>();
    for (const q of picked) {
      const first = await measure(db, () => search.searchWorks({ query: q.query, page: 1, viewer }), budgetMs);
      const last = await measure(db, () => search.searchWorks({ query: q.query, page: 1_000_000_000, viewer }), budgetMs);
      const result = await search.searchWorks({ query: q.query, page: 1_000_000_000, viewer });
      gramsRuns.set(q.query, { first, last, result });
      log(
        `app    ${q.query}: ${result.totalCapped ? `${result.total}+` : result.total}, ${result.pageCount} pages; ` +
          `page 1 p50 ${fmt(first.p50)} p95 ${fmt(first.p95)} ms (n=${first.n}) ${first.plans.join(" / ")}; ` +
          `last p50 ${fmt(last.p50)} p95 ${fmt(last.p95)} ms (n=${last.n}) ${last.plans.join(" / ")}`,
      );
    }

    // pg_trgm alone: GIN gin_trgm_ops on title and on description, bench database only
    // (--no-trgm skips it: building them takes minutes on PGlite).
    const withTrgm = !flags.has("no-trgm");
    let trgmBuildSeconds = NaN;
    if (withTrgm) {
      t = performance.now();
      await db.transaction(async (tx) => {
        if (backend === "postgres") await tx.execute(sql`set local maintenance_work_mem = '256MB'`);
        await tx.execute(sql.raw(`create index ${TRGM_INDEXES[0]} on works using gin (title gin_trgm_ops)`));
        await tx.execute(sql.raw(`create index ${TRGM_INDEXES[1]} on works using gin (description gin_trgm_ops)`));
      });
      await db.execute(sql`analyze works`);
      trgmBuildSeconds = (performance.now() - t) / 1000;
      log(`pg_trgm indexes: ${trgmBuildSeconds.toFixed(1)} s`);
    }

    const trgmSearch = makeTrgmSearch(db, search);
    const results: QueryResult[] = [];
    for (const q of picked) {
      const timing = withTrgm ? await measure(db, () => trgmSearch(q.query, viewer), budgetMs) : undefined;
      if (timing) log(`trgm   ${q.query}: p50 ${fmt(timing.p50)} p95 ${fmt(timing.p95)} ms (n=${timing.n}) ${timing.plans.join(" / ")}`);
      results.push({
        length: q.length,
        query: q.query,
        label: q.label,
        matches: q.matches,
        fraction: q.matches / totalWorks,
        grams: gramsRuns.get(q.query)!.first,
        last: gramsRuns.get(q.query)!.last,
        total: gramsRuns.get(q.query)!.result.total,
        totalCapped: gramsRuns.get(q.query)!.result.totalCapped,
        pageCount: gramsRuns.get(q.query)!.result.pageCount,
        trgm: timing,
      });
    }

    const busyAfter = busy();
    const sizeRows = await query<Record<string, string>>(
      db,
      sql`select pg_size_pretty(pg_table_size('works')) as "works table",
                 pg_size_pretty(pg_relation_size('works_search_grams_idx')) as "works_search_grams_idx",
                 pg_size_pretty(pg_relation_size(to_regclass(${TRGM_INDEXES[0]})) + pg_relation_size(to_regclass(${TRGM_INDEXES[1]}))) as "pg_trgm indexes"`,
    );
    const settings: Record<string, string> = {};
    for (const name of ["shared_buffers", "work_mem", "effective_cache_size", "random_page_cost", "jit"]) {
      const [row] = await query<{ v: string }>(db, sql`select coalesce(current_setting(${name}, true), '?') as v`);
      settings[name] = row.v;
    }
    // Keep the comparison indexes out of the next run's grams measurement.
    for (const name of TRGM_INDEXES) await db.execute(sql.raw(`drop index if exists ${name}`));

    const result: BackendResult = {
      backend,
      version,
      works: totalWorks,
      authors,
      seed: { reused: seed.reused, seconds: seed.seconds },
      vacuumSeconds,
      trgmBuildSeconds,
      sizes: sizeRows[0],
      settings,
      busy: { before: busyBefore, after: busyAfter },
      queries: results,
    };
    fs.writeFileSync(out, JSON.stringify(result));
    const explainFile = path.join(RESULTS_DIR, `search-explain-${backend}.txt`);
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.writeFileSync(
      explainFile,
      results
        .map(
          (q) =>
            `===== ${q.query} (${q.length} chars, ${q.matches} matches)\n--- searchWorks, page 1\n${q.grams.planText}\n` +
            `--- searchWorks, last page\n${q.last.planText}\n--- pg_trgm only\n${q.trgm?.planText ?? "(not measured)"}\n`,
        )
        .join("\n"),
    );
    log(`plans written to ${path.relative(process.cwd(), explainFile)}`);
  } finally {
    await closeDatabase();
  }
}

type SearchModule = typeof import("~/server/catalog/search.server") & typeof import("~/server/catalog/search-sql.server");

/**
 * The pg_trgm-only comparison: the same filters, join, columns, order and page size as
 * searchWorks, with the substring condition as ILIKE on title or description alone.
 */
function makeTrgmSearch(db: Database, search: SearchModule) {
  return async (rawQuery: string, viewer: null) => {
    const q = search.normalizeQuery(rawQuery);
    const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const where = and(
      inArray(works.visibility, ["public", "public-vip"]),
      ...search.audienceFilter(viewer),
      sql`(${works.title} ilike ${pattern} or ${works.description} ilike ${pattern})`,
    );
    const page = db
      .select(search.workCardColumns)
      .from(works)
      .innerJoin(profiles, eq(profiles.id, works.userId))
      .where(where)
      .orderBy(desc(works.createdAt), desc(works.id))
      .limit(search.SEARCH_PAGE_SIZE)
      .offset(0);
    const total = db.select({ n: sql<number>`count(*)::int` }).from(works).where(where);
    const [[{ n }], rows] = await Promise.all([total, page]);
    return { total: n, works: rows };
  };
}

// Last, so every declaration above is initialised before it runs.
if (flags.has("child")) {
  await child(flags.get("child") as Backend);
} else {
  await main();
}
