import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { databaseUrl, envInt, pgliteDir } from "~/env.server";
import { countWhile, dbPoolSize, dbTransactionsOpen } from "./pool-metrics.server";
import { lockDataDir } from "./data-dir-lock.server";
import { chooseTarget, replicaName, ReplicaSet, type ReplicaStatus } from "./replicas.server";
import * as schema from "./schema";
import type { Database } from "./types";

// The types live in types.ts, which the start-up seeding (platform/defaults.server.ts) imports
// without importing this module back (docs/architecture.md#domains).
export type { Database, Executor, Transaction } from "./types";
export { afterOwnWrite, readScope, type ReadScope, type ReplicaStatus } from "./replicas.server";

interface Opened {
  db: Database;
  kind: "pglite" | "postgres";
  close: () => Promise<void>;
}

function migrationsFolder(): string {
  // The repository root holds drizzle/, in dev, tests, scripts and the built server.
  const candidates = [
    process.env.MIGRATIONS_DIR,
    path.resolve("drizzle"),
    path.resolve(import.meta.dirname ?? ".", "../../drizzle"),
  ].filter((p): p is string => Boolean(p));
  const found = candidates.find((p) => fs.existsSync(path.join(p, "meta", "_journal.json")));
  if (!found) throw new Error(`drizzle migrations not found (looked in ${candidates.join(", ")})`);
  return found;
}

async function openPglite(): Promise<Opened> {
  const dir = pgliteDir();
  // This process owns the directory until it closes it: a second server or a script on
  // the same directory refuses to start, naming this one (data-dir-lock.server.ts).
  const unlock = await lockDataDir(dir);
  try {
    const client = await PGlite.create(dir, { extensions: { pg_trgm } });
    const db = drizzlePglite({ client, schema }) as unknown as Database;
    await migratePglite(db as never, { migrationsFolder: migrationsFolder() });
    return {
      db,
      kind: "pglite",
      close: async () => {
        try {
          await client.close();
        } finally {
          await unlock();
        }
      },
    };
  } catch (error) {
    await unlock();
    throw error;
  }
}

const MIGRATION_LOCK = 7_320_001;

async function openPostgres(url: string): Promise<Opened> {
  // Several app processes may start at once: one migrates while the others wait.
  const migrator = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrator`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migratePostgres(drizzlePostgres({ client: migrator }), {
      migrationsFolder: migrationsFolder(),
    });
    await migrator`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await migrator.end();
  }
  const { db, close } = pool(url);
  return { db, kind: "postgres", close };
}

/** A pool of postgres.js connections as drizzle sees it, on the primary or a replica. */
function pool(url: string): { db: Database; client: postgres.Sql; close: () => Promise<void> } {
  const prepare = process.env.DATABASE_PREPARE !== "0";
  const client = postgres(url, {
    max: envInt("DATABASE_POOL_SIZE", 10) || 10,
    onnotice: () => {},
    // Fail fast while PostgreSQL is away, and come back at once (docs/decisions/078): a
    // connection attempt gives up after DATABASE_CONNECT_TIMEOUT seconds (the driver's
    // default is 30), and a new one is tried 0.1 s after the last failed, where the
    // driver's default backoff grew to 20 s (recovery lagged up to 9 s after a restart).
    connect_timeout: envInt("DATABASE_CONNECT_TIMEOUT", 2) || 2,
    backoff: () => 0.1,
    connection: {
      // A statement that runs longer than DATABASE_STATEMENT_TIMEOUT_MS (30 s) is
      // cancelled by PostgreSQL rather than holding a connection of the pool.
      statement_timeout: envInt("DATABASE_STATEMENT_TIMEOUT_MS", 30_000),
      // No JIT: this app's statements are short, and the high COST of work_search_grams
      // (drizzle/0007) makes estimates of common searches large enough to trigger a JIT
      // compile that takes longer than the query itself (docs/decisions/012).
      jit: "off",
      // Prepared statements (below) are planned for their parameters every time, as the
      // unnamed ones were: a generic plan could pick the wrong search strategy.
      ...(prepare ? { plan_cache_mode: "force_custom_plan" } : {}),
    },
  });
  const db = drizzlePostgres({ client: prepare ? preparingClient(client) : client, schema }) as unknown as Database;
  // Raw access (LISTEN, the export's raw rows) gets the client itself.
  (db as unknown as { $client: postgres.Sql }).$client = client;
  return { db, client, close: () => client.end({ timeout: 5 }) };
}

/**
 * postgres.js as drizzle sees it, but with every statement that has parameters prepared
 * on its connection (docs/decisions/031). Drizzle runs its statements unnamed, and
 * postgres.js sends an unnamed statement with parameters in two round trips: it first
 * asks the server for the parameter types, then binds and runs. A prepared statement is
 * described once per connection and then runs in one round trip.
 * DATABASE_PREPARE=0 turns this off (e.g. behind a pooler without prepared statements).
 */
