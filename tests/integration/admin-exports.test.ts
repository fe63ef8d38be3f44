import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import ExcelJS from "exceljs";
import JSZip from "jszip";
import postgres from "postgres";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { databaseKind, db } from "~/db/client.server";
import { chapters, creditTransactions, favorites, prompts, rateLimits, redeemCodes, siteConfigs, tokenTransactions, txtImports, works } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";
import { describeTables, LEFT_OUT_TABLES, quoteIdent, type ExportProgress } from "~/server/admin/exports/database.server";
import { createDatabaseZip } from "~/server/admin/exports/database-zip.server";
import { generateRedeemCodes } from "~/server/admin/redeem-codes.server";
import { parseTxtChapters } from "~/server/studio/txt-import.server";
import { createWork } from "~/server/catalog/works.server";
import { createUser } from "../fixtures/accounts";
import { fillEveryTable, rowsByTable, tablesWithoutRows, type Query } from "../fixtures/every-table";
import { insertWorks } from "../fixtures/works";
import { adminCookieFor, callLoader, createAdmin, request, testActor } from "./admin-fixtures";
import { quietFor, waitFor } from "../fixtures/wait";

const run = promisify(execFile);

let cookie: string;
let author: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  const admin = await createAdmin();
  cookie = await adminCookieFor(admin.id);
  author = await createUser();
});

const exportTxt = async (id: number | string) => {
  const mod = await import("~/routes/exports/work-txt");
  return callLoader(mod, request(`/exports/works/${id}/txt`, { cookie }), { id: String(id) });
};

