import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../../bench/lib-server";
import { lockDataDir } from "~/db/data-dir-lock.server";
import { root, runScript, startServerProcess, type Child, requireBuild } from "../fixtures/processes";
import { waitFor } from "../fixtures/wait";

/**
 * One process per PGlite data directory (docs/decisions/075): real `node server.js` and
 * script processes on one directory. Runs on PGlite whatever the test backend is: the
 * children get their own directory (a copy of the migrated template when there is one).
 */
let tmp: string;
let env: NodeJS.ProcessEnv;
let dir: string;
let server: Child | undefined;
/** The parent that never reaps its child (the zombie test). */
let parent: ChildProcess | undefined;

beforeAll(() => {
  requireBuild();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-lock-"));
  dir = path.join(tmp, "pglite");
  const template = inject("pgliteTemplateDir");
  if (template) fs.cpSync(template, dir, { recursive: true });
  env = { ...process.env, DATA_DIR: tmp, PGLITE_DIR: dir, ADMIN_EMAIL: "", ADMIN_PASSWORD: "" };
  delete env.DATABASE_URL;
  delete env.NODE_ENV;
});

afterAll(async () => {
  // Its zombie child goes to init, which reaps it.
  parent?.kill("SIGKILL");
  if (server && server.process.exitCode === null && server.process.signalCode === null) {
    server.process.kill("SIGKILL");
    await server.exited;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("the PGlite data directory lock", () => {
  it("refuses a second server and the scripts while a server runs, naming its pid", async () => {
    const port = await freePort();
    server = await startServerProcess(env, port);
    const pid = server.process.pid!;

    // The second server and the scripts at once: each is refused as soon as it asks for
    // the lock, and starting them one after another is what takes the time.
    const [second, migrate, checkLedger, unlock] = await Promise.all([
      startServerProcess(env, await freePort()).then(
        () => "started",
        (error: Error) => error.message,
      ),
      runScript("scripts/migrate.ts", env),
      runScript("scripts/check-ledger.ts", env),
      runScript("scripts/admin-unlock.ts", env, ["someone@example.com"]),
    ]);
    expect(second).toContain("exited early (1)");
    expect(second).toContain(`数据目录 ${dir} 正被进程 ${pid}（node server.js）使用`);
    expect(second).toContain("请先停止正在运行的服务器");
    expect(second).toContain(`in use by process ${pid} (node server.js)`);
    expect(second).not.toMatch(/\n\s+at /); // a message, not a stack trace

    for (const [script, { code, output }] of [["scripts/migrate.ts", migrate], ["scripts/check-ledger.ts", checkLedger]] as const) {
      expect([script, code]).toEqual([script, 3]);
      expect(output).toContain(`正被进程 ${pid}（node server.js）使用`);
      expect(output).toContain("请先停止服务器，再运行此脚本。");
      expect(output).toContain("Stop the server first, then run this script.");
    }
    expect([unlock.code, unlock.output]).toEqual([3, expect.stringContaining(`进程 ${pid}`)]);

    // The first server never noticed.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  }, 120_000);

  it("takes over at once a lock left by a server killed with SIGKILL", async () => {
    server!.process.kill("SIGKILL");
    await server!.exited;
    // Nobody cleaned up, and the lock is fresh: proper-lockfile alone would call it held
    // for 30 s more. The script takes it because the pid that holds it is gone.
    expect(Date.now() - fs.statSync(`${dir}.lock`).mtimeMs).toBeLessThan(10_000);
    const { code, output } = await runScript("scripts/migrate.ts", env);
    expect([code, output.trim()]).toEqual([0, "数据库已迁移（pglite）"]);
    expect(fs.existsSync(`${dir}.lock`)).toBe(false);

    // And the server starts on it again, then releases it on a clean stop.
    server = await startServerProcess(env, await freePort());
    server.process.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(fs.existsSync(`${dir}.lock`)).toBe(false);
  }, 120_000);

  it("takes over at once a lock whose holder was killed and not yet reaped (a zombie)", async () => {
    // A shell starts the holder in the background and becomes `sleep`, which never waits
    // for its children: once killed, the holder stays a zombie, as under a supervisor that
    // has not reaped a server it killed with SIGKILL.
    const holder = `"${process.execPath}" --import tsx tests/fixtures/hold-data-dir.ts "${dir}" & exec sleep 600`;
    parent = spawn("sh", ["-c", holder], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] });
    const pid = await new Promise<number>((resolve, reject) => {
      let said = "";
      parent!.stdout!.on("data", (chunk) => {
        said += chunk;
        const held = /holding (\d+)/.exec(said);
        if (held) resolve(Number(held[1]));
      });
      parent!.on("exit", () => reject(new Error(`the holder did not take the lock: ${said}`)));
    });
    process.kill(pid, "SIGKILL");
    const state = () => fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
    await waitFor("the killed holder to become a zombie", () => state() === "Z", { timeout: 10_000 });
    expect(() => process.kill(pid, 0)).not.toThrow(); // it still answers as if it ran

    const release = await lockDataDir(dir);
    expect(JSON.parse(fs.readFileSync(`${dir}.lock.json`, "utf8")).pid).toBe(process.pid);
    await release();
    expect(fs.existsSync(`${dir}.lock`)).toBe(false);
  }, 60_000);
});
