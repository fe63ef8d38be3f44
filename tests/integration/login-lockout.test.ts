import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, inject, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { loginAction } from "~/routes/public/auth-actions.server";
import { clearLoginFailures, slowdownSeconds } from "~/server/identity/login-failures.server";
import { createUser, postRequest } from "../fixtures/accounts";
import { createAdmin, settle } from "./admin-fixtures";
import { requestContext, runRoute } from "./route-chain";
import { errorsOf } from "../fixtures/form-replies";

/** docs/decisions/046-login-lockout.md: nobody can lock someone else out. */

type Reply = { init?: { status: number }; data?: { error?: Record<string, string[] | null> } };

/** The user login as the browser posts it, from one client address: the status and message. */
async function userLogin(email: string, password: string, clientAddress: string) {
  const result = (await loginAction(postRequest("/auth/login", { email, password }), clientAddress)) as Response | Reply;
  if (result instanceof Response) return { status: result.status, message: "" };
  return { status: result.init!.status, message: Object.values(result.data?.error ?? {}).flat()[0] ?? "" };
}

const WRONG = "wrong-password-1";

afterEach(() => {
  delete process.env.LOGIN_SLOW_AFTER;
  delete process.env.LOGIN_ADDRESS_LIMIT;
});

describe("login lockout", () => {
  it("locks the e-mail and address pair after 10 failures, and only that pair", async () => {
    const victim = await createUser();
    for (let i = 0; i < 10; i++) {
      expect(await userLogin(victim.email, WRONG, "198.51.100.66")).toEqual({ status: 400, message: "邮箱或密码错误" });
    }
    // The attacker's address is refused even with the right password...
    expect(await userLogin(victim.email, victim.password, "198.51.100.66")).toEqual({ status: 429, message: "尝试次数过多，请稍后再试" });
    // ...and the victim, at their own address, signs in.
    expect((await userLogin(victim.email, victim.password, "203.0.113.7")).status).toBe(302);
  });

  it("lets the victim sign in from a known address however many addresses the attacker uses; new addresses wait for their turn", async () => {
    process.env.LOGIN_SLOW_AFTER = "3";
    const victim = await createUser();
    expect((await userLogin(victim.email, victim.password, "203.0.113.8")).status).toBe(302);
    for (const address of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      expect((await userLogin(victim.email, WRONG, address)).status).toBe(400);
    }
    // From here on, attempts from new addresses take turns: the first takes the slot...
    expect((await userLogin(victim.email, WRONG, "198.51.100.4")).status).toBe(400);
    // ...and, as after a long attack (the wait has grown to its 60 s cap), the next waits.
    await db.execute(sql`update rate_limits set count = count + 20 where key = ${`login:email:${victim.email}`}`);
    const waiting = await userLogin(victim.email, WRONG, "198.51.100.5");
    expect(waiting.status).toBe(429);
    expect(waiting.message).toMatch(/^尝试次数过多，请([1-5]?[0-9]|60)秒后再试$/);
    // A new address waits its turn even with the right password (or signs in after the wait).
    expect(await userLogin(victim.email, victim.password, "198.51.100.5")).toMatchObject({ status: 429 });

    // The victim, at the address they signed in from before, is never slowed down.
    expect((await userLogin(victim.email, victim.password, "203.0.113.8")).status).toBe(302);
    // Their success ends the slowdown for everyone.
    expect((await userLogin(victim.email, victim.password, "198.51.100.9")).status).toBe(302);
  });

  it("slows down by 1 s, doubling up to 60 s", () => {
    expect([19, 20, 21, 22, 25, 26, 40, 1000].map((n) => slowdownSeconds(n, 20))).toEqual([0, 1, 2, 4, 32, 60, 60, 60]);
  });

  it("counts failures per address across e-mails, but never those of an account at an address it signed in from", async () => {
    process.env.LOGIN_ADDRESS_LIMIT = "3";
    const office = "192.0.2.50";
    const colleague = await createUser();
    expect((await userLogin(colleague.email, colleague.password, office)).status).toBe(302);
    const strangers = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
    // Successful logins do not count; failures do.
    expect((await userLogin(strangers[3].email, strangers[3].password, office)).status).toBe(302);
    for (const s of strangers.slice(0, 3)) expect((await userLogin(s.email, WRONG, office)).status).toBe(400);
    expect(await userLogin(strangers[3].email, WRONG, "192.0.2.51")).toMatchObject({ status: 400 });
    expect(await userLogin((await createUser()).email, WRONG, office)).toEqual({ status: 429, message: "尝试次数过多，请稍后再试" });
    // Known at the office: not counted, not refused.
    expect((await userLogin(colleague.email, colleague.password, office)).status).toBe(302);
    expect((await userLogin(strangers[3].email, strangers[3].password, office)).status).toBe(302);
  });

  it("clears an e-mail's failures with clearLoginFailures (password reset, admin:unlock)", async () => {
    const victim = await createUser();
    for (let i = 0; i < 10; i++) await userLogin(victim.email, WRONG, "198.51.100.70");
    expect((await userLogin(victim.email, victim.password, "198.51.100.70")).status).toBe(429);
    expect(await clearLoginFailures(` ${victim.email.toUpperCase()} `)).toBeGreaterThan(0);
    expect((await userLogin(victim.email, victim.password, "198.51.100.70")).status).toBe(302);
    expect(await clearLoginFailures(victim.email)).toBe(0);
  });

  it("applies the same rules to the back-office login", async () => {
    const admin = await createAdmin();
    const login = await import("~/routes/admin/login");
    const attempt = (password: string, clientAddress: string) => {
      const body = new URLSearchParams({ email: admin.email, password });
      const request = new Request("http://localhost/xbbadmin", { method: "POST", headers: { Origin: "http://localhost" }, body });
      return settle(() => runRoute("action", login, request, {}, requestContext(clientAddress)));
    };
    for (let i = 0; i < 10; i++) expect((await attempt(WRONG, "198.51.100.80")).status).toBe(400);
    const refused = await attempt(admin.password, "198.51.100.80");
    expect([refused.status, errorsOf(refused.data)]).toEqual([429, ["尝试次数过多，请稍后再试"]]);
    const mine = await attempt(admin.password, "203.0.113.80");
    expect([mine.status, mine.location]).toEqual([302, "/admin/dashboard"]);
  });
});

