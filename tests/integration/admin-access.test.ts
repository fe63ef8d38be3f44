import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminApiTokens, adminSessions, siteConfigs } from "~/db/schema";
import { createApiToken, hashApiToken, revokeApiToken } from "~/server/identity/api-tokens.server";
import { getAdmin } from "~/server/identity/admin-session.server";
import { verifyPassword } from "~/server/platform/password.server";
import { cookiePair, createUser, sessionCookieFor } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import {
  adminCookieFor,
  callAction,
  callLoader,
  createAdmin,
  request,
  type Identity,
  type RouteResult,
  testActor,
  actorOf,
} from "./admin-fixtures";
import { errorsOf } from "../fixtures/form-replies";

let admin: Awaited<ReturnType<typeof createAdmin>>;
let adminCookie: string;
let user: Awaited<ReturnType<typeof createUser>>;
let userCookie: string;
let validToken: string;
let revokedToken: string;
let expiredToken: string;
let workId: number;

beforeAll(async () => {
  admin = await createAdmin();
  adminCookie = await adminCookieFor(admin.id);
  user = await createUser();
  userCookie = await sessionCookieFor(user.id);
  validToken = (await createApiToken(actorOf(admin), { name: "valid", expiresInDays: 30 })).token;
  const revoked = await createApiToken(actorOf(admin), { name: "revoked", expiresInDays: null });
  await revokeApiToken(testActor, revoked.id);
  revokedToken = revoked.token;
  const expired = await createApiToken(actorOf(admin), { name: "expired", expiresInDays: 1 });
  await db.update(adminApiTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(adminApiTokens.id, expired.id));
  expiredToken = expired.token;
  // Something to export: a work with a chapter, and an unused redeem code.
  [workId] = await insertWorks([{ userId: user.id, title: "导出测试" }]);
  const { chapters } = await import("~/db/schema");
  await db.insert(chapters).values({ workId, title: "第一章", content: "正文", position: 1 });
  const { generateRedeemCodes } = await import("~/server/admin/redeem-codes.server");
  await generateRedeemCodes(testActor, 1, 10);
});

