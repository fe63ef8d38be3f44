import { sql, type SQL } from "drizzle-orm";
import { databaseKind, db, type Executor } from "~/db/client.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { LIVE_TXT_IMPORT } from "~/server/studio/work-create.server";
import { restorePlan, UnrestorableCycleError } from "./restore-plan.server";

/**
 * docs/product.md D8: the whole database as database.sql inside database.zip. For every table
 * of the public schema, in foreign-key order, a TRUNCATE ... CASCADE, then INSERTs, then
 * the identity sequences; all in one transaction, so `psql -v ON_ERROR_STOP=1 -f
 * database.sql` into an empty database migrated to the same schema gives identical rows.
 *
 * - Foreign keys that form a cycle (writing_plots.current_version_id and
 *   plot_versions.plot_id; a reply's parent_id) cannot all be satisfied by an order of
 *   tables: restorePlan() finds them from the catalog, their columns are inserted as NULL
 *   and set by UPDATEs once every row is in (docs/decisions/147). A cycle of NOT NULL keys
 *   only makes the export fail at once, naming the tables.
 * - Sessions, rate-limit counters and one-time form tokens are left out (LEFT_OUT_TABLES):
 *   the restore empties them (docs/decisions/148).
 * - Tables and columns come from the catalog, so a table added by a later migration is
 *   exported without touching this file. Generated columns (none today) are left
 *   out: the target computes them. Identity columns are inserted with OVERRIDING
 *   SYSTEM VALUE and their sequences set to the source's position afterwards.
 * - PostgreSQL writes each row's literal itself (quote_nullable), so NULL, booleans,
 *   numbers, JSON, arrays, timestamps and quotes come out exactly as it reads them back,
 *   under fixed settings (UTC, ISO dates, full float precision).
 * - Rows are read in keyset batches on the primary key (a bounded number of bytes per
 *   batch) and written through a stream with back-pressure: memory stays flat whatever
 *   the size of the database.
 * - On PostgreSQL the export reads one consistent snapshot (a REPEATABLE READ, READ ONLY
 *   transaction on one pooled connection). PGlite has a single connection: holding it for
 *   the whole export would stall the site, so there each batch is its own short
 *   transaction and writes made during the export may or may not be included.
 */

export interface ExportProgress {
  stage: "prepare" | "tables" | "compress" | "done";
  /** Chinese, for the progress bar. */
  label: string;
  detail: string;
  percent: number;
}

interface ColumnInfo {
  name: string;
  type: string;
  category: string;
  identity: "" | "a" | "d";
}

/** @internal */
export interface TableInfo {
  oid: number;
  name: string;
  columns: ColumnInfo[];
  primaryKey: string[];
  /** Identity columns with their sequence's position, read at export time. */
  sequences: { column: string; lastValue: string; isCalled: boolean }[];
  /** Columns of keys that close a cycle: inserted as NULL, set by UPDATEs at the end. */
  deferred: string[];
}

/** Rows per SELECT at most, and the bytes a batch aims at (rows may be large chapters). */
const MAX_BATCH_ROWS = 1000;
const MIN_BATCH_ROWS = 1;
const TARGET_BATCH_BYTES = 1024 * 1024;