describe("work TXT export", () => {
  const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

  it("re-imports through the TXT parser into the same chapters, in order", async () => {
    const list = [
      { title: "第一章 雨夜", content: "　　雨落在青石板上。\n\n　　她撑着伞，慢慢走着。\n“你来了。”" },
      { title: "第二章 重逢", content: "他没有回答。\n\n\n风从河面上吹来。" },
      { title: "第三章 'quotes' \"and\" \\slashes\\", content: "O'Brien said \"hi\" \\ 100% ; -- not a comment\n  #### 缩进的行不是分隔符" },
      ...Array.from({ length: 400 }, (_, i) => ({ title: `第${i + 4}章`, content: `第${i + 4}章的正文。\n第二段。` })),
    ];
    const work = await createWork(author.id, { ...base, title: "往返/测试:作品", type: "multi_chapter", status: "completed" }, list, null);
    const r = await exportTxt(work.id);
    expect(r.status).toBe(200);
    const headers = r.response!.headers;
    expect(headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    expect(headers.get("Content-Disposition")).toBe(
      `attachment; filename="work-${work.id}.txt"; filename*=UTF-8''${encodeURIComponent("往返 测试 作品.txt")}`,
    );
    const text = await r.response!.text();
    const parsed = parseTxtChapters(text);
    const stored = await db.select().from(chapters).where(eq(chapters.workId, work.id)).orderBy(chapters.position, chapters.id);
    expect(parsed.map((c) => [c.title, c.content])).toEqual(stored.map((c) => [c.title, c.content]));
    expect(parsed).toHaveLength(403);
  });

  it("gives docs/product.md's messages for a missing work, no chapters and empty content", async () => {
    let r = await exportTxt(987654321);
    expect(r.status).toBe(404);
    expect(await r.response!.text()).toBe("无法加载导出：作品不存在");
    r = await exportTxt("abc");
    expect(await r.response!.text()).toBe("无法加载导出：作品不存在");

    const [bare, blank] = await insertWorks([
      { userId: author.id, title: "没有章节" },
      { userId: author.id, title: "空白章节" },
    ]);
    r = await exportTxt(bare);
    expect(r.status).toBe(404);
    expect(await r.response!.text()).toBe("未找到章节内容");
    await db.insert(chapters).values([
      { workId: blank, title: "一", content: "  \n\t ", position: 1 },
      { workId: blank, title: "二", content: "", position: 2 },
    ]);
    r = await exportTxt(blank);
    expect(r.status).toBe(404);
    expect(await r.response!.text()).toBe("作品内容为空");
  });
});

describe("unused redeem codes spreadsheet", () => {
  const exportXlsx = async () => {
    const mod = await import("~/routes/exports/unused-codes");
    return callLoader(mod, request("/exports/redeem-codes/unused.xlsx", { cookie }));
  };

  it("says 暂无未使用的兑换码 when there are none", async () => {
    await db.update(redeemCodes).set({ status: "used", usedAt: new Date() }).where(eq(redeemCodes.status, "unused"));
    const r = await exportXlsx();
    expect(r.status).toBe(404);
    expect(await r.response!.text()).toBe("暂无未使用的兑换码");
  });

  it("is an .xlsx named 未使用兑换码 with columns 兑换码, 积分, 创建时间 (Asia/Shanghai), unused codes only", async () => {
    const codes = [...(await generateRedeemCodes(testActor, 30, 20)), ...(await generateRedeemCodes(testActor, 5, 100))];
    await db.update(redeemCodes).set({ status: "used", usedAt: new Date() }).where(eq(redeemCodes.code, codes[0]));
    const r = await exportXlsx();
    expect(r.status).toBe(200);
    expect(r.response!.headers.get("Content-Type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(r.response!.headers.get("Content-Disposition")).toContain(`filename*=UTF-8''${encodeURIComponent("未使用兑换码.xlsx")}`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await r.response!.arrayBuffer()) as never);
    expect(workbook.worksheets.map((s) => s.name)).toEqual(["未使用兑换码"]);
    const sheet = workbook.getWorksheet("未使用兑换码")!;
    expect(sheet.getRow(1).values).toEqual([undefined, "兑换码", "积分", "创建时间"]);
    const rows: [string, number, string][] = [];
    sheet.eachRow((row, n) => {
      if (n > 1) rows.push([String(row.getCell(1).value), Number(row.getCell(2).value), String(row.getCell(3).value)]);
    });
    const unused = await db.select().from(redeemCodes).where(eq(redeemCodes.status, "unused"));
    expect(rows.map((r) => r[0]).sort()).toEqual(unused.map((c) => c.code).sort());
    expect(rows.map((r) => r[0])).not.toContain(codes[0]);
    const byCode = new Map(unused.map((c) => [c.code, c]));
    for (const [code, amount, created] of rows) {
      expect(code).toMatch(/^[1-9]\d{9}$/);
      expect(amount).toBe(byCode.get(code)!.amount);
      expect(created).toBe(formatShanghaiSeconds(byCode.get(code)!.createdAt));
      expect(created).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    }
  });
});

// ---------------------------------------------------------------------------------------
// database.zip: restored into a database made from nothing and migrated, it gives
// identical rows, table by table (PostgreSQL with psql when DATABASE_URL is set; a fresh
// PGlite otherwise).

async function seedVariedData() {
  const user = await createUser();
  const { profiles } = await import("~/db/schema");
  await db
    .update(profiles)
    .set({ nickname: `O'Brien "引号" \\反斜杠\\ 😀`, avatarUrl: null, showR18: true, showAi: false })
    .where(eq(profiles.id, user.id));
  const work = await createWork(
    user.id,
    { title: "备份'测试\"作品", description: "第一行\n第二行\t制表符 \\ $$ E'x' ;-- 注释", rating: "r18", isAiGenerated: true, visibility: "public", type: "multi_chapter", status: "completed" },
    [
      { title: "引号 ' \" \\", content: "内容包含 'single' \"double\" \\backslash\\ 和换行\n\n以及 NUL 以外的一切：\u2028\u00a0😀" },
      ...Array.from({ length: 2500 }, (_, i) => ({ title: `第${i + 1}章`, content: `第${i + 1}章。`.repeat(20) })),
      { title: "长章节", content: "长".repeat(1_500_000) },
    ],
    null,
  );
  await db.insert(favorites).values({ userId: author.id, workId: work.id });
  // More favorites than one batch holds: the keyset on a two-column key crosses batches.
  const liked = await insertWorks(Array.from({ length: 1200 }, (_, i) => ({ userId: user.id, title: `收藏${i}` })));
  await db.insert(favorites).values(liked.map((workId) => ({ userId: author.id, workId })));
  await db.insert(txtImports).values({
    userId: user.id,
    fileName: "导入'测试'.txt",
    separator: "####",
    chapters: [{ title: `含"引号"与\\反斜杠`, content: "json {\"nested\": [1, 2.5, true, null]} 'x'" }],
  });
  await db.insert(creditTransactions).values({ userId: user.id, amount: 9_007_199_254, type: "recharge", description: "大额" });
  await db.insert(tokenTransactions).values({ userId: user.id, amount: -42, type: "generation", description: "生成", promptChars: null, outputChars: 7, model: null });
  await db.insert(prompts).values({ code: `BK${randomBytes(3).toString("hex")}`, title: "备份", systemContent: "s'", userContent: "{|synopsis|}", isSystem: false, type: "continue" });
  await db.insert(siteConfigs).values({ key: "backup_test", value: "多行\n'值'" }).onConflictDoNothing();
  await db.insert(rateLimits).values({ key: "backup:test", windowStart: new Date("2024-02-29T23:59:59.123Z"), count: 3 }).onConflictDoNothing();
  const [code] = await generateRedeemCodes(testActor, 1, 50);
  await db.update(redeemCodes).set({ status: "used", usedBy: user.id, usedAt: new Date("2025-01-01T00:00:00.000001Z") }).where(eq(redeemCodes.code, code));
  // A deleted row moves an identity sequence past max(id): the restore must keep that too.
  const [gone] = await insertWorks([{ userId: user.id, title: "已删除" }]);
  await db.delete(works).where(eq(works.id, gone));
}

/** Raw session ids (user and admin): bearer secrets the export must not carry. */
async function sessionIds(query: Query): Promise<string[]> {
  const rows = await query("select id from public.sessions union all select id from public.admin_sessions");
  return rows.map((row) => String(row.id));
}

async function sequences(query: Query) {
  return query(`
    select s.relname as name, (pg_sequence_last_value(s.oid)) as last
    from pg_class s join pg_namespace n on n.oid = s.relnamespace
    where s.relkind = 'S' and n.nspname = 'public' order by s.relname`);
}

async function downloadZip(): Promise<Buffer> {
  const mod = await import("~/routes/exports/database");
  const r = await callLoader(mod, request("/exports/database.zip", { cookie }));
  expect(r.status).toBe(200);
  expect(r.response!.headers.get("Content-Type")).toBe("application/zip");
  expect(r.response!.headers.get("Content-Disposition")).toContain("database.zip");
  return Buffer.from(await r.response!.arrayBuffer());
}

describe("database.zip", () => {
  let sqlText: string;
  let zipBytes: Buffer;

  beforeAll(async () => {
    await seedVariedData();
    // Every table has rows, written by the site's own functions (free writing's cycle too).
    await fillEveryTable();
    zipBytes = await downloadZip();
    const zip = await JSZip.loadAsync(zipBytes);
    expect(Object.keys(zip.files)).toEqual(["database.sql"]);
    sqlText = await zip.file("database.sql")!.async("string");
  }, 120_000);

  it("is compressed, and holds TRUNCATE ... CASCADE then INSERTs for every table in dependency order", async () => {
    expect(zipBytes.length).toBeLessThan(sqlText.length / 5);
    // database.sql spans several deflate blocks; Info-ZIP's unzip checks the archive and its CRC.
    expect(Buffer.byteLength(sqlText)).toBeGreaterThan(3 * 1024 * 1024);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-zip-")), "database.zip");
    fs.writeFileSync(file, zipBytes);
    try {
      expect((await run("unzip", ["-tq", file])).stdout).toMatch(/No errors detected/);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
    const tables = (await describeTables()).map((t) => t.name);
    for (const table of tables) expect(sqlText).toContain(`TRUNCATE TABLE public.${quoteIdent(table)} CASCADE;`);
    const at = (needle: string) => sqlText.indexOf(needle);
    expect(at('TRUNCATE TABLE public."users"')).toBeLessThan(at('TRUNCATE TABLE public."works"'));
    expect(at('INSERT INTO public."users"')).toBeLessThan(at('INSERT INTO public."works"'));
    expect(at('INSERT INTO public."works"')).toBeLessThan(at('INSERT INTO public."chapters"'));
    expect(at('INSERT INTO public."chapters"')).toBeLessThan(at('INSERT INTO public."favorites"'));
    // Identity columns keep their values; generated columns are left to the target.
    expect(sqlText).toMatch(/INSERT INTO public\."works" \([^)]*\) OVERRIDING SYSTEM VALUE VALUES/);
    expect(sqlText).not.toContain('"search_grams"');
    expect(sqlText).toMatch(/SELECT setval\(pg_get_serial_sequence\('public\."works"', 'id'\), \d+, true\);/);
    // Read in batches: the 2,502 chapters come in several statements.
    expect(sqlText.match(/INSERT INTO public\."chapters"/g)!.length).toBeGreaterThanOrEqual(3);
    expect(sqlText.match(/INSERT INTO public\."favorites"/g)!.length).toBeGreaterThanOrEqual(2);
    expect(sqlText.trimEnd().endsWith("COMMIT;")).toBe(true);
    // The plots' current versions (a foreign-key cycle) are set once both tables are in.
    expect(at('UPDATE public."writing_plots" AS t SET "current_version_id"')).toBeGreaterThan(at('INSERT INTO public."plot_versions"'));
    // Left out: no INSERT, and no session id anywhere in the file.
    for (const table of LEFT_OUT_TABLES) expect(sqlText).not.toContain(`INSERT INTO public.${quoteIdent(table)}`);
    const secrets = await sessionIds(async (text) => rowsOf<Record<string, unknown>>(await db.execute(sql.raw(text))));
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    for (const id of secrets) expect(sqlText).not.toContain(id);
  });

  it("orders every foreign key of the live schema, or defers it: a new cycle the export cannot restore fails here", async () => {
    // The keys as the catalog has them, read here on their own (not through the export).
    const keys = rowsOf<{ name: string; child: string; parent: string; columns: string[] | string; deferrable: boolean }>(
      await db.execute(sql`
        select con.conname as name, con.conrelid::regclass::text as child, con.confrelid::regclass::text as parent,
               array(select a.attname::text from unnest(con.conkey) k join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k) as columns,
               con.condeferrable as deferrable
        from pg_constraint con join pg_namespace n on n.oid = con.connamespace
        where n.nspname = 'public' and con.contype = 'f'`),
    );
    expect(keys.length).toBeGreaterThan(50);
    const tables = await describeTables();
    const position = new Map(tables.map((t, i) => [t.name, i]));
    const deferred = new Map(tables.map((t) => [t.name, t.deferred]));
    const unordered = keys.filter((k) => {
      const columns = Array.isArray(k.columns) ? k.columns : k.columns.replace(/[{}]/g, "").split(",");
      if (k.deferrable || columns.every((c) => deferred.get(k.child)!.includes(c))) return false;
      return !(position.get(k.parent)! < position.get(k.child)!);
    });
    expect(unordered.map((k) => k.name)).toEqual([]);
    // A table left out of the export must not be one another table needs.
    expect(keys.filter((k) => LEFT_OUT_TABLES.includes(k.parent)).map((k) => k.name)).toEqual([]);
    // Today's cycles: a plot's current version, a reply's parent comment, an appeal's decision.
    expect(tables.filter((t) => t.deferred.length > 0).map((t) => [t.name, t.deferred]).sort()).toEqual([
      ["chapter_comments", ["parent_id"]],
      ["review_items", ["appeal_of"]],
      ["writing_plots", ["current_version_id"]],
    ]);
  });

  it("restores into a fresh, migrated database with identical rows, table by table", async () => {
    const tables = (await describeTables()).map((t) => t.name);
    // Left out of the export (docs/decisions/148): the restore leaves them empty.
    expect([...LEFT_OUT_TABLES].sort()).toEqual(["admin_sessions", "form_submissions", "rate_limits", "sessions"]);
    const sourceQuery: Query = async (text) =>
      db.transaction(async (tx) => {
        await tx.execute(sql.raw("set local timezone = 'UTC'"));
        await tx.execute(sql.raw("set local extra_float_digits = 3"));
        return rowsOf<Record<string, unknown>>(await tx.execute(sql.raw(text)));
      });
    const expected = await rowsByTable(sourceQuery, tables);
    const expectedSequences = await sequences(sourceQuery);
    expect(expected.chapters.length).toBeGreaterThanOrEqual(2502);
    // The fixture filled every table, so every table is put to the test.
    expect(await tablesWithoutRows(tables, async (t) => expected[t].length)).toEqual([]);
    for (const table of LEFT_OUT_TABLES) expected[table] = [];
    /** The restored database, table by table, against the source; and no session id came along. */
    const compare = async (target: Query) => {
      const restored = await rowsByTable(target, tables);
      for (const table of tables) expect(restored[table], `table ${table}`).toEqual(expected[table]);
      expect(await sequences(target)).toEqual(expectedSequences);
      expect(await sessionIds(target)).toEqual([]);
    };

    const baseUrl = inject("postgresBaseUrl");
    if (baseUrl) {
      // PostgreSQL: an empty database, migrated by the app's own migrate script, then psql.
      const name = `inkstone_restore_${process.pid}_${randomBytes(3).toString("hex")}`;
      const adminSql = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await adminSql.unsafe(`create database ${name}`);
      const url = new URL(baseUrl);
      url.pathname = `/${name}`;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-restore-"));
      try {
        await run(process.execPath, ["--import", "tsx", "scripts/migrate.ts"], {
          env: { ...process.env, DATABASE_URL: url.toString(), ADMIN_EMAIL: "", ADMIN_PASSWORD: "" },
        });
        const file = path.join(dir, "database.sql");
        fs.writeFileSync(file, sqlText);
        await run("psql", ["-v", "ON_ERROR_STOP=1", "-q", "-X", "-d", url.toString(), "-f", file], { maxBuffer: 64 * 1024 * 1024 });
        const target = postgres(url.toString(), { max: 1, onnotice: () => {} });
        const targetQuery: Query = async (text) =>
          target.begin(async (tx) => {
            await tx.unsafe("set local timezone = 'UTC'");
            await tx.unsafe("set local extra_float_digits = 3");
            return (await tx.unsafe(text)) as unknown as Record<string, unknown>[];
          }) as Promise<Record<string, unknown>[]>;
        try {
          await compare(targetQuery);
        } finally {
          await target.end();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        await adminSql.unsafe(`drop database if exists ${name} with (force)`);
        await adminSql.end();
      }
      return;
    }

    // PGlite: a fresh in-memory instance, migrated with the same migrations.
    const client = await PGlite.create({ extensions: { pg_trgm } });
    try {
      await migrate(drizzle({ client }), { migrationsFolder: "drizzle" });
      await client.exec(sqlText);
      const targetQuery: Query = async (text) =>
        client.transaction(async (tx) => {
          await tx.exec("set local timezone = 'UTC'; set local extra_float_digits = 3");
          return (await tx.query<Record<string, unknown>>(text)).rows;
        });
      await compare(targetQuery);
    } finally {
      await client.close();
    }
  }, 180_000);

  it("reports progress table by table, 90% while the file is finished and 100% at the end, around the same zip", async () => {
    const mod = await import("~/routes/exports/database-progress");
    const r = await callLoader(mod, request("/exports/database/progress", { cookie }));
    expect(r.status).toBe(200);
    const bytes = new Uint8Array(await r.response!.arrayBuffer());
    const progress: { stage: string; percent: number; detail: string; label: string }[] = [];
    const data: Uint8Array[] = [];
    for (let offset = 0; offset < bytes.length; ) {
      const type = bytes[offset];
      const length = new DataView(bytes.buffer, bytes.byteOffset + offset + 1, 4).getUint32(0);
      const payload = bytes.slice(offset + 5, offset + 5 + length);
      offset += 5 + length;
      if (type === 0x50) progress.push(JSON.parse(new TextDecoder().decode(payload)));
      else if (type === 0x44) data.push(payload);
      else throw new Error(`unexpected frame ${type}: ${new TextDecoder().decode(payload)}`);
    }
    const percents = progress.map((p) => p.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(progress.some((p) => p.stage === "tables" && /chapters：\d+ \/ \d+ 行/.test(p.detail))).toBe(true);
    expect(progress.at(-2)).toMatchObject({ stage: "compress", percent: 90 });
    expect(progress.at(-1)).toMatchObject({ stage: "done", percent: 100, label: "导出完成" });
    const zip = await JSZip.loadAsync(Buffer.concat(data));
    const text = await zip.file("database.sql")!.async("string");
    expect(text.length).toBeGreaterThan(sqlText.length * 0.9);
  }, 120_000);

  it("stops when the download is closed midway, and releases the database", async () => {
    /** Transactions open on this database other than this query's own. */
    const openTransactions = async () =>
      Number(
        rowsOf<{ n: string }>(
          await db.execute(sql`select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null`),
        )[0].n,
      );
    const progress: ExportProgress[] = [];
    // Small blocks, one in flight: the export is held back after a few dozen KB unread.
    const zip = createDatabaseZip((p) => progress.push(p), { blockSize: 32 * 1024, blocksInFlight: 1 });
    const first = await zip.chunks.next();
    expect(first.done).toBe(false);
    if (databaseKind === "postgres") {
      // The export's snapshot transaction is open, waiting for the reader.
      await waitFor("the export's transaction to be open", async () => (await openTransactions()) === 1, { timeout: 10_000, interval: 50 });
    } else {
      // PGlite has no transaction to watch: a moment for the export to run into its hold-back.
      await quietFor(300);
    }
    zip.cancel();
    expect(await zip.chunks.next()).toEqual({ value: undefined, done: true });
    if (databaseKind === "postgres") await waitFor("no transaction left open", async () => (await openTransactions()) === 0, { timeout: 10_000, interval: 50 });
    // It stopped partway through the tables.
    expect(progress.at(-1)!.percent).toBeLessThan(90);
    const stoppedAt = progress.length;
    await quietFor(300); // time for any progress a still-running export would report
    expect(progress.length).toBe(stoppedAt);
    // The database is free: the next export runs to its end.
    const again = await JSZip.loadAsync(await downloadZip());
    expect((await again.file("database.sql")!.async("string")).trimEnd().endsWith("COMMIT;")).toBe(true);
  }, 120_000);
});