describe("/xbbadmin login", () => {
  it("says 密码错误 for a wrong password or an unknown e-mail, and sets no cookie", async () => {
    const login = await import("~/routes/admin/login");
    for (const fields of [
      { email: admin.email, password: "not-the-password" },
      { email: "nobody@example.com", password: admin.password },
      { email: user.email, password: user.password }, // a user is not an administrator
    ]) {
      const result = await callAction(login, request("/xbbadmin", {}, fields));
      expect(result.status).toBe(400);
      expect(errorsOf(result.data)).toContain("密码错误");
    }
  });

  it("signs in with the right password: a session row and the inkstone_admin cookie, then the target page", async () => {
    const login = await import("~/routes/admin/login");
    const result = await callAction(login, request("/xbbadmin", {}, { email: admin.email.toUpperCase(), password: admin.password, redirectTo: "/admin/users" }));
    expect(result.status).toBe(302);
    expect(result.location).toBe("/admin/users");
    const setCookie = result.response!.headers.get("Set-Cookie")!;
    expect(setCookie).toMatch(/^inkstone_admin=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const who = await getAdmin(request("/admin", { cookie: cookiePair(setCookie) }));
    expect(who?.email).toBe(admin.email);
  });

  it("never redirects outside /admin after login", async () => {
    const login = await import("~/routes/admin/login");
    for (const target of ["https://evil.example/", "//evil.example", "/my-works"]) {
      const result = await callAction(login, request("/xbbadmin", {}, { email: admin.email, password: admin.password, redirectTo: target }));
      expect(result.location).toBe("/admin/dashboard");
    }
  });

  it("locks an e-mail at one client address after 10 failed attempts in 15 minutes, even with the right password", async () => {
    const other = await createAdmin();
    const login = await import("~/routes/admin/login");
    for (let i = 0; i < 10; i++) {
      const r = await callAction(login, request("/xbbadmin", {}, { email: other.email, password: "wrong-password" }));
      expect(r.status).toBe(400);
    }
    const r = await callAction(login, request("/xbbadmin", {}, { email: other.email, password: other.password }));
    expect(r.status).toBe(429);
    expect(errorsOf(r.data)).toContain("尝试次数过多，请稍后再试");
  });

  it("sends a signed-in administrator on from the login page", async () => {
    const login = await import("~/routes/admin/login");
    const result = await callLoader(login, request("/xbbadmin", { cookie: adminCookie }));
    expect(result.location).toBe("/admin/dashboard");
  });
});

describe("admin sessions", () => {
  it("are separate from user sessions: a user's cookie, or a user's session id in the admin cookie, is no admin", async () => {
    expect(await getAdmin(request("/admin", { cookie: userCookie }))).toBeNull();
    const forged = userCookie.replace(/^inkstone_session=/, "inkstone_admin=");
    expect(await getAdmin(request("/admin", { cookie: forged }))).toBeNull();
    expect(await getAdmin(request("/admin", { cookie: "inkstone_admin=tampered" }))).toBeNull();
  });

  it("expire on the server", async () => {
    const cookie = await adminCookieFor(admin.id);
    expect(await getAdmin(request("/admin", { cookie }))).not.toBeNull();
    await db.update(adminSessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(adminSessions.adminId, admin.id));
    expect(await getAdmin(request("/admin", { cookie }))).toBeNull();
    adminCookie = await adminCookieFor(admin.id);
  });

  it("sign-out (POST, same origin) deletes the session row and clears the cookie; GET changes nothing", async () => {
    const logout = await import("~/routes/admin/logout");
    const cookie = await adminCookieFor(admin.id);
    const get = await callLoader(logout, request("/admin/logout", { cookie }));
    expect(get.status).toBe(302);
    expect(await getAdmin(request("/admin", { cookie }))).not.toBeNull();
    const crossSite = new Request("http://localhost/admin/logout", { method: "POST", headers: { Cookie: cookie, Origin: "https://evil.example" } });
    await callAction(logout, crossSite);
    expect(await getAdmin(request("/admin", { cookie }))).not.toBeNull();
    const result = await callAction(logout, request("/admin/logout", { cookie }, {}));
    expect(result.location).toBe("/xbbadmin");
    expect(result.response!.headers.get("Set-Cookie")).toMatch(/inkstone_admin=;.*Max-Age=0/);
    expect(await getAdmin(request("/admin", { cookie }))).toBeNull();
  });
});

describe("an administrator's own password", () => {
  it("needs the current password and at least 8 characters; success ends the other sessions only", async () => {
    const me = await createAdmin();
    const current = await adminCookieFor(me.id);
    const elsewhere = await adminCookieFor(me.id);
    const account = await import("~/routes/admin/account");
    const post = (fields: Record<string, string>) => callAction(account, request("/admin/account", { cookie: current }, fields));

    let r = await post({ currentPassword: "wrong-password", newPassword: "new-password-1", confirmPassword: "new-password-1" });
    expect(errorsOf(r.data)).toContain("当前密码错误");
    r = await post({ currentPassword: me.password, newPassword: "", confirmPassword: "" });
    expect(errorsOf(r.data)).toContain("请输入新密码");
    r = await post({ currentPassword: me.password, newPassword: "short", confirmPassword: "short" });
    expect(errorsOf(r.data)).toContain("密码至少需要 8 个字符");
    r = await post({ currentPassword: me.password, newPassword: "new-password-1", confirmPassword: "other-password" });
    expect(errorsOf(r.data)).toContain("两次输入的密码不一致");

    r = await post({ currentPassword: me.password, newPassword: "new-password-1", confirmPassword: "new-password-1" });
    expect(r.location).toBe("/admin/account?notice=password-changed");
    const { admins } = await import("~/db/schema");
    const [row] = await db.select().from(admins).where(eq(admins.id, me.id));
    expect(await verifyPassword("new-password-1", row.passwordHash)).toBe(true);
    expect(await getAdmin(request("/admin", { cookie: current }))).not.toBeNull();
    expect(await getAdmin(request("/admin", { cookie: elsewhere }))).toBeNull();
  });
});

describe("admin API tokens", () => {
  it("are shown once at creation, stored only as a SHA-256, listed and revoked from the admin area", async () => {
    const page = await import("~/routes/admin/api-tokens");
    const created = await callAction(page, request("/admin/api-tokens", { cookie: adminCookie }, { intent: "create", name: "备份脚本", expiresIn: "30" }));
    expect(created.status).toBe(200);
    const token: string = created.data.created.token;
    expect(token).toMatch(/^inkadm_[A-Za-z0-9_-]{40,}$/);
    const [row] = await db.select().from(adminApiTokens).where(eq(adminApiTokens.tokenHash, hashApiToken(token)));
    expect(row.name).toBe("备份脚本");
    const all = await db.execute(sql`select * from admin_api_tokens`);
    expect(JSON.stringify(all)).not.toContain(token);

    const list = await callLoader(page, request("/admin/api-tokens", { cookie: adminCookie }));
    const listed = list.data.tokens.find((t: { id: number }) => t.id === row.id);
    expect(listed.state).toBe("有效");
    expect(JSON.stringify(list.data)).not.toContain(token);

    const works = await import("~/routes/exports/work-txt");
    const bearer = { authorization: `Bearer ${token}` };
    expect((await callLoader(works, request(`/exports/works/${workId}/txt`, bearer), { id: String(workId) })).status).toBe(200);

    const revoked = await callAction(page, request("/admin/api-tokens", { cookie: adminCookie }, { intent: "revoke", id: String(row.id) }));
    expect(revoked.location).toBe("/admin/api-tokens?notice=revoked");
    expect((await callLoader(works, request(`/exports/works/${workId}/txt`, bearer), { id: String(workId) })).status).toBe(401);
  });

  it("refuses an empty name", async () => {
    const page = await import("~/routes/admin/api-tokens");
    const r = await callAction(page, request("/admin/api-tokens", { cookie: adminCookie }, { intent: "create", name: "  ", expiresIn: "30" }));
    expect(r.status).toBe(400);
    expect(errorsOf(r.data.result)).toContain("请输入令牌名称");
  });
});

// ---------------------------------------------------------------------------------------
// The permission matrix: every /admin loader and action, and every export, for each kind
// of caller. Only an admin session opens /admin; exports also take a valid bearer token.

interface AdminRoute {
  name: string;
  load: () => Promise<{ loader?: (a: never) => unknown; action?: (a: never) => unknown }>;
  path: string;
  params?: () => Record<string, string>;
  /** A harmless valid post for the action (admin row), if the route has one. */
  post?: () => Record<string, string>;
}

const ADMIN_ROUTES: AdminRoute[] = [
  { name: "layout", load: () => import("~/routes/admin/layout"), path: "/admin/dashboard" },
  { name: "dashboard", load: () => import("~/routes/admin/dashboard"), path: "/admin/dashboard" },
  { name: "users", load: () => import("~/routes/admin/users"), path: "/admin/users" },
  {
    name: "user-edit",
    load: () => import("~/routes/admin/user-edit"),
    path: "/admin/users/x",
    params: () => ({ id: user.id }),
    post: () => ({ intent: "nickname", nickname: "矩阵" }),
  },
  { name: "works", load: () => import("~/routes/admin/works"), path: "/admin/works" },
  {
    name: "prompts",
    load: () => import("~/routes/admin/prompts"),
    path: "/admin/prompts",
    post: () => ({ intent: "create", code: `M${Date.now()}${Math.random()}`.slice(0, 40), title: "t", systemContent: "s", userContent: "u", type: "free" }),
  },
  { name: "migration", load: () => import("~/routes/admin/migration"), path: "/admin/migration" },
  { name: "codes", load: () => import("~/routes/admin/codes"), path: "/admin/codes", post: () => ({ quantity: "1", amount: "10" }) },
  { name: "payment", load: () => import("~/routes/admin/payment"), path: "/admin/payment", post: () => ({ method: "redeem_code", storeUrl: "" }) },
  {
    name: "payment-api",
    load: () => import("~/routes/admin/settings/payment-api"),
    path: "/admin/settings/payment-api",
    post: () => ({ gatewayUrl: "https://pay.example.com/submit.php", merchantPid: "1001", merchantKey: "matrix-key-0001" }),
  },
  {
    name: "api",
    load: () => import("~/routes/admin/settings/api"),
    path: "/admin/settings/api",
    post: () => ({ intent: "create", name: "矩阵", provider: "openai", endpoint: "http://127.0.0.1:9/v1", apiKey: "k", model: "m" }),
  },
  { name: "tokens", load: () => import("~/routes/admin/settings/tokens"), path: "/admin/settings/tokens", post: () => ({ ratio: "100", initialTokens: "10000" }) },
  { name: "cover", load: () => import("~/routes/admin/settings/image"), path: "/admin/settings/cover", post: () => ({ intent: "remove" }) },
  { name: "logo", load: () => import("~/routes/admin/settings/image"), path: "/admin/settings/logo", post: () => ({ intent: "remove" }) },
  { name: "hero", load: () => import("~/routes/admin/settings/image"), path: "/admin/settings/hero", post: () => ({ intent: "remove" }) },
  { name: "description", load: () => import("~/routes/admin/settings/description"), path: "/admin/settings/description", post: () => ({ description: "矩阵简介" }) },
  { name: "terms", load: () => import("~/routes/admin/settings/legal"), path: "/admin/settings/terms", post: () => ({ intent: "preview", content: "<p>x</p>" }) },
  { name: "privacy", load: () => import("~/routes/admin/settings/legal"), path: "/admin/settings/privacy", post: () => ({ intent: "preview", content: "<p>x</p>" }) },
  { name: "chat test", load: () => import("~/routes/admin/tests/openai"), path: "/admin/tests/openai", post: () => ({ endpoint: "ftp://example.com", apiKey: "k", model: "" }) },
  { name: "account", load: () => import("~/routes/admin/account"), path: "/admin/account", post: () => ({ currentPassword: "x", newPassword: "y", confirmPassword: "y" }) },
  { name: "api-tokens", load: () => import("~/routes/admin/api-tokens"), path: "/admin/api-tokens", post: () => ({ intent: "create", name: "矩阵", expiresIn: "30" }) },
  // 先审后发 (docs/product.md#review): the queue and the policy.
  { name: "review", load: () => import("~/routes/admin/review"), path: "/admin/review", post: () => ({ intent: "claim-next" }) },
  {
    name: "review-policy",
    load: () => import("~/routes/admin/settings/review"),
    path: "/admin/settings/review",
    post: () => ({ newAuthors: "", trustedAfter: "10" }),
  },
];

const OUTSIDERS: { who: string; identity: () => Identity }[] = [
  { who: "a visitor", identity: () => ({}) },
  { who: "a signed-in user", identity: () => ({ cookie: userCookie }) },
  { who: "a user's session id in the admin cookie", identity: () => ({ cookie: userCookie.replace(/^inkstone_session=/, "inkstone_admin=") }) },
  { who: "a valid API token (exports only)", identity: () => ({ authorization: `Bearer ${validToken}` }) },
  { who: "a revoked API token", identity: () => ({ authorization: `Bearer ${revokedToken}` }) },
  { who: "an expired API token", identity: () => ({ authorization: `Bearer ${expiredToken}` }) },
];

function isLoginRedirect(r: RouteResult) {
  return r.status === 302 && (r.location ?? "").startsWith("/xbbadmin?redirectTo=");
}

describe("permission matrix: /admin loaders and actions", () => {
  for (const route of ADMIN_ROUTES) {
    for (const outsider of OUTSIDERS) {
      it(`${route.name}: ${outsider.who} gets the login redirect (GET) and 401 (POST)`, async () => {
        const mod = await route.load();
        const params = route.params?.() ?? {};
        const get = await callLoader(mod, request(route.path, outsider.identity()), params);
        expect(isLoginRedirect(get), `${route.name} GET → ${get.status} ${get.location}`).toBe(true);
        if (route.post && mod.action) {
          const post = await callAction(mod, request(route.path, outsider.identity(), route.post()), params);
          expect(post.status).toBe(401);
          expect(post.data).toBe("请先登录管理后台");
        }
      });
    }
    it(`${route.name}: an administrator gets the page${route.post ? " and the action" : ""}`, async () => {
      const mod = await route.load();
      const params = route.params?.() ?? {};
      const get = await callLoader(mod, request(route.path, { cookie: adminCookie }), params);
      expect(get.status).toBe(200);
      if (route.post && mod.action) {
        const post = await callAction(mod, request(route.path, { cookie: adminCookie }, route.post()), params);
        expect(post.status).not.toBe(401);
        expect(post.status).toBeLessThan(500);
      }
    });
  }

  it("an outsider's post changes nothing", async () => {
    const tokens = await import("~/routes/admin/settings/tokens");
    const before = await db.select().from(siteConfigs).where(eq(siteConfigs.key, "credits_to_tokens_ratio"));
    for (const outsider of OUTSIDERS) {
      await callAction(tokens, request("/admin/settings/tokens", outsider.identity(), { ratio: "7", initialTokens: "7" }));
    }
    const after = await db.select().from(siteConfigs).where(eq(siteConfigs.key, "credits_to_tokens_ratio"));
    expect(after[0].value).toBe(before[0].value);
  });

  it("unknown /admin paths and /admin itself go to the dashboard", async () => {
    const catchAll = await import("~/routes/admin/catch-all");
    for (const path of ["/admin", "/admin/nope", "/admin/settings/whatever"]) {
      const r = await callLoader(catchAll, request(path));
      expect(r.location).toBe("/admin/dashboard");
    }
  });
});

describe("permission matrix: exports", () => {
  const EXPORTS = [
    { name: "work TXT", load: () => import("~/routes/exports/work-txt"), path: () => `/exports/works/${workId}/txt`, params: () => ({ id: String(workId) }) },
    { name: "unused codes", load: () => import("~/routes/exports/unused-codes"), path: () => "/exports/redeem-codes/unused.xlsx", params: () => ({}) },
    { name: "database.zip", load: () => import("~/routes/exports/database"), path: () => "/exports/database.zip", params: () => ({}) },
    { name: "database progress", load: () => import("~/routes/exports/database-progress"), path: () => "/exports/database/progress", params: () => ({}) },
  ];
  const cases: { who: string; identity: () => Identity; status: number }[] = [
    { who: "a visitor", identity: () => ({}), status: 401 },
    { who: "a signed-in user", identity: () => ({ cookie: userCookie }), status: 401 },
    { who: "a revoked token", identity: () => ({ authorization: `Bearer ${revokedToken}` }), status: 401 },
    { who: "an expired token", identity: () => ({ authorization: `Bearer ${expiredToken}` }), status: 401 },
    { who: "a malformed bearer", identity: () => ({ authorization: "Bearer nonsense" }), status: 401 },
    { who: "an admin cookie with a bad bearer", identity: () => ({ cookie: adminCookie, authorization: "Bearer nonsense" }), status: 401 },
    { who: "an admin session", identity: () => ({ cookie: adminCookie }), status: 200 },
    { who: "a valid token", identity: () => ({ authorization: `Bearer ${validToken}` }), status: 200 },
  ];
  for (const exp of EXPORTS) {
    for (const c of cases) {
      it(`${exp.name}: ${c.who} → ${c.status}`, async () => {
        const mod = await exp.load();
        const r = await callLoader(mod, request(exp.path(), c.identity()), exp.params());
        expect(r.status).toBe(c.status);
        if (c.status === 401) {
          expect(r.response!.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
        }
        await r.response?.body?.cancel();
      });
    }
  }

  it("records when a token was last used", async () => {
    const [row] = await db.select().from(adminApiTokens).where(eq(adminApiTokens.tokenHash, hashApiToken(validToken)));
    expect(row.lastUsedAt).not.toBeNull();
  });
});
