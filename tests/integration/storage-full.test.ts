import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { works } from "~/db/schema";
import { loader as healthz } from "~/routes/api/healthz";
import { action as submitAction } from "~/routes/shell/works/submit";
import { dataDir } from "~/env.server";
import { STORAGE_FULL_MESSAGE } from "~/server/platform/errors.server";
import { configuredStorage, type FileStorage } from "~/server/platform/storage.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { root, type Child } from "../fixtures/processes";
import { startChildServer } from "../fixtures/server-database";
import { callThroughRoutes } from "./route-chain";

/**
 * A full disk (docs/decisions/078): a storage stub whose writes fail as a full file system
 * fails (ENOSPC), in place of the configured one. Users read 存储空间不足, /healthz says
 * the storage cannot be written.
 */
const holder = globalThis as { __inkstoneStorage?: { signature: string; storage: FileStorage } };
const noSpace = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });

function fullDisk(): FileStorage {
  const real = configuredStorage();
  return {
    put: async () => {
      throw noSpace();
    },
    get: (key) => real.get(key),
    delete: (key) => real.delete(key),
    urlFor: (key) => real.urlFor(key),
    probe: async () => {
      throw noSpace();
    },
  };
}

let cookie: string;
beforeAll(async () => {
  cookie = await sessionCookieFor((await createUser()).id);
});
afterEach(() => {
  delete holder.__inkstoneStorage;
});

describe("a full disk", () => {
  it("makes /healthz answer 503 naming the storage, and 200 again once there is room", async () => {
    expect([(await healthz()).status]).toEqual([200]);
    configuredStorage();
    holder.__inkstoneStorage = { signature: `local:${dataDir()}`, storage: fullDisk() };
    const full = await healthz();
    expect([full.status, await full.text()]).toEqual([503, "storage unavailable: ENOSPC"]);
    delete holder.__inkstoneStorage;
    expect((await healthz()).status).toBe(200);
  });

  it("tells an author publishing with a cover 存储空间不足, and creates nothing", async () => {
    holder.__inkstoneStorage = { signature: `local:${dataDir()}`, storage: fullDisk() };
    const png = await sharp({ create: { width: 300, height: 400, channels: 3, background: "#336699" } }).png().toBuffer();
    const form = new FormData();
    const fields = { status: "completed", type: "single_chapter", title: "磁盘已满", description: "简介", rating: "all_ages", visibility: "public", content: "正文" };
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    form.set("cover", new File([png], "c.png", { type: "image/png" }));
    const result = (await callThroughRoutes(submitAction, { request: userRequest(cookie, "/submit", form) })) as {
      init: { status: number };
      data: { result: { error: Record<string, string[]> } };
    };
    expect(result.init.status).toBe(503);
    expect(Object.values(result.data.result.error).flat()).toEqual([STORAGE_FULL_MESSAGE]);
    expect(STORAGE_FULL_MESSAGE).toMatch(/^存储空间不足/);
    expect(await db.select().from(works).where(eq(works.title, "磁盘已满"))).toEqual([]);
  });
});

/**
 * The disk under the PGlite data directory full (docs/decisions/169): a real `node
 * server.js` on PGlite whose writes past the end of a file under its data directory fail
 * with ENOSPC while the test says so (tests/fixtures/full-disk.mjs), so PostgreSQL refuses
 * to extend a table (`could not extend file … No space left on device`, SQLSTATE 53100).
 * On PGlite whatever the test backend is.
 */
const ADMIN = { email: "full-disk-admin@example.com", password: "a-good-admin-password" };

describe("a full disk under the PGlite data directory", () => {
  let full: string;
  let server: Child;
  let origin: string;
  let stop = async () => {};

  beforeAll(async () => {
    full = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-full-")), "disk-is-full");
    const preload = pathToFileURL(path.join(root, "tests/fixtures/full-disk.mjs")).href;
    ({ server, origin, stop } = await startChildServer(
      {
        FULL_DISK_SWITCH: full,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${preload}`.trim(),
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      },
      { pglite: true },
    ));
  }, 120_000);

  afterAll(async () => {
    await stop();
    fs.rmSync(path.dirname(full), { recursive: true, force: true });
  });

  const register = () =>
    fetch(`${origin}/auth/register`, {
      method: "POST",
      body: new URLSearchParams({ email: "full-disk@example.com", password: "a-good-password" }),
      headers: { Origin: origin },
      redirect: "manual",
    });

  it("tells a visitor signing up 存储空间不足 (503), and signs them up once there is room", async () => {
    // The first sign-up of a fresh site: its tables (rate_limits, users) have no page for a row yet.
    fs.writeFileSync(full, "");
    const refused = await register();
    const page = await refused.text();
    expect(refused.status).toBe(503);
    expect(page).toContain(STORAGE_FULL_MESSAGE);
    expect(page).not.toContain("出错了");
    // Logged in the database's own words, without the query's parameters (the address).
    expect(server!.output()).toMatch(/storage full: could not extend file .*No space left on device/);
    expect(server!.output()).not.toContain("full-disk@example.com");

    // Room again: the same address signs up (nothing of the refused attempt was kept).
    fs.rmSync(full);
    const registered = await register();
    expect([registered.status, registered.headers.get("location")]).toEqual([302, "/"]);
  }, 60_000);

  it("tells an administrator saving a page's text 存储空间不足 (503), not 出错了, and keeps the text once there is room", async () => {
    const post = (to: string, fields: Record<string, string>, cookie = "") =>
      fetch(`${origin}${to}`, { method: "POST", body: new URLSearchParams(fields), headers: { Origin: origin, Cookie: cookie }, redirect: "manual" });
    const login = await post("/xbbadmin", { email: ADMIN.email, password: ADMIN.password });
    expect(login.status).toBe(302);
    const cookie = login.headers.getSetCookie()[0].split(";")[0];
    // Text that does not compress, long enough to need pages of its own (TOAST) that an
    // empty site's table does not have: the save must extend a file.
    let seed = 7;
    const content = Array.from({ length: 20_000 }, () => String.fromCodePoint(0x4e00 + ((seed = (seed * 48271) % 2147483647) % 20_000))).join("");
    fs.writeFileSync(full, "");
    const refused = await post("/admin/settings/terms", { content }, cookie);
    const page = await refused.text();
    expect(refused.status).toBe(503);
    expect(page).toContain(STORAGE_FULL_MESSAGE);
    expect(page).not.toContain("出错了");

    fs.rmSync(full);
    const saved = await post("/admin/settings/terms", { content }, cookie);
    expect([saved.status, saved.headers.get("location")]).toEqual([302, "/admin/settings/terms?notice=saved"]);
  }, 60_000);
});
