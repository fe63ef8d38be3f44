import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "~/db/client.server";

/** Rows of a drizzle `execute` result: postgres.js returns an array, PGlite `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/** A json column of a raw row: parsed by postgres.js, a string where a driver leaves it one (PGlite). */
export function jsonColumn<T>(value: unknown): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : (value as T);
}

/**
 * Runs statements inside a transaction without waiting for each answer before sending the
 * next: on postgres.js they go out pipelined on the transaction's one connection (one round
 * trip for all), on PGlite one after another on its one connection. They are executed in
 * the order given (each is sent by the same call path, so each reaches the driver in the
 * order of the list): a caller that takes row locks keeps its usual order, and two
 * transactions never wait on each other in a circle. Every statement is answered before
 * this returns; the first failure in list order is thrown (the ones after it fail with
 * "current transaction is aborted", which says nothing), and the caller's transaction
 * rolls back. Returns each statement's rows, in order. Only for statements that do not
 * need each other's answers.
 */
export async function sendInOrder(tx: Executor, statements: SQL[]): Promise<unknown[][]> {
  const settled = await Promise.allSettled(statements.map((statement) => tx.execute(statement)));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((s) => rowsOf((s as PromiseFulfilledResult<unknown>).value));
}

/** PostgreSQL error code of a driver error (or its cause), e.g. 23505 for unique_violation. */
export function pgErrorCode(error: unknown): string | undefined {
  let e = error as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; e && i < 4; i++) {
    if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

export const UNIQUE_VIOLATION = "23505";

/**
 * Rows sent to the database as JSON, in batches: at most 1,000 rows and about 48K
 * characters of text a batch (`charsOf` says how many a row carries). The JSON then
 * stays under 128 KB, which V8 allocates in the young generation and frees within
 * milliseconds; a larger string goes to the large-object space, freed only by a full
 * collection (with batches of 128K characters a server taking eight 10 MB imports in a
 * row peaked about 40 MB higher). The rows may be produced while they are stored (a TXT
 * being parsed): each batch is let go once `insert` has stored it. Returns the row count.
 */
export async function insertJsonBatches<T>(rows: Iterable<T>, charsOf: (row: T) => number, insert: (json: string) => Promise<unknown>): Promise<number> {
  let batch: T[] = [];
  let chars = 0;
  let count = 0;
  const flush = async () => {
    const json = JSON.stringify(batch);
    batch = [];
    chars = 0;
    await insert(json);
  };
  for (const row of rows) {
    const size = charsOf(row);
    if (batch.length > 0 && (batch.length >= JSON_BATCH_ROWS || chars + size > JSON_BATCH_CHARS)) await flush();
    batch.push(row);
    chars += size;
    count += 1;
  }
  if (batch.length > 0) await flush();
  return count;
}

const JSON_BATCH_ROWS = 1000;
const JSON_BATCH_CHARS = 48 * 1024;

/** `s` as literal text inside a LIKE / ILIKE pattern: its `%`, `_` and `\` match themselves. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Leases the next due job of a job table shaped as `summary_jobs` and `outline_jobs` are
 * (`id`, `state`, `next_attempt_at`, `locked_until`, `attempts`, `updated_at`; decision 128):
 * one statement, so any number of processes may call it at once (the candidate row is
 * taken `FOR UPDATE SKIP LOCKED`); the row's attempts are counted up and it is held for
 * `leaseSeconds`. Returns the columns asked for (as the row is after the lease), or null when
 * nothing is due.
 */
export async function leaseNextJob<T>(executor: Executor, table: SQL, columns: SQL, leaseSeconds: number): Promise<T | null> {
  const [row] = rowsOf<T>(
    await executor.execute(sql`
      update ${table} set attempts = attempts + 1, locked_until = now() + make_interval(secs => ${leaseSeconds}), updated_at = now()
      where id = (
        select id from ${table}
        where state = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
        order by next_attempt_at, id
        limit 1
        for update skip locked)
      returning ${columns}`),
  );
  return row ?? null;
}