function preparingClient(sql: postgres.Sql): postgres.Sql {
  type Scope = (...args: unknown[]) => unknown;
  const methods = sql as unknown as Record<string, Scope | undefined>;
  // begin (the pool) and savepoint (a transaction) hand their callback a client of their
  // own: it is wrapped the same way.
  const scoped = (name: "begin" | "savepoint") => {
    const open = methods[name];
    if (!open) return undefined;
    return (...args: unknown[]) => {
      const callback = args.pop() as (client: postgres.Sql) => unknown;
      return open.call(sql, ...args, (inner: postgres.Sql) => callback(preparingClient(inner)));
    };
  };
  const wrapper = {
    options: sql.options,
    unsafe: (query: string, parameters?: unknown[], options?: postgres.UnsafeQueryOptions) =>
      sql.unsafe(query, parameters as never, { ...options, prepare: true }),
    begin: scoped("begin"),
    savepoint: scoped("savepoint"),
  };
  return wrapper as unknown as postgres.Sql;
}

async function open(): Promise<Opened & { replicas: ReplicaSet<Database> | null }> {
  const url = databaseUrl();
  const opened = url ? await openPostgres(url) : await openPglite();
  // Pool use for /metrics: its size, and the transactions holding a connection of it.
  dbPoolSize.set(url ? envInt("DATABASE_POOL_SIZE", 10) : 1);
  const transaction = opened.db.transaction.bind(opened.db);
  opened.db.transaction = ((work, config) => countWhile(dbTransactionsOpen, transaction(work, config))) as typeof transaction;
  const { seedDefaults } = await import("~/server/platform/defaults.server");
  await seedDefaults(opened.db);
  const replicas = url ? await openReplicas(url) : null;
  if (!url && replicaUrls().length) console.warn("DATABASE_REPLICA_URLS is ignored: read replicas need DATABASE_URL (PostgreSQL)");
  return {
    ...opened,
    replicas,
    close: async () => {
      await replicas?.close();
      await opened.close();
    },
  };
}

function replicaUrls(): string[] {
  return (process.env.DATABASE_REPLICA_URLS ?? "")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
}

/**
 * The read replicas of DATABASE_REPLICA_URLS (docs/decisions/265): a pool each, like the
 * primary's but never migrated, and one connection each (and one to the primary) for the
 * poll of their replay positions.
 */
async function openReplicas(primaryUrl: string): Promise<ReplicaSet<Database> | null> {
  const urls = replicaUrls();
  if (!urls.length) return null;
  const pools = urls.map((u) => ({ url: u, ...pool(u) }));
  const poller = (u: string) => postgres(u, { max: 1, onnotice: () => {}, connect_timeout: 1, backoff: () => 0.1, idle_timeout: 0 });
  const primary = poller(primaryUrl);
  const set = new ReplicaSet<Database>(
    primary,
    pools.map((p) => ({ name: replicaName(p.url), db: p.db, poller: poller(p.url) })),
    envInt("DATABASE_REPLICA_MAX_LAG_MS", 5_000),
    envInt("DATABASE_REPLICA_POLL_MS", 200) || 200,
  );
  const close = set.close.bind(set);
  set.close = async () => {
    await close();
    await primary.end({ timeout: 1 });
    await Promise.all(pools.map((p) => p.close()));
  };
  await set.start();
  return set;
}

// One client per process, kept across dev-server module reloads.
const holder = globalThis as unknown as { __inkstoneDb?: ReturnType<typeof open> };
holder.__inkstoneDb ??= open();
const opened = await holder.__inkstoneDb;

export const db: Database = opened.db;
export const databaseKind = opened.kind;

/**
 * The database for a read that may be a moment old (docs/architecture.md#read-replicas):
 * listings, search, rankings, the home rows, tag pages, feeds, sitemaps and the text of a
 * chapter. A replica when DATABASE_REPLICA_URLS names one that is up, within
 * DATABASE_REPLICA_MAX_LAG_MS and past the reader's last write, and the request runs in a
 * read scope that allows it (a GET; platform/replica-reads.server.ts); else the primary,
 * as outside any request (jobs, scripts, tests) and always on PGlite. Never for what must
 * be current: balances, purchases, an author's own studio, the back office, anything a
 * write reads first.
 */
export function readDb(): Database {
  return chooseTarget(opened.replicas, db);
}

/** True when reads may go to replicas at all (PostgreSQL with DATABASE_REPLICA_URLS). */
export const hasReplicas = opened.replicas !== null;

/** Each replica's state, for /healthz; empty without replicas. */
export function replicaStatus(): ReplicaStatus[] {
  return opened.replicas?.status() ?? [];
}

/** The longest a replica in use may be behind (DATABASE_REPLICA_MAX_LAG_MS). */
export const replicaMaxLagMs = opened.replicas?.maxLagMs ?? 0;

/**
 * The primary's WAL insert position, right after a request's writes committed: a replica
 * that has replayed it holds them. Null when it cannot be read.
 */
export async function writePosition(): Promise<string | null> {
  if (!opened.replicas) return null;
  try {
    const rows = await db.execute<{ lsn: string }>(sql`select pg_current_wal_insert_lsn()::text as lsn`);
    return (rows as unknown as { lsn: string }[])[0]?.lsn ?? null;
  } catch {
    return null;
  }
}

let closing: Promise<void> | undefined;
export function closeDatabase(): Promise<void> {
  closing ??= opened.close();
  return closing;
}

/** Cheap round trip, used by /healthz. */
export async function pingDatabase(): Promise<boolean> {
  const rows = await db.execute(sql`select 1 as ok`);
  return Array.isArray(rows) ? rows.length === 1 : (rows as { rows: unknown[] }).rows.length === 1;
}
