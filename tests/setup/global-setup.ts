import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { releaseAtOnce } from "../fixtures/release-at-once";

declare module "vitest" {
  export interface ProvidedContext {
    /** PGlite: a migrated data directory each test file copies. */
    pgliteTemplateDir: string;
    /** PostgreSQL: the migrated template database each test file clones, and the server URL. */
    postgresTemplate: string;
    postgresBaseUrl: string;
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Migrates one database up front (the slow part) so that each test file starts from a
 * copy of it: a copied PGlite directory, or a PostgreSQL database made from a template.
 */
export default async function setup(project: TestProject) {
  const baseUrl = process.env.DATABASE_URL?.trim();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-vitest-"));
  process.env.DATA_DIR = root;
  project.provide("postgresBaseUrl", baseUrl ?? "");

  if (baseUrl) {
    const template = `inkstone_vt_${process.pid}_tpl`;
    const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${template}`);
    await admin.unsafe(`create database ${template}`);
    process.env.DATABASE_URL = withDatabase(baseUrl, template);
    const client = await import("../../app/db/client.server");
    await releaseAtOnce(client.db);
    await client.closeDatabase();
    process.env.DATABASE_URL = baseUrl;
    project.provide("postgresTemplate", template);
    project.provide("pgliteTemplateDir", "");
    return async () => {
      const dbs = await admin<{ datname: string }[]>`
        select datname from pg_database where datname like ${`inkstone_vt_${process.pid}_%`}`;
      for (const { datname } of dbs) await admin.unsafe(`drop database if exists ${datname} with (force)`);
      await admin.end();
      fs.rmSync(root, { recursive: true, force: true });
    };
  }

  const templateDir = path.join(root, "template");
  process.env.PGLITE_DIR = templateDir;
  const client = await import("../../app/db/client.server");
  await releaseAtOnce(client.db);
  await client.closeDatabase();
  delete process.env.PGLITE_DIR;
  project.provide("pgliteTemplateDir", templateDir);
  project.provide("postgresTemplate", "");
  return () => fs.rmSync(root, { recursive: true, force: true });
}
