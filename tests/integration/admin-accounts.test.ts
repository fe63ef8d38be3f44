import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { adminAuditLog, adminRecoveryCodes, admins, adminSessions } from "~/db/schema";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { ADMIN_ACCOUNT_MESSAGES as M } from "~/schemas/admin-accounts";
import { setAdminDisabled, setAdminRole } from "~/server/identity/admin-accounts.server";
import { actorOf, adminCookieFor, callAction, callLoader, createAdmin, request, type RouteResult } from "./admin-fixtures";
import { cookiePair } from "../fixtures/accounts";
import { errorsOf } from "../fixtures/form-replies";

let root: Awaited<ReturnType<typeof createAdmin>>;
let cookie: string;

beforeAll(async () => {
  root = await createAdmin();
  cookie = await adminCookieFor(root.id);
});

afterEach(() => {
  delete process.env.ADMIN_REQUIRE_2FA;
});

const post = (path: string, fields: Record<string, string>, who = cookie) => request(path, { cookie: who }, fields);
const page = () => import("~/routes/admin/admins");
const lastAudit = async () => (await db.select().from(adminAuditLog).orderBy(desc(adminAuditLog.id)).limit(1))[0];
const adminRow = async (id: string) => (await db.select().from(admins).where(eq(admins.id, id)))[0];

