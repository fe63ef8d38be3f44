import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { lockDataDir } from "~/db/data-dir-lock.server";
import { fillEveryTable, publicTables, rowsByTable, tablesWithoutRows, type Query } from "../fixtures/every-table";
import { runScript } from "../fixtures/processes";

/**
 * `npm run backup` and `npm run restore` for the embedded mode, as separate processes on
 * a data directory of their own (a copy of the migrated PGlite template).
 */
let tmp: string;
let env: NodeJS.ProcessEnv;
let dataDir: string;
const cover = () => path.join(dataDir, "uploads", "covers", "u1", "a.webp");

/** Writes `value` into the database directly (no process holds it), returning every value there. */
async function notes(dir: string, value?: string): Promise<string[]> {
  const client = await PGlite.create(dir, { extensions: { pg_trgm } });
  try {
    await client.exec("create table if not exists backup_notes (value text not null)");
    if (value) await client.query("insert into backup_notes (value) values ($1)", [value]);
    const { rows } = await client.query<{ value: string }>("select value from backup_notes order by value");
    return rows.map((r) => r.value);
  } finally {
    await client.close();
  }
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-backup-"));
  dataDir = path.join(tmp, "data");
  fs.mkdirSync(dataDir, { recursive: true });
  const template = inject("pgliteTemplateDir");
  if (template) fs.cpSync(template, path.join(dataDir, "pglite"), { recursive: true });
  env = { ...process.env, DATA_DIR: dataDir, PGLITE_DIR: path.join(dataDir, "pglite") };
  delete env.DATABASE_URL;
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("npm run backup / restore", () => {
  it("copies the database, uploads and session secret, and puts them back, keeping what was there aside", async () => {
    expect(await notes(env.PGLITE_DIR!, "before")).toEqual(["before"]);
    fs.mkdirSync(path.dirname(cover()), { recursive: true });
    fs.writeFileSync(cover(), "cover bytes");
    fs.writeFileSync(path.join(dataDir, "session-secret"), "the-secret");

    const made = await runScript("scripts/backup.ts", env, ["--to", path.join(tmp, "backups")]);
    expect(made.code).toBe(0);
    const backupDir = /备份完成：(.+)/.exec(made.output)![1].trim();
    expect(path.basename(backupDir)).toMatch(/^inkstone-backup-\d{8}T\d{6}Z$/);
    expect(fs.readdirSync(backupDir).sort()).toEqual(["inkstone-backup.json", "pglite", "session-secret", "uploads"]);

    // Changes after the backup ...
    expect(await notes(env.PGLITE_DIR!, "after")).toEqual(["after", "before"]);
    fs.rmSync(cover());
    fs.writeFileSync(path.join(dataDir, "session-secret"), "a-new-secret");

    // ... are undone by the restore; the data it replaced is kept aside.
    const restored = await runScript("scripts/restore.ts", env, [backupDir]);
    expect([restored.code, restored.output]).toEqual([0, expect.stringContaining(`已从 ${backupDir} 恢复。`)]);
    expect(await notes(env.PGLITE_DIR!)).toEqual(["before"]);
    expect(fs.readFileSync(cover(), "utf8")).toBe("cover bytes");
    expect(fs.readFileSync(path.join(dataDir, "session-secret"), "utf8")).toBe("the-secret");
    const aside = fs.readdirSync(dataDir).filter((name) => name.startsWith("pglite.before-restore-"));
    expect(aside).toHaveLength(1);
    expect(fs.existsSync(path.join(dataDir, aside[0], "PG_VERSION"))).toBe(true);
  }, 240_000);

  it("refuses while another process has the database open, and a directory that is not a backup", async () => {
    const unlock = await lockDataDir(env.PGLITE_DIR!); // this process stands in for the server
    try {
      const refused = await runScript("scripts/backup.ts", env, ["--to", path.join(tmp, "backups")]);
      expect(refused.code).toBe(3);
      expect(refused.output).toContain(`正被进程 ${process.pid}`);
      const alsoRefused = await runScript("scripts/restore.ts", env, [fs.readdirSync(path.join(tmp, "backups")).map((d) => path.join(tmp, "backups", d))[0]]);
      expect(alsoRefused.code).toBe(3);
    } finally {
      await unlock();
    }
    const notABackup = await runScript("scripts/restore.ts", env, [tmp]);
    expect([notABackup.code, notABackup.output]).toEqual([2, expect.stringContaining("不是 npm run backup 做的备份")]);
  }, 120_000);
});

/** Runs `work` with a PGlite client of its own on `dir` (no other process may have it open). */
async function onDirectory<T>(dir: string, work: (query: Query) => Promise<T>): Promise<T> {
  const client = await PGlite.create(dir, { extensions: { pg_trgm } });
  try {
    await client.exec("set timezone = 'UTC'; set extra_float_digits = 3");
    return await work(async (text) => (await client.query<Record<string, unknown>>(text)).rows);
  } finally {
    await client.close();
  }
}

describe("npm run backup / restore of a site in use", () => {
  it("gives back every table row by row (every table has rows: tests/fixtures/every-table.ts)", async () => {
    const { databaseKind, closeDatabase } = await import("~/db/client.server");
    if (databaseKind === "postgres") {
      // PostgreSQL is backed up with pg_dump (and database.zip, tests/integration/admin-exports.test.ts):
      // the scripts refuse, saying so. The run on PGlite (CI runs both) does the rest of this test.
      const refused = await runScript("scripts/backup.ts", { ...process.env }, ["--to", path.join(tmp, "pg-backups")]);
      expect([refused.code, refused.output]).toEqual([2, expect.stringContaining("pg_dump")]);
      return;
    }
    // The file's own database (a copy of the migrated template), filled by the site's functions.
    await fillEveryTable();
    const siteDir = process.env.PGLITE_DIR!;
    await closeDatabase();
    const siteEnv = { ...process.env, DATA_DIR: path.dirname(siteDir), PGLITE_DIR: siteDir };
    const before = await onDirectory(siteDir, async (query) => {
      const tables = await publicTables(query);
      const rows = await rowsByTable(query, tables);
      expect(await tablesWithoutRows(tables, async (t) => rows[t].length)).toEqual([]);
      return rows;
    });

    const made = await runScript("scripts/backup.ts", siteEnv, ["--to", path.join(tmp, "site-backups")]);
    expect(made.code, made.output).toBe(0);
    const backupDir = /备份完成：(.+)/.exec(made.output)![1].trim();

    // After the backup, the site loses everything ...
    await onDirectory(siteDir, async (query) => {
      const tables = await publicTables(query);
      await query(`truncate ${tables.map((t) => `public."${t}"`).join(", ")} cascade`);
    });
    // ... and the restore gives back every row of every table.
    const restored = await runScript("scripts/restore.ts", siteEnv, [backupDir]);
    expect(restored.code, restored.output).toBe(0);
    const after = await onDirectory(siteDir, async (query) => rowsByTable(query, await publicTables(query)));
    expect(Object.keys(after)).toEqual(Object.keys(before));
    for (const table of Object.keys(before)) expect(after[table], `table ${table}`).toEqual(before[table]);
  }, 240_000);
});