/** @internal */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The public schema's tables, their columns, keys and identity sequences. @internal */
export async function describeTables(executor: Executor = db): Promise<TableInfo[]> {
  const tables = rowsOf<{ oid: number; name: string }>(
    await executor.execute(sql`
      select c.oid::int8 as oid, c.relname as name
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      order by c.relname`),
  ).map((t) => ({ oid: Number(t.oid), name: t.name }));
  const columns = rowsOf<{ oid: number; name: string; type: string; category: string; identity: string; generated: string }>(
    await executor.execute(sql`
      select a.attrelid::int8 as oid, a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
             t.typcategory as category, a.attidentity as identity, a.attgenerated as generated
      from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      join pg_type t on t.oid = a.atttypid
      where n.nspname = 'public' and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
      order by a.attrelid, a.attnum`),
  );
  const keys = rowsOf<{ oid: number; name: string }>(
    await executor.execute(sql`
      select con.conrelid::int8 as oid, a.attname as name
      from pg_constraint con
      join pg_namespace n on n.oid = con.connamespace
      cross join lateral unnest(con.conkey) with ordinality as k(attnum, ord)
      join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
      where n.nspname = 'public' and con.contype = 'p'
      order by con.conrelid, k.ord`),
  );
  const foreignKeys = rowsOf<{ name: string; child: number; parent: number; deferrable: boolean; columns: string[]; nullable: boolean[] }>(
    await executor.execute(sql`
      select con.conname as name, con.conrelid::int8 as child, con.confrelid::int8 as parent, con.condeferrable as deferrable,
             array_agg(a.attname::text order by k.ord) as columns, array_agg(not a.attnotnull order by k.ord) as nullable
      from pg_constraint con
      join pg_namespace n on n.oid = con.connamespace
      cross join lateral unnest(con.conkey) with ordinality as k(attnum, ord)
      join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
      where n.nspname = 'public' and con.contype = 'f'
      group by con.oid, con.conname, con.conrelid, con.confrelid, con.condeferrable`),
  );

  const byOid = new Map<number, TableInfo>();
  for (const t of tables) byOid.set(t.oid, { ...t, columns: [], primaryKey: [], sequences: [], deferred: [] });
  for (const c of columns) {
    // Generated columns are computed by the target: they cannot be inserted.
    if (c.generated && c.generated !== "") continue;
    byOid.get(Number(c.oid))?.columns.push({
      name: c.name,
      type: c.type,
      category: c.category,
      identity: (c.identity || "") as ColumnInfo["identity"],
    });
  }
  for (const k of keys) byOid.get(Number(k.oid))?.primaryKey.push(k.name);

  for (const table of byOid.values()) {
    for (const column of table.columns.filter((c) => c.identity)) {
      const qualified = `public.${quoteIdent(table.name)}`;
      const [seq] = rowsOf<{ name: string | null }>(
        await executor.execute(sql`select pg_get_serial_sequence(${qualified}, ${column.name}) as name`),
      );
      if (!seq?.name) continue;
      const [state] = rowsOf<{ last_value: string | number; is_called: boolean }>(
        await executor.execute(sql.raw(`select last_value::text as last_value, is_called from ${seq.name}`)),
      );
      table.sequences.push({ column: column.name, lastValue: String(state.last_value), isCalled: Boolean(state.is_called) });
    }
  }

  const nameOf = (oid: number) => byOid.get(Number(oid))?.name ?? "";
  const plan = restorePlan(
    tables.map((t) => t.name),
    foreignKeys.map((f) => ({
      name: f.name,
      child: nameOf(f.child),
      parent: nameOf(f.parent),
      deferrable: Boolean(f.deferrable),
      columns: pgArray(f.columns).map((name, i) => ({ name, nullable: pgBoolArray(f.nullable)[i] })),
    })),
  );
  const byName = new Map([...byOid.values()].map((t) => [t.name, t]));
  for (const key of plan.deferred) {
    const table = byName.get(key.child)!;
    // The UPDATEs find their rows by primary key.
    if (table.primaryKey.length === 0) throw new UnrestorableCycleError([key.child, key.parent], `${key.child} has no primary key`);
    for (const column of key.columns) if (!table.deferred.includes(column.name)) table.deferred.push(column.name);
  }
  return plan.order.map((name) => byName.get(name)!);
}

/** An array from the catalog: a JavaScript array (both drivers parse text[]), or its text form. */
function pgArray(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  return value.replace(/^\{|\}$/g, "").split(",").map((v) => v.replace(/^"|"$/g, ""));
}

function pgBoolArray(value: boolean[] | string): boolean[] {
  if (Array.isArray(value)) return value.map((v) => v === true || (v as unknown) === "t");
  return pgArray(value).map((v) => v === "t" || v === "true");
}

/** The SQL expression that renders one column of a row as a SQL literal. */
function literalExpression(column: ColumnInfo): string {
  const c = quoteIdent(column.name);
  if (column.category === "B" && column.type === "boolean") {
    return `(case when ${c} is null then 'NULL' when ${c} then 'TRUE' else 'FALSE' end)`;
  }
  if (column.type === "smallint" || column.type === "integer" || column.type === "bigint") {
    return `coalesce(${c}::text, 'NULL')`;
  }
  return `quote_nullable(${c})`;
}