describe("admin management (超级管理员 only)", () => {
  it("adds an admin with a role, refuses bad input and a taken e-mail without writing", async () => {
    const mod = await page();
    const email = `ops-${Date.now()}@example.com`;
    let r = await callAction(mod, post("/admin/admins", { intent: "add", email: ` ${email.toUpperCase()} `, password: "ops-password-1", role: "operator" }));
    expect(r.location).toBe("/admin/admins?notice=admin-added");
    const [added] = await db.select().from(admins).where(eq(admins.email, email));
    expect(added.role).toBe("operator");
    expect(await lastAudit()).toMatchObject({ action: "admin.create", targetId: added.id, after: { email, role: "operator" } });

    const before = (await db.select().from(admins)).length;
    const cases: [Record<string, string>, string, number][] = [
      [{ intent: "add", email: "not-an-email", password: "ops-password-1", role: "operator" }, M.email, 400],
      [{ intent: "add", email: "x@example.com", password: "", role: "operator" }, "请输入新密码", 400],
      [{ intent: "add", email: "x@example.com", password: "ops-password-1", role: "owner" }, M.role, 400],
      [{ intent: "add", email, password: "ops-password-1", role: "super" }, M.emailTaken, 409],
      [{ intent: "role", id: "not-a-uuid", role: "super" }, M.adminMissing, 400],
      [{ intent: "disable", id: "00000000-0000-4000-8000-000000000000" }, M.adminMissing, 404],
    ];
    for (const [fields, message, status] of cases) {
      r = await callAction(mod, post("/admin/admins", fields));
      expect([r.status, errorsOf(r.data.result)], message).toEqual([status, expect.arrayContaining([message])]);
    }
    expect((await db.select().from(admins)).length).toBe(before);
    const list = await callLoader(mod, request("/admin/admins", { cookie }));
    expect(list.data.admins.map((a: { email: string }) => a.email)).toContain(email);
    expect(JSON.stringify(list.data)).not.toMatch(/password_?hash|totp_?secret/i);
  });

  it("changes a role, disables (ending sessions and API tokens) and enables, resets a password", async () => {
    const mod = await page();
    const other = await createAdmin({ role: "operator" });
    const otherCookie = await adminCookieFor(other.id);
    let r = await callAction(mod, post("/admin/admins", { intent: "role", id: other.id, role: "super" }));
    expect(r.location).toBe("/admin/admins?notice=admin-role");
    expect((await adminRow(other.id)).role).toBe("super");
    expect(await lastAudit()).toMatchObject({ action: "admin.role", before: { role: "operator" }, after: { role: "super" } });

    const { createApiToken } = await import("~/server/identity/api-tokens.server");
    const token = await createApiToken(actorOf(other), { name: "t", expiresInDays: null });
    r = await callAction(mod, post("/admin/admins", { intent: "disable", id: other.id }));
    expect(r.location).toBe("/admin/admins?notice=admin-disabled");
    expect(await db.select().from(adminSessions).where(eq(adminSessions.adminId, other.id))).toEqual([]);
    const dashboard = await import("~/routes/admin/dashboard");
    expect((await callLoader(dashboard, request("/admin/dashboard", { cookie: otherCookie }))).location).toMatch(/^\/xbbadmin/);
    const exportsDb = await import("~/routes/exports/database");
    expect((await callLoader(exportsDb, request("/exports/database.zip", { authorization: `Bearer ${token.token}` }))).status).toBe(401);
    // A disabled admin cannot sign in; the right password learns why.
    const login = await import("~/routes/admin/login");
    r = await callAction(login, request("/xbbadmin", {}, { email: other.email, password: other.password }));
    expect([r.status, errorsOf(r.data)]).toEqual([403, [ADMIN_MESSAGES.adminDisabled]]);

    r = await callAction(mod, post("/admin/admins", { intent: "enable", id: other.id }));
    expect((await adminRow(other.id)).disabledAt).toBeNull();
    r = await callAction(mod, post("/admin/admins", { intent: "reset-password", id: other.id, password: "brand-new-pass-1" }));
    expect(r.location).toBe("/admin/admins?notice=admin-password");
    const audit = await lastAudit();
    expect(audit).toMatchObject({ action: "admin.reset-password", targetId: other.id });
    expect(JSON.stringify(audit)).not.toContain("brand-new-pass-1");
    r = await callAction(login, request("/xbbadmin", {}, { email: other.email, password: "brand-new-pass-1" }));
    expect(r.status).toBe(302);
  });

  it("keeps one enabled 超级管理员: the last cannot be demoted or disabled, nor can an admin disable or demote themself", async () => {
    const mod = await page();
    // Make `root` the only enabled super admin.
    for (const a of await db.select().from(admins)) {
      if (a.id !== root.id && a.role === "super") await db.update(admins).set({ role: "operator" }).where(eq(admins.id, a.id));
    }
    const second = await createAdmin();
    const secondActor = actorOf(second);
    await setAdminRole(secondActor, root.id, "operator");
    // With two super admins one may demote the other; then the one left is the last.
    expect((await adminRow(root.id)).role).toBe("operator");
    await expect(setAdminDisabled(actorOf(root), second.id, true)).rejects.toMatchObject({ status: 409, message: M.lastSuper });
    await db.update(admins).set({ role: "super" }).where(eq(admins.id, root.id));
    await db.update(admins).set({ role: "operator" }).where(eq(admins.id, second.id));

    let r = await callAction(mod, post("/admin/admins", { intent: "role", id: root.id, role: "operator" }));
    expect([r.status, errorsOf(r.data.result)]).toEqual([400, [M.selfRole]]);
    r = await callAction(mod, post("/admin/admins", { intent: "disable", id: root.id }));
    expect([r.status, errorsOf(r.data.result)]).toEqual([400, [M.notSelf]]);
    await expect(setAdminRole(actorOf(second), root.id, "operator")).rejects.toMatchObject({ status: 409, message: M.lastSuper });
    await expect(setAdminDisabled(actorOf(second), root.id, true)).rejects.toMatchObject({ status: 409, message: M.lastSuper });
    expect(await adminRow(root.id)).toMatchObject({ role: "super", disabledAt: null });
  });

  it("two super admins demoting each other at once leave one super admin", async () => {
    for (const a of await db.select().from(admins)) {
      if (a.id !== root.id && a.role === "super") await db.update(admins).set({ role: "operator" }).where(eq(admins.id, a.id));
    }
    const b = await createAdmin();
    const results = await Promise.allSettled([setAdminRole(actorOf(root), b.id, "operator"), setAdminRole(actorOf(b), root.id, "operator")]);
    expect(results.filter((x) => x.status === "fulfilled")).toHaveLength(1);
    const supers = (await db.select().from(admins)).filter((a) => a.role === "super" && !a.disabledAt);
    expect(supers).toHaveLength(1);
    await db.update(admins).set({ role: "super" }).where(eq(admins.id, root.id));
  });
});

