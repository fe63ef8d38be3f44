import { desc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { adminAuditLog, chapters, creditTransactions, credits, notifications, sessions, users } from "~/db/schema";
import { login } from "~/server/identity/auth.server";
import { listComments, postComment } from "~/server/community/comments.server";
import { getSessionUser } from "~/server/identity/session.server";
import { createUser, formOf, sessionCookieFor, TEST_PASSWORD } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";
import { errorsOf } from "../fixtures/form-replies";

/**
 * The back office's users (decision 137): bans that stop sign-in and sessions at once and
 * hide comments, ending sessions, +/- credits with a reason, messages, the user page, and
 * the audit row each writes (or not, when it fails).
 */

let admin: Awaited<ReturnType<typeof createAdmin>>;
let cookie: string;

beforeAll(async () => {
  admin = await createAdmin();
  cookie = await adminCookieFor(admin.id);
});

const post = (path: string, fields: Record<string, string>) => request(path, { cookie }, fields);
const get = (path: string) => request(path, { cookie });

async function edit(userId: string, fields: Record<string, string>) {
  return callAction(await import("~/routes/admin/user-edit"), post(`/admin/users/${userId}`, fields), { id: userId });
}

async function auditOf(userId: string) {
  return db.select().from(adminAuditLog).where(eq(adminAuditLog.targetId, userId)).orderBy(adminAuditLog.id);
}

const signedIn = async (cookieHeader: string) => (await getSessionUser(new Request("http://localhost/", { headers: { Cookie: cookieHeader } }))) !== null;

async function loginError(email: string, password = TEST_PASSWORD): Promise<{ message: string; status: number } | null> {
  try {
    await login(formOf({ email, password }), `198.51.100.${Math.floor(Math.random() * 200)}`);
    return null;
  } catch (error) {
    return { message: (error as Error).message, status: (error as { status: number }).status };
  }
}

describe(`bans (${databaseKind})`, () => {
  it("refuses bad input with clear messages and changes nothing", async () => {
    const u = await createUser();
    const session = await sessionCookieFor(u.id);
    const cases: [Record<string, string>, string][] = [
      [{ intent: "ban", reason: "  " }, "请填写封禁原因"],
      [{ intent: "ban", reason: "长".repeat(201) }, "封禁原因不能超过200个字"],
      [{ intent: "ban", reason: "刷屏", until: "2026-13-40" }, "请输入有效的日期，如 2026-12-31"],
      [{ intent: "ban", reason: "刷屏", until: "明天" }, "请输入有效的日期，如 2026-12-31"],
    ];
    for (const [fields, message] of cases) {
      const r = await edit(u.id, fields);
      expect(r.status, JSON.stringify(fields)).toBe(400);
      expect(errorsOf(r.data.result)).toContain(message);
    }
    const past = await edit(u.id, { intent: "ban", reason: "刷屏", until: "2001-01-01" });
    expect(past.status).toBe(400);
    expect(errorsOf(past.data.result)).toContain("解封时间必须晚于现在");
    const unban = await edit(u.id, { intent: "unban" });
    expect(unban.status).toBe(409);
    expect(errorsOf(unban.data.result)).toContain("该用户未被封禁");
    const missing = await edit("00000000-0000-4000-8000-000000000000", { intent: "ban", reason: "刷屏" });
    expect(missing.status).toBe(404);
    expect(await signedIn(session)).toBe(true);
    const [row] = await db.select({ bannedAt: users.bannedAt }).from(users).where(eq(users.id, u.id));
    expect(row.bannedAt).toBeNull();
    expect(await auditOf(u.id)).toEqual([]);
  });

  it("a ban ends every session at once, refuses sign-in with the reason, hides comments; unban restores all", async () => {
    const author = await createUser();
    const spammer = await createUser();
    const reader = await createUser();
    const [workId] = await insertWorks([{ userId: author.id, title: "封禁测试" }]);
    await db.insert(chapters).values({ workId, title: "第一章", content: "第一段。\n\n第二段。", position: 65_536, wordCount: 8 });
    const viewer = (id: string) => ({ id, showR18: false, showAi: true });
    await postComment(viewer(spammer.id), { workId, order: 1, paragraph: null, parentId: null, body: "加我微信买资源" });
    await postComment(viewer(reader.id), { workId, order: 1, paragraph: null, parentId: null, body: "写得好" });
    const bodies = async (as: string | null) =>
      (await listComments(as ? viewer(as) : null, workId, 1, { paragraph: null, sort: "new", page: 1 })).comments.map((c) => c.body);
    expect(await bodies(null)).toEqual(["写得好", "加我微信买资源"]);

    const phone = await sessionCookieFor(spammer.id);
    const laptop = await sessionCookieFor(spammer.id);
    const r = await edit(spammer.id, { intent: "ban", reason: "发布广告", until: "" });
    expect(r.location).toBe(`/admin/users/${spammer.id}?notice=banned`);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(false);
    expect(await loginError(spammer.email)).toEqual({ message: "该账号已被封禁，原因：发布广告", status: 403 });
    // The sign-in form shows the reason (and no session cookie is set).
    const { loginAction } = await import("~/routes/public/auth-actions.server");
    const { settle } = await import("./admin-fixtures");
    const form = await settle(() =>
      loginAction(new Request("http://localhost/auth/login", { method: "POST", headers: { Origin: "http://localhost" }, body: new URLSearchParams({ email: spammer.email, password: TEST_PASSWORD }) }), "198.51.100.9"),
    );
    expect(form.status).toBe(403);
    expect(errorsOf(form.data)).toContain("该账号已被封禁，原因：发布广告");
    // A wrong password says nothing about the ban.
    expect((await loginError(spammer.email, "wrong-password-1"))?.message).toBe("邮箱或密码错误");
    for (const who of [null, author.id, reader.id, spammer.id]) expect(await bodies(who)).toEqual(["写得好"]);

    const page = await callLoader(await import("~/routes/admin/user-edit"), get(`/admin/users/${spammer.id}`), { id: spammer.id });
    expect(page.data.user).toMatchObject({ banned: true, banReason: "发布广告", bannedUntil: null });

    expect((await edit(spammer.id, { intent: "unban" })).location).toBe(`/admin/users/${spammer.id}?notice=unbanned`);
    expect(await loginError(spammer.email)).toBeNull();
    expect(await bodies(null)).toEqual(["写得好", "加我微信买资源"]);

    const audit = await auditOf(spammer.id);
    expect(audit.map((a) => [a.action, a.reason])).toEqual([
      ["user.ban", "发布广告"],
      ["user.unban", null],
    ]);
    expect(audit[0]).toMatchObject({ adminId: admin.id, targetType: "user", after: { bannedUntil: null, sessionsEnded: 2 } });
  });

  it("a ban with an end date says until when, and lapses by itself", async () => {
    const u = await createUser();
    const r = await edit(u.id, { intent: "ban", reason: "刷屏", until: "2099-01-02" });
    expect(r.location).toContain("notice=banned");
    const [row] = await db.select({ bannedUntil: users.bannedUntil }).from(users).where(eq(users.id, u.id));
    expect(row.bannedUntil?.toISOString()).toBe("2099-01-01T16:00:00.000Z");
    expect((await loginError(u.email))?.message).toBe("该账号已被封禁至 2099-01-02 00:00:00，原因：刷屏");
    // The end passes: sign-in works again without anyone lifting it.
    await db.update(users).set({ bannedUntil: sql`now() - interval '1 minute'` }).where(eq(users.id, u.id));
    expect(await loginError(u.email)).toBeNull();
  });

  it("ends all sessions on request, audited with how many", async () => {
    const u = await createUser();
    const a = await sessionCookieFor(u.id);
    await sessionCookieFor(u.id);
    const r = await edit(u.id, { intent: "end-sessions" });
    expect(r.location).toBe(`/admin/users/${u.id}?notice=sessions-ended`);
    expect(await signedIn(a)).toBe(false);
    expect(await db.select().from(sessions).where(eq(sessions.userId, u.id))).toEqual([]);
    expect((await auditOf(u.id)).map((x) => [x.action, x.after])).toEqual([["user.end-sessions", { sessionsEnded: 2 }]]);
  });
});

describe(`credits, messages and the user page (${databaseKind})`, () => {
  it("audits a credits change with before, after and reason; a refused one leaves no row", async () => {
    const u = await createUser();
    expect((await edit(u.id, { intent: "balance", change: "+30", reason: "补偿" })).location).toContain("notice=balance-set");
    expect((await edit(u.id, { intent: "balance", change: "-31", reason: "扣回" })).status).toBe(402);
    expect((await edit(u.id, { intent: "balance", change: "-10", reason: "扣回" })).location).toContain("notice=balance-set");
    const audit = await auditOf(u.id);
    expect(audit.map((a) => [a.action, a.before, a.after, a.reason])).toEqual([
      ["user.credits", { credits: 0 }, { credits: 30, change: 30 }, "补偿"],
      ["user.credits", { credits: 30 }, { credits: 20, change: -10 }, "扣回"],
    ]);
    const [{ balance }] = await db.select({ balance: credits.balance }).from(credits).where(eq(credits.userId, u.id));
    expect(balance).toBe(20);
  });

  it("a message lands in the inbox and the audit; nickname and password changes are audited, the password never shown", async () => {
    const u = await createUser();
    expect((await edit(u.id, { intent: "message", body: "您的作品已恢复" })).location).toContain("notice=message-sent");
    const inbox = await db.select().from(notifications).where(eq(notifications.userId, u.id));
    expect(inbox.map((n) => [n.kind, n.body])).toEqual([["admin", "您的作品已恢复"]]);
    expect((await edit(u.id, { intent: "nickname", nickname: "新名字" })).location).toContain("notice=nickname-set");
    expect((await edit(u.id, { intent: "password", password: "another-password-9" })).location).toContain("notice=password-reset");
    const audit = await auditOf(u.id);
    expect(audit.map((a) => a.action)).toEqual(["user.message", "user.nickname", "user.password-reset"]);
    expect(audit[1]).toMatchObject({ after: { nickname: "新名字" } });
    expect(JSON.stringify(audit)).not.toContain("another-password-9");
  });

  it("the user page shows the ledgers, orders and works", async () => {
    const u = await createUser();
    await edit(u.id, { intent: "balance", change: "+12", reason: "活动" });
    await insertWorks([{ userId: u.id, title: "我的书" }]);
    const page = await callLoader(await import("~/routes/admin/user-edit"), get(`/admin/users/${u.id}`), { id: u.id });
    expect(page.data.activity.creditRows.map((r: { description: string }) => r.description)).toEqual(["管理员调整：活动"]);
    expect(page.data.activity.works.map((w: { title: string }) => w.title)).toEqual(["我的书"]);
    expect(page.data.activity.income).toEqual({ balance: 0, held: 0 });
    const rows = await db.select().from(creditTransactions).where(eq(creditTransactions.userId, u.id)).orderBy(desc(creditTransactions.id));
    expect(rows).toHaveLength(1);
    expect((await callLoader(await import("~/routes/admin/user-edit"), request(`/admin/users/${u.id}`), { id: u.id })).status).toBe(302);
  });
});
