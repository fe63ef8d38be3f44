import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, inject } from "vitest";

/**
 * Every integration test file gets its own database before any app module is imported: a
 * copy of the migrated PGlite template, or a PostgreSQL database cloned from the template.
 * It runs after tests/setup/per-file-env.ts, which gave the file its environment and data
 * directory.
 */
const template = inject("postgresTemplate");
const baseUrl = inject("postgresBaseUrl");

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
  const dir = path.join(process.env.DATA_DIR!, "pglite");
  fs.cpSync(inject("pgliteTemplateDir"), dir, { recursive: true });
  process.env.PGLITE_DIR = dir;
}

beforeAll(async () => {
  // Open (and check) the database once per file, before the tests time anything.
  await import("~/db/client.server");
});

afterAll(async () => {
  const client = await import("~/db/client.server");
  await client.closeDatabase();
  await dropDatabase?.();
});