describe("TOTP two-factor", () => {
  const account = () => import("~/routes/admin/account");
  const codeAt = (secret: string, ms = Date.now()) => TOTP.generate({ secret: Secret.fromBase32(secret.replace(/\s+/g, "")), timestamp: ms });

  /** The ten recovery codes the last enrol() was shown. */
  let shownCodes: string[] = [];

  async function enrol(who: { id: string }, whoCookie: string): Promise<string> {
    const mod = await account();
    await callAction(mod, post("/admin/account", { intent: "totp-start" }, whoCookie));
    const shown = await callLoader(mod, request("/admin/account", { cookie: whoCookie }));
    expect(shown.data.enrolment.qrSvg).toMatch(/^<svg/);
    expect(shown.data.enrolment.uri).toMatch(/^otpauth:\/\/totp\//);
    const secret: string = shown.data.enrolment.secret.replace(/\s+/g, "");
    const bad = await callAction(mod, post("/admin/account", { intent: "totp-confirm", code: "12345" }, whoCookie));
    expect([bad.status, errorsOf(bad.data.totp)]).toEqual([400, [M.code]]);
    const wrong = await callAction(mod, post("/admin/account", { intent: "totp-confirm", code: codeAt(secret, Date.now() - 10 * 60_000) }, whoCookie));
    expect([wrong.status, errorsOf(wrong.data.totp)]).toEqual([400, [M.wrongCode]]);
    expect((await adminRow(who.id)).totpEnabledAt).toBeNull();
    // The code of the previous step: still good (clock drift), and leaves the current one unused.
    // Taken at least 5 s before the step ends, so the server checks it in the same step: a
    // step later it is two steps old and refused (a slow run met that once, 2026-12-02).
    const untilStepEnd = 30_000 - (Date.now() % 30_000);
    if (untilStepEnd < 5_000) await new Promise((resolve) => setTimeout(resolve, untilStepEnd + 50));
    const r = await callAction(mod, post("/admin/account", { intent: "totp-confirm", code: codeAt(secret, Date.now() - 30_000) }, whoCookie));
    // The answer is the page itself with the ten recovery codes, shown this once.
    expect([r.status, r.data.notice]).toEqual([200, "两步验证已开启"]);
    shownCodes = r.data.recoveryCodes;
    expect(shownCodes).toHaveLength(10);
    for (const code of shownCodes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
    expect(new Set(shownCodes).size).toBe(10);
    return secret;
  }

  it("enrols with a code, then the login asks for the code, which works once", async () => {
    const me = await createAdmin();
    const secret = await enrol(me, await adminCookieFor(me.id));
    expect(await lastAudit()).toMatchObject({ action: "admin.totp-enable", targetId: me.id });
    expect(JSON.stringify(await lastAudit())).not.toContain(secret);

    const login = await import("~/routes/admin/login");
    let r: RouteResult = await callAction(login, request("/xbbadmin", {}, { email: me.email, password: me.password, redirectTo: "/admin/users" }));
    expect(r.location).toBe("/xbbadmin?step=code&redirectTo=%2Fadmin%2Fusers");
    const pending = cookiePair(r.response!.headers.get("Set-Cookie")!);
    // The waiting session opens no admin page.
    const dashboard = await import("~/routes/admin/dashboard");
    expect((await callLoader(dashboard, request("/admin/dashboard", { cookie: pending }))).location).toMatch(/^\/xbbadmin/);
    expect((await callLoader(login, request("/xbbadmin?step=code", { cookie: pending }))).data.step).toBe("code");

    r = await callAction(login, request("/xbbadmin", { cookie: pending }, { intent: "code", code: "000000", redirectTo: "/admin/users" }));
    expect([r.status, errorsOf(r.data)]).toEqual([400, [M.wrongCode]]);
    r = await callAction(login, request("/xbbadmin", { cookie: pending }, { intent: "code", code: "12ab", redirectTo: "/admin/users" }));
    expect([r.status, errorsOf(r.data)]).toEqual([400, [M.secondFactor]]);
    const code = codeAt(secret);
    r = await callAction(login, request("/xbbadmin", { cookie: pending }, { intent: "code", code: code.slice(0, 3) + " " + code.slice(3), redirectTo: "/admin/users" }));
    expect(r.location).toBe("/admin/users");
    const full = cookiePair(r.response!.headers.get("Set-Cookie")!);
    expect((await callLoader(dashboard, request("/admin/dashboard", { cookie: full }))).status).toBe(200);
    // The pending session is gone; the same code does not sign in twice.
    r = await callAction(login, request("/xbbadmin", { cookie: pending }, { intent: "code", code, redirectTo: "/admin/users" }));
    expect([r.status, errorsOf(r.data)]).toEqual([400, [M.totpExpired]]);
    r = await callAction(login, request("/xbbadmin", {}, { email: me.email, password: me.password }));
    const again = cookiePair(r.response!.headers.get("Set-Cookie")!);
    r = await callAction(login, request("/xbbadmin", { cookie: again }, { intent: "code", code }));
    expect([r.status, errorsOf(r.data)]).toEqual([400, [M.wrongCode]]);

    // Turning it off needs a current code.
    const mod = await account();
    r = await callAction(mod, post("/admin/account", { intent: "totp-disable", code: "000000" }, full));
    expect(r.status).toBe(400);
    expect((await adminRow(me.id)).totpEnabledAt).not.toBeNull();
  });

  it("ADMIN_REQUIRE_2FA=1: a 超级管理员 without an authenticator can open only the account page; a 运营 is not asked", async () => {
    process.env.ADMIN_REQUIRE_2FA = "1";
    const boss = await createAdmin();
    const bossCookie = await adminCookieFor(boss.id);
    const users = await import("~/routes/admin/users");
    expect((await callLoader(users, request("/admin/users", { cookie: bossCookie }))).location).toBe("/admin/account?notice=totp-required");
    const prompts = await import("~/routes/admin/prompts");
    const posted = await callAction(prompts, post("/admin/prompts", { intent: "delete", id: "1" }, bossCookie));
    expect([posted.status, posted.data]).toEqual([403, ADMIN_MESSAGES.totpRequired]);
    const exportsDb = await import("~/routes/exports/database");
    expect((await callLoader(exportsDb, request("/exports/database.zip", { cookie: bossCookie }))).status).toBe(403);
    expect((await callLoader(await account(), request("/admin/account", { cookie: bossCookie }))).data.totpRequired).toBe(true);
    await enrol(boss, bossCookie);
    expect((await callLoader(users, request("/admin/users", { cookie: bossCookie }))).status).toBe(200);

    const ops = await createAdmin({ role: "operator" });
    expect((await callLoader(users, request("/admin/users", { cookie: await adminCookieFor(ops.id) }))).status).toBe(200);
  });

  it("gives ten recovery codes, stored hashed, each good once at the sign-in's code step, counted like codes", async () => {
    const mod = await account();
    const me = await createAdmin();
    const mine = await adminCookieFor(me.id);
    const secret = await enrol(me, mine);
    const codes = [...shownCodes];
    // Stored as hashes only; the page tells how many are left, never the codes.
    const stored = await db.select().from(adminRecoveryCodes).where(eq(adminRecoveryCodes.adminId, me.id));
    expect(stored).toHaveLength(10);
    expect(JSON.stringify(stored)).not.toMatch(new RegExp(codes.map((c) => c.replace(/-/g, "")).join("|")));
    let page = await callLoader(mod, request("/admin/account", { cookie: mine }));
    expect(page.data.recoveryCodesLeft).toBe(10);
    expect(JSON.stringify(page.data)).not.toContain(codes[0]);
    expect(JSON.stringify(await lastAudit())).not.toContain(codes[0]);

    const login = await import("~/routes/admin/login");
    const signIn = async (code: string) => {
      const first = await callAction(login, request("/xbbadmin", {}, { email: me.email, password: me.password }));
      const pending = cookiePair(first.response!.headers.get("Set-Cookie")!);
      return callAction(login, request("/xbbadmin", { cookie: pending }, { intent: "code", code, redirectTo: "/admin/dashboard" }));
    };
    // A recovery code signs in, typed in upper case with spaces too; then never again.
    expect((await signIn(codes[0])).location).toBe("/admin/dashboard");
    expect((await signIn(` ${codes[1].toUpperCase().replace(/-/g, " ")} `)).location).toBe("/admin/dashboard");
    for (const used of [codes[0], codes[1]]) {
      const again = await signIn(used);
      expect([again.status, errorsOf(again.data)]).toEqual([400, [M.wrongCode]]);
    }
    page = await callLoader(mod, request("/admin/account", { cookie: mine }));
    expect(page.data.recoveryCodesLeft).toBe(8);
    // Another admin's code is no code of this one's.
    const other = await createAdmin();
    await enrol(other, await adminCookieFor(other.id));
    const foreign = await signIn(shownCodes[0]);
    expect([foreign.status, errorsOf(foreign.data)]).toEqual([400, [M.wrongCode]]);

    // New codes need a current code (or a recovery code); the old ones stop working.
    const refused = await callAction(mod, post("/admin/account", { intent: "totp-recovery-codes", code: "000000" }, mine));
    expect([refused.status, errorsOf(refused.data.totp)]).toEqual([400, [M.wrongCode]]);
    const fresh = await callAction(mod, post("/admin/account", { intent: "totp-recovery-codes", code: codes[2] }, mine));
    expect([fresh.status, fresh.data.recoveryCodes.length, fresh.data.notice]).toEqual([200, 10, "已生成新的恢复码，旧的恢复码已失效"]);
    expect(await lastAudit()).toMatchObject({ action: "admin.totp-recovery-codes", targetId: me.id });
    const stale = await signIn(codes[3]);
    expect([stale.status, errorsOf(stale.data)]).toEqual([400, [M.wrongCode]]);
    expect((await signIn(fresh.data.recoveryCodes[0])).location).toBe("/admin/dashboard");

    // Turning two-factor off with a recovery code removes the rest.
    const off = await callAction(mod, post("/admin/account", { intent: "totp-disable", code: fresh.data.recoveryCodes[1] }, mine));
    expect(off.location).toBe("/admin/account?notice=totp-disabled");
    expect(await db.select().from(adminRecoveryCodes).where(eq(adminRecoveryCodes.adminId, me.id))).toEqual([]);
    expect((await adminRow(me.id)).totpEnabledAt).toBeNull();
    expect(secret).toMatch(/^[A-Z2-7]+$/);
  });

  it(`lets one of two sign-ins at once use a recovery code (${databaseKind})`, async () => {
    const me = await createAdmin();
    await enrol(me, await adminCookieFor(me.id));
    const code = shownCodes[0];
    const login = await import("~/routes/admin/login");
    const pendings = await Promise.all(
      [1, 2].map(async () => {
        const first = await callAction(login, request("/xbbadmin", {}, { email: me.email, password: me.password }));
        return cookiePair(first.response!.headers.get("Set-Cookie")!);
      }),
    );
    const answers = await Promise.all(pendings.map((pending) => callAction(login, request("/xbbadmin", { cookie: pending }, { intent: "code", code }))));
    expect(answers.map((a) => a.status).sort()).toEqual([302, 400]);
  });

  it("counts wrong recovery codes with the code step's failures: ten wrong, and even a good one waits", async () => {
    const me = await createAdmin();
    await enrol(me, await adminCookieFor(me.id));
    const codes = [...shownCodes];
    const login = await import("~/routes/admin/login");
    const first = await callAction(login, request("/xbbadmin", {}, { email: me.email, password: me.password }));
    const pending = cookiePair(first.response!.headers.get("Set-Cookie")!);
    for (let i = 0; i < 10; i++) {
      const wrong = await callAction(login, request("/xbbadmin", { cookie: pending }, { intent: "code", code: `aaaa-bbbb-cccc-${String(1000 + i)}` }));
      expect([wrong.status, errorsOf(wrong.data)]).toEqual([400, [M.wrongCode]]);
    }
    const locked = await callAction(login, request("/xbbadmin", { cookie: pending }, { intent: "code", code: codes[0] }));
    expect([locked.status, errorsOf(locked.data)]).toEqual([429, ["尝试次数过多，请稍后再试"]]);
    const [unused] = await db.select({ n: sql<number>`count(*)::int` }).from(adminRecoveryCodes).where(and(eq(adminRecoveryCodes.adminId, me.id), isNull(adminRecoveryCodes.usedAt)));
    expect(unused.n).toBe(10);
  });

  it("counts wrong codes on the account page like the sign-in step's: a session alone cannot try codes without end", async () => {
    const mod = await account();
    const me = await createAdmin();
    const mine = await adminCookieFor(me.id);
    const secret = await enrol(me, mine);
    // The confirmation cleared enrol()'s failures; ten wrong codes reach the lock (LOGIN_LOCK_AFTER).
    for (let i = 0; i < 10; i++) {
      const wrong = await callAction(mod, post("/admin/account", { intent: "totp-disable", code: String(100000 + i) }, mine));
      expect([wrong.status, errorsOf(wrong.data.totp)]).toEqual([400, [M.wrongCode]]);
    }
    // Locked: even the right code is not tried, and two-factor stays on.
    const locked = await callAction(mod, post("/admin/account", { intent: "totp-disable", code: codeAt(secret) }, mine));
    expect([locked.status, errorsOf(locked.data.totp)]).toEqual([429, ["尝试次数过多，请稍后再试"]]);
    expect((await adminRow(me.id)).totpEnabledAt).not.toBeNull();
    // The same count as the sign-in step's at this address.
    const login = await import("~/routes/admin/login");
    const first = await callAction(login, request("/xbbadmin", {}, { email: me.email, password: me.password }));
    const pending = cookiePair(first.response!.headers.get("Set-Cookie")!);
    const step = await callAction(login, request("/xbbadmin", { cookie: pending }, { intent: "code", code: codeAt(secret) }));
    expect([step.status, errorsOf(step.data)]).toEqual([429, ["尝试次数过多，请稍后再试"]]);

    // Confirming an enrolment is counted too.
    const other = await createAdmin();
    const theirs = await adminCookieFor(other.id);
    await callAction(mod, post("/admin/account", { intent: "totp-start" }, theirs));
    for (let i = 0; i < 10; i++) {
      const wrong = await callAction(mod, post("/admin/account", { intent: "totp-confirm", code: String(200000 + i) }, theirs));
      expect(wrong.status).toBe(400);
    }
    const shown = await callLoader(mod, request("/admin/account", { cookie: theirs }));
    const theirSecret: string = shown.data.enrolment.secret.replace(/\s+/g, "");
    const refused = await callAction(mod, post("/admin/account", { intent: "totp-confirm", code: codeAt(theirSecret) }, theirs));
    expect(refused.status).toBe(429);
    expect((await adminRow(other.id)).totpEnabledAt).toBeNull();
  });
});