/**
 * One row as `(literal, literal, ...),` and a newline: the separator comes with the row,
 * and the statement's last row is cut before it. concat() builds the row in one pass; a
 * chain of `||` would copy the growing text (a whole chapter) once per column.
 */
function rowLiteralExpression(table: TableInfo): string {
  // A key's columns that close a cycle go in as NULL; the UPDATEs at the end set them.
  const literals = table.columns.map((c) => (table.deferred.includes(c.name) ? "'NULL'" : literalExpression(c)));
  return `concat('(', ${literals.join(`, ', ', `)}, E'),\n')`;
}

/**
 * The row of the UPDATEs that set a table's deferred columns: its primary key and those
 * columns, each as a text literal that the statement casts back to the column's type.
 */
function updateRowExpression(table: TableInfo): string {
  const columns = [...table.primaryKey, ...table.deferred].map((name) => `quote_nullable(${quoteIdent(name)}::text)`);
  return `concat('(', ${columns.join(`, ', ', `)}, E'),\n')`;
}

/** `UPDATE ... FROM (VALUES` up to the rows; the rows and `) AS v(...) WHERE ...;` follow. */
function updateHeader(table: TableInfo): { head: string; tail: string } {
  const types = new Map(table.columns.map((c) => [c.name, c.type]));
  const all = [...table.primaryKey, ...table.deferred];
  const set = table.deferred.map((c) => `${quoteIdent(c)} = v.${quoteIdent(c)}::${types.get(c)}`).join(", ");
  const match = table.primaryKey.map((k) => `t.${quoteIdent(k)} = v.${quoteIdent(k)}::${types.get(k)}`).join(" AND ");
  return {
    head: `UPDATE public.${quoteIdent(table.name)} AS t SET ${set} FROM (VALUES\n`,
    tail: `\n) AS v (${all.map(quoteIdent).join(", ")}) WHERE ${match};\n`,
  };
}

/** The bytes that end every row literal: `,` and a newline. */
const ROW_SEPARATOR_BYTES = 2;

/** Keyset cursor: the primary key (or, for a table without one, the physical row id). */
function cursorColumns(table: TableInfo): { exprs: string[]; casts: string[] } {
  if (table.primaryKey.length === 0) return { exprs: ["ctid"], casts: ["tid"] };
  const types = new Map(table.columns.map((c) => [c.name, c.type]));
  return {
    exprs: table.primaryKey.map(quoteIdent),
    // A primary key is never generated, so its type is among the exported columns.
    casts: table.primaryKey.map((k) => types.get(k) ?? "text"),
  };
}

/**
 * The keyset query of one batch, as text with $n parameters (for either driver): the
 * cursor's columns and the row literal, row by row in key order. Rows come one by one
 * rather than joined into one value by PostgreSQL: a joined value of a megabyte arrives in
 * many socket reads that the driver has to copy into one buffer, while a row of a few
 * kilobytes is a slice of the read it arrived in.
 */
function batchQuery(
  table: TableInfo,
  after: string[] | null,
  limit: number,
  pass: "insert" | "update" = "insert",
): { text: string; params: string[] } {
  const { exprs, casts } = cursorColumns(table);
  const order = exprs.join(", ");
  const conditions = [
    EXPORTED_ROWS[table.name],
    // The UPDATE pass visits only the rows whose deferred columns hold a value.
    pass === "update" && `(${table.deferred.map((c) => `${quoteIdent(c)} is not null`).join(" or ")})`,
    after && `(${order}) > (${after.map((_, i) => `$${i + 1}::${casts[i]}`).join(", ")})`,
  ];
  const row = pass === "insert" ? rowLiteralExpression(table) : updateRowExpression(table);
  let text = `select ${exprs.map((e, i) => `${e}::text as o${i}`).join(", ")}, ${row} as r from public.${quoteIdent(table.name)}`;
  if (conditions.some(Boolean)) text += ` where ${conditions.filter(Boolean).join(" and ")}`;
  text += ` order by ${order} limit ${limit}`;
  return { text, params: after ?? [] };
}

