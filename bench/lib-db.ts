// Database and process helpers shared by the benchmarks.
import { spawn } from "node:child_process";
import { NoopLogger, sql, type SQL } from "drizzle-orm";
import postgres from "postgres";
import type { Database } from "~/db/client.server";
import { rowsOf } from "~/server/platform/db-utils.server";

/** Where the throwaway benchmark databases are created (trust auth on this machine). */
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export function pgUrlFor(database: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates the database if missing; with fresh, drops it first. Returns whether it was created. */
export async function ensurePgDatabase(name: string, fresh: boolean): Promise<boolean> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    if (fresh) await admin.unsafe(`drop database if exists ${name} with (force)`);
    const [row] = await admin`select 1 as ok from pg_database where datname = ${name}`;
    if (row) return false;
    await admin.unsafe(`create database ${name}`);
    return true;
  } finally {
    await admin.end({ timeout: 5 });
  }
}

export async function dropPgDatabase(name: string): Promise<void> {
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

// Rows of db.execute on either driver: the app's own helper.
export { rowsOf };

export async function query<T = Record<string, unknown>>(db: Database, q: SQL): Promise<T[]> {
  return rowsOf<T>(await db.execute(q));
}

/** A drizzle SQL from a "$1"-style query text and its parameters. */
export function sqlFromText(text: string, params: unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  const chunks: SQL[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 0) {
      if (parts[i]) chunks.push(sql.raw(parts[i]));
    } else {
      chunks.push(sql`${params[Number(parts[i]) - 1]}`);
    }
  }
  return sql.join(chunks);
}

interface QueryLogger {
  logQuery(query: string, params: unknown[]): void;
}

/**
 * Runs fn while recording the SQL text and parameters that drizzle sends, so EXPLAIN
 * can be run on exactly the statements an app function issues, in order, transactions
 * included. Relies on drizzle's session keeping its logger in `session.logger` (true for
 * postgres-js and pglite).
 */
export async function captureQueries(
  db: Database,
  fn: () => Promise<unknown>,
): Promise<{ text: string; params: unknown[] }[]> {
  const session = (db as unknown as { session?: { logger?: QueryLogger } }).session;
  if (!session || !session.logger) throw new Error("cannot capture queries: drizzle session has no logger");
  const previous = session.logger;
  const seen: { text: string; params: unknown[] }[] = [];
  const logQuery = (text: string, params: unknown[]) => {
    seen.push({ text, params: [...params] });
  };
  session.logger = { logQuery };
  // A transaction's session gets a logger of its own: without a configured logger, a
  // fresh NoopLogger, so record through its prototype too.
  const noop = NoopLogger.prototype as unknown as QueryLogger;
  const previousNoop = noop.logQuery;
  noop.logQuery = logQuery;
  try {
    await fn();
  } finally {
    session.logger = previous;
    noop.logQuery = previousNoop;
  }
  return seen;
}

/** EXPLAIN (ANALYZE, BUFFERS) text of a captured statement. */
export async function explainAnalyze(db: Database, statement: { text: string; params: unknown[] }): Promise<string> {
  const rows = await query<Record<string, string>>(
    db,
    sql`explain (analyze, buffers) ${sqlFromText(statement.text, statement.params)}`,
  );
  return rows.map((r) => Object.values(r)[0]).join("\n");
}

/** Short summary of a plan: the access paths on works, e.g. "Bitmap works_search_grams_idx". */
export function planSummary(plan: string): string {
  const found: string[] = [];
  for (const line of plan.split("\n")) {
    let m = /Bitmap Index Scan on (\S+)/.exec(line);
    if (m) {
      found.push(`bitmap ${m[1]}`);
      continue;
    }
    m = /Index (?:Only )?Scan(?: Backward)? using (\S+) on works/.exec(line);
    if (m) {
      found.push(`index ${m[1]}`);
      continue;
    }
    if (/Seq Scan on works/.test(line)) found.push("seq scan works");
  }
  return [...new Set(found)].join(" + ") || "?";
}

export function executionMs(plan: string): number | undefined {
  const m = /Execution Time: ([\d.]+) ms/.exec(plan);
  return m ? Number(m[1]) : undefined;
}

/**
 * Runs this same script again in a child process (same tsx loader), for work that needs
 * a fresh module graph: the app's database client is one per process.
 */
export function runSelf(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, script, ...args], {
      env,
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${script} ${args.join(" ")} exited with ${code ?? signal}`)),
    );
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

export function parseFlags(argv: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(arg);
    if (m) flags.set(m[1], m[2] ?? "true");
  }
  return flags;
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

/** `--scale=F` of a bench that seeds a site: a fraction in (0, 1], 1 by default. */
export function scaleFlag(flags: Map<string, string>): number {
  const scale = Number(flags.get("scale") ?? 1);
  if (!(scale > 0 && scale <= 1)) throw new Error("--scale must be in (0, 1]");
  return scale;
}

/**
 * What a seeded bench database says of itself (its comment, set when its seed finished:
 * sizes and seconds), "" for one without a comment, or undefined when there is no such
 * database. --reuse compares it with the sizes asked for.
 */
export async function databaseMark(name: string): Promise<string | undefined> {
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`select shobj_description(oid, 'pg_database') as mark from pg_database where datname = ${name}`;
    return row ? String(row.mark ?? "") : undefined;
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Marks a seeded database with what was seeded and how long it took (read back by databaseMark and seedSecondsOf). */
export async function markSeeded(name: string, mark: string, seconds: number): Promise<void> {
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`comment on database ${name} is '${mark}, seeded in ${Math.round(seconds)} s'`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** How long the seed took, from a mark written by markSeeded (NaN if it says not). */
export function seedSecondsOf(mark: string | undefined): number {
  return Number(/seeded in (\d+) s/.exec(mark ?? "")?.[1] ?? NaN);
}