describe("npm run admin:unlock", () => {
  const root = path.resolve(import.meta.dirname, "../..");
  async function unlock(...args: string[]): Promise<{ code: number | null; output: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    let tmp: string | undefined;
    if (databaseKind === "pglite") {
      // PGlite must never be opened by two processes: the CLI gets a fresh copy of the
      // migrated template (as in ledger-check.test.ts), with no failures in it.
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-unlock-"));
      fs.cpSync(inject("pgliteTemplateDir"), path.join(tmp, "pglite"), { recursive: true });
      env.PGLITE_DIR = path.join(tmp, "pglite");
      env.DATA_DIR = tmp;
    }
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/admin-unlock.ts", ...args], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    // "close", not "exit": the output may still be on its way when the process exits.
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    return { code, output };
  }

  it("refuses anything but one e-mail, with its usage", async () => {
    const cases = [[], ["not-an-email"], ["a@example.com", "b@example.com"], ["--email", "a@example.com"]];
    // Four separate processes that touch nothing shared: started together, not in turn.
    const results = await Promise.all(cases.map((args) => unlock(...args)));
    for (const [i, { code, output }] of results.entries()) {
      expect([cases[i], code, output.trim()]).toEqual([cases[i], 2, "用法：npm run admin:unlock -- user@example.com"]);
    }
  }, 60_000);

  it("lets a locked-out user in again", async () => {
    const victim = await createUser();
    for (let i = 0; i < 10; i++) await userLogin(victim.email, WRONG, "198.51.100.90");
    expect((await userLogin(victim.email, victim.password, "198.51.100.90")).status).toBe(429);
    const { code, output } = await unlock(victim.email.toUpperCase());
    if (databaseKind === "pglite") {
      // The CLI ran on its own copy; clear this database with the function it calls.
      expect([code, output.trim()]).toEqual([0, `${victim.email} 没有登录失败记录`]);
      await clearLoginFailures(victim.email);
    } else {
      expect([code, output.trim()]).toEqual([0, expect.stringMatching(new RegExp(`^已解除 ${victim.email} 的登录限制`))]);
    }
    expect((await userLogin(victim.email, victim.password, "198.51.100.90")).status).toBe(302);
  }, 60_000);
});