/** "$1"-style text and parameters as a drizzle SQL (for PGlite). */
function drizzleQuery(text: string, params: string[]): SQL {
  const parts = text.split(/\$(\d+)/);
  const chunks: SQL[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 0) chunks.push(sql.raw(parts[i]));
    else chunks.push(sql`${params[Number(parts[i]) - 1]}`);
  }
  return sql.join(chunks, sql``);
}

/** Fixed output settings, so literals read back identically whatever the server's defaults. */
const EXPORT_SETTINGS = [
  "set local timezone = 'UTC'",
  "set local datestyle = 'ISO, YMD'",
  "set local intervalstyle = 'postgres'",
  "set local extra_float_digits = 3",
  "set local bytea_output = 'hex'",
];

/** The SQL text goes out as strings (headers) and as the row literals' UTF-8 bytes. */
export type SqlWriter = (chunk: string | Uint8Array | readonly Uint8Array[]) => Promise<void>;

function insertHeader(table: TableInfo): string {
  const overriding = table.columns.some((c) => c.identity === "a") ? " OVERRIDING SYSTEM VALUE" : "";
  return `INSERT INTO public.${quoteIdent(table.name)} (${table.columns.map((c) => quoteIdent(c.name)).join(", ")})${overriding} VALUES\n`;
}

/** One batch: the key of its last row, its row literals as UTF-8 (in key order). */
interface Batch {
  lastKey: string[];
  rows: Uint8Array[];
  bytes: number;
}

/** How the export reads: counts and batches, on one snapshot or batch by batch. */
interface Reader {
  count(table: TableInfo): Promise<number>;
  batch(text: string, params: string[]): Promise<Batch | null>;
}

/**
 * Rows left out of the export, by table: staged TXT imports past their lifetime, which the
 * hourly cleanup may not have deleted yet (docs/decisions/056).
 */
const EXPORTED_ROWS: Record<string, string | undefined> = { txt_imports: LIVE_TXT_IMPORT };

/**
 * Tables whose rows the export leaves out (docs/decisions/148): the restore empties them.
 * Session ids are bearer secrets (a copy of the export would sign anyone in as anyone);
 * rate-limit counters hold e-mail and network addresses and last minutes to hours; the
 * one-time form tokens guard against a repeated post for a week. A restored site signs
 * everyone out and starts with fresh counters.
 * @internal
 */
export const LEFT_OUT_TABLES: readonly string[] = ["admin_sessions", "form_submissions", "rate_limits", "sessions"];

/**
 * Tables the restore's own INSERTs also write to, through triggers: the queue of works whose
 * counts changed (decision 267) gains a row for every favourite, purchase and read put back.
 * They come last, emptied first, so the restore leaves the source's rows and no others.
 */
const TRIGGER_FILLED_TABLES: readonly string[] = ["work_stats_queue"];

const countQuery = (table: TableInfo) =>
  `select count(*)::text as n from public.${quoteIdent(table.name)}${EXPORTED_ROWS[table.name] ? ` where ${EXPORTED_ROWS[table.name]}` : ""}`;

/**
 * PostgreSQL: one REPEATABLE READ, READ ONLY transaction on one connection of the pool,
 * read with postgres.js directly in raw mode, so the row literals arrive as bytes and
 * go out as bytes: no decoding into JavaScript strings and encoding back, which would
 * churn about three times the data through the heap.
 */
async function withPostgresReader<T>(fn: (reader: Reader) => Promise<T>): Promise<T> {
  const client = (db as unknown as { $client: import("postgres").Sql }).$client;
  return (await client.begin("isolation level repeatable read read only", async (tx) => {
    for (const statement of EXPORT_SETTINGS) await tx.unsafe(statement);
    return fn({
      async count(table) {
        const [row] = await tx.unsafe<{ n: string }[]>(countQuery(table));
        return Number(row.n);
      },
      async batch(text, params) {
        const result = (await tx.unsafe(text, params).raw()) as unknown as Buffer[][];
        if (result.length === 0) return null;
        const rows: Uint8Array[] = new Array(result.length);
        let bytes = 0;
        for (let i = 0; i < result.length; i++) {
          const literal = result[i][result[i].length - 1];
          rows[i] = literal;
          bytes += literal.byteLength;
        }
        const last = result[result.length - 1];
        return { lastKey: last.slice(0, -1).map((cell) => cell.toString("utf8")), rows, bytes };
      },
    });
  })) as T;
}

