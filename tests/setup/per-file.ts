import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, inject, vi } from "vitest";

/**
 * Every test file gets its own database before any app module is imported: a copy of
 * the migrated PGlite template, or a PostgreSQL database cloned from the template.
 *
 * A worker process runs many files one after another (isolate: false in
 * vitest.config.ts, docs/decisions/068): each file still starts from fresh app modules
 * (so a fresh database client, caches and event bus), the environment it found and
 * real timers and console; only node_modules stay loaded.
 */
vi.resetModules();
const environment = { ...process.env };
// The app keeps its process-wide singletons (database client, event hub, storage) on
// globalThis so that they survive module reloads: a new file starts without them.
const holder = globalThis as Record<string, unknown> & { __inkstoneDb?: unknown };
const dropSingletons = () => {
  for (const name of Object.keys(holder)) if (name.startsWith("__inkstone")) delete holder[name];
};
dropSingletons();

const template = inject("postgresTemplate");
const baseUrl = inject("postgresBaseUrl");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-file-"));
process.env.DATA_DIR = dataDir;
process.env.SESSION_SECRET = "test-session-secret";
// A test reads right after its own write, in the same tick that the write's change event
// is still on its way: the few-second public caches (docs/decisions/060) are off here,
// and tests/integration/public-cache.test.ts turns them on to test them.
process.env.PAGE_CACHE = "0";
// Password hashes at scrypt's lowest accepted cost: the suite registers hundreds of
// accounts, about 80 ms of CPU each at the default (docs/decisions/140).
process.env.PASSWORD_SCRYPT_N = "1024";
// 实名认证 is on in tests (decision 204): a fixed 32-byte key, base64.
process.env.IDENTITY_KEY = "aW5rc3RvbmUtdGVzdC1pZGVudGl0eS1rZXktMzJieXQ=";

let dropDatabase: (() => Promise<void>) | undefined;

if (template && baseUrl) {
  const name = `${template.replace(/_tpl$/, "")}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name} template ${template}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  dropDatabase = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
} else {
  delete process.env.DATABASE_URL;
  const dir = path.join(dataDir, "pglite");
  fs.cpSync(inject("pgliteTemplateDir"), dir, { recursive: true });
  process.env.PGLITE_DIR = dir;
}

beforeAll(async () => {
  // Open (and check) the database once per file, before the tests time anything.
  await import("~/db/client.server");
});

afterAll(async () => {
  // Nothing a file spied on or faked reaches the next file in this worker.
  vi.restoreAllMocks();
  vi.useRealTimers();
  const client = await import("~/db/client.server");
  await client.closeDatabase();
  dropSingletons();
  await dropDatabase?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
});