/** PGlite: its one connection is shared with the site, so each batch is a short transaction. */
async function withPgliteReader<T>(fn: (reader: Reader) => Promise<T>): Promise<T> {
  const run = <R>(query: SQL) =>
    db.transaction(async (tx) => {
      for (const statement of EXPORT_SETTINGS) await tx.execute(sql.raw(statement));
      return rowsOf<R>(await tx.execute(query));
    });
  return fn({
    async count(table) {
      const [row] = await run<{ n: string }>(sql.raw(countQuery(table)));
      return Number(row.n);
    },
    async batch(text, params) {
      const result = await run<Record<string, string>>(drizzleQuery(text, params));
      if (result.length === 0) return null;
      const rows = result.map((row) => encoder.encode(row.r));
      const last = result[result.length - 1];
      const keys = Object.keys(last).filter((k) => /^o\d+$/.test(k)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
      return { lastKey: keys.map((k) => last[k]), rows, bytes: rows.reduce((sum, r) => sum + r.byteLength, 0) };
    },
  });
}

/**
 * Writes database.sql through `write` (which waits when the reader is slower), calling
 * `onProgress` per table and batch. `snapshot` (PostgreSQL) reads everything in one
 * transaction; without it every batch runs in its own (PGlite).
 */
export async function writeDatabaseSql(
  write: SqlWriter,
  onProgress: (progress: ExportProgress) => void = () => {},
): Promise<{ tables: number; rows: number }> {
  onProgress({ stage: "prepare", label: "准备导出", detail: "正在读取表结构", percent: 0 });
  // The catalog is read outside the snapshot: the schema does not change under an export.
  const tables = await describeTables(db);
  const withReader = databaseKind === "postgres" ? withPostgresReader : withPgliteReader;
  return withReader((reader) => writeTables(write, onProgress, reader, tables));
}

const encoder = new TextEncoder();
const STATEMENT_END = encoder.encode(";\n");

/**
 * Reads one table in keyset batches and writes each batch as one statement: `head`, the
 * rows, `tail`. The next batch is read while this one is compressed and sent.
 */
async function writeStatements(
  write: SqlWriter,
  reader: Reader,
  query: (after: string[] | null, limit: number) => { text: string; params: string[] },
  head: Uint8Array,
  tail: Uint8Array,
  onBatch: (rows: number) => void,
): Promise<void> {
  let limit = MAX_BATCH_ROWS;
  const read = (after: string[] | null) => {
    const { text, params } = query(after, limit);
    const pending = reader.batch(text, params);
    // If writing fails (a cancelled download) this read is abandoned, not awaited.
    pending.catch(() => {});
    return pending;
  };
  let next: Promise<Batch | null> = read(null);
  for (;;) {
    const batch = await next;
    if (!batch) break;
    const count = batch.rows.length;
    const last = count < limit;
    // Aim at TARGET_BATCH_BYTES a batch: many small rows, or a few long chapters.
    const average = Math.max(1, batch.bytes / count);
    limit = Math.max(MIN_BATCH_ROWS, Math.min(MAX_BATCH_ROWS, Math.floor(TARGET_BATCH_BYTES / average)));
    next = last ? Promise.resolve(null) : read(batch.lastKey);
    // The statement: its head, its rows, and the last row's separator cut off before the tail.
    const final = batch.rows[count - 1];
    batch.rows[count - 1] = final.subarray(0, final.byteLength - ROW_SEPARATOR_BYTES);
    batch.rows.push(tail);
    await write(head);
    await write(batch.rows);
    onBatch(count);
  }
}

async function writeTables(write: SqlWriter, onProgress: (p: ExportProgress) => void, reader: Reader, inOrder: TableInfo[]) {
  const filled = (t: TableInfo) => TRIGGER_FILLED_TABLES.includes(t.name);
  const tables = [...inOrder.filter((t) => !filled(t)), ...inOrder.filter(filled)];
  const exported = (t: TableInfo) => t.columns.length > 0 && !LEFT_OUT_TABLES.includes(t.name);
  const counts: number[] = [];
  for (const table of tables) counts.push(exported(table) ? await reader.count(table) : 0);
  // Each table weighs its rows plus one, so empty tables still move the bar.
  const totalWeight = counts.reduce((a, n) => a + n + 1, 0);
  let doneWeight = 0;
  const percentOf = (weight: number) => Math.min(89, Math.floor((weight / totalWeight) * 90));

  await write(
    [
      "-- 砚台 (Inkstone) database export",
      `-- Exported at ${new Date().toISOString()}; ${tables.length} tables.`,
      "-- Restore into an empty database migrated to the same schema:",
      "--   psql -v ON_ERROR_STOP=1 -d <database> -f database.sql",
      `-- Left out (emptied by the restore): ${LEFT_OUT_TABLES.join(", ")} (docs/decisions/148).`,
      "SET client_encoding = 'UTF8';",
      "SET standard_conforming_strings = on;",
      "SET timezone = 'UTC';",
      "BEGIN;",
      // DEFERRABLE foreign keys are checked at COMMIT; the others in the order below.
      "SET CONSTRAINTS ALL DEFERRED;",
      "",
      ...tables.map((t) => `TRUNCATE TABLE public.${quoteIdent(t.name)} CASCADE;`),
      "",
    ].join("\n"),
  );

  let totalRows = 0;
  for (const [index, table] of tables.entries()) {
    const expected = counts[index];
    const label = `导出数据表（${index + 1}/${tables.length}）`;
    onProgress({ stage: "tables", label, detail: `${table.name}：0 / ${expected} 行`, percent: percentOf(doneWeight) });
    if (!exported(table)) {
      await write(`\n-- Table ${table.name}: left out\n`);
      doneWeight += expected + 1;
      continue;
    }
    await write(`\n-- Table ${table.name}\n`);
    if (filled(table)) await write(`-- (what the triggers of the tables above added goes first)\nDELETE FROM public.${quoteIdent(table.name)};\n`);
    let rowsDone = 0;
    await writeStatements(
      write,
      reader,
      (after, limit) => batchQuery(table, after, limit),
      encoder.encode(insertHeader(table)),
      STATEMENT_END,
      (count) => {
        rowsDone += count;
        totalRows += count;
        onProgress({
          stage: "tables",
          label,
          detail: `${table.name}：${rowsDone} / ${Math.max(expected, rowsDone)} 行`,
          percent: percentOf(doneWeight + Math.min(rowsDone, expected)),
        });
      },
    );
    doneWeight += expected + 1;
  }

  // Keys that close a cycle: every row is in now, so the columns inserted as NULL are set.
  for (const table of tables.filter((t) => exported(t) && t.deferred.length > 0)) {
    await write(`\n-- Table ${table.name}: ${table.deferred.join(", ")} (foreign keys on a cycle)\n`);
    const { head, tail } = updateHeader(table);
    await writeStatements(
      write,
      reader,
      (after, limit) => batchQuery(table, after, limit, "update"),
      encoder.encode(head),
      encoder.encode(tail),
      () => onProgress({ stage: "tables", label: "导出数据表", detail: `${table.name}：补全引用`, percent: 89 }),
    );
  }

  const setvals = tables.flatMap((t) =>
    t.sequences.map(
      (s) =>
        `SELECT setval(pg_get_serial_sequence(${quoteLiteral(`public.${quoteIdent(t.name)}`)}, ${quoteLiteral(s.column)}), ${s.lastValue}, ${s.isCalled});`,
    ),
  );
  await write(`\n-- Identity sequences\n${setvals.join("\n")}\n\nCOMMIT;\n`);
  return { tables: tables.length, rows: totalRows };
}
