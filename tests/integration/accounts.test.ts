import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { credits, profiles, sessions, tokenTransactions, users } from "~/db/schema";
import { AUTH_MESSAGES, AuthError, login, register } from "~/server/identity/auth.server";
import { loginAction, registerAction } from "~/routes/public/auth-actions.server";
import {
  createUserSession,
  destroyAllUserSessions,
  getSessionUser,
} from "~/server/identity/session.server";
import { requireUser } from "~/middleware/guards.server";
import { verifyPassword } from "~/server/platform/password.server";
import { cookiePair, createUser, formOf, postRequest, TEST_PASSWORD, uniqueEmail } from "../fixtures/accounts";
import { callThroughRoutes } from "./route-chain";

async function authError(promise: Promise<unknown>): Promise<AuthError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof AuthError) return e;
    throw e;
  }
  throw new Error("expected an AuthError");
}

describe("register", () => {
  it("creates the user, profile with initial tokens (in the token ledger) and a credits row of 0", async () => {
    const email = uniqueEmail("Reg").toUpperCase();
    const user = await register(formOf({ email, password: TEST_PASSWORD }), "10.0.0.1");
    expect(user.email).toBe(email.toLowerCase());
    const [profile] = await db.select().from(profiles).where(eq(profiles.id, user.id));
    expect(profile.tokens).toBe(10000);
    expect(profile.showAi).toBe(true);
    expect(profile.showR18).toBe(false);
    const [balance] = await db.select().from(credits).where(eq(credits.userId, user.id));
    expect(balance.balance).toBe(0);
    const ledger = await db.select().from(tokenTransactions).where(eq(tokenTransactions.userId, user.id));
    expect(ledger.map((r) => [r.type, r.amount])).toEqual([["grant", 10000]]);
  });

  it("stores a salted scrypt hash, never the password", async () => {
    const a = await createUser();
    const b = await createUser();
    const rows = await db.select({ id: users.id, hash: users.passwordHash }).from(users);
    const hashA = rows.find((r) => r.id === a.id)!.hash;
    const hashB = rows.find((r) => r.id === b.id)!.hash;
    expect(hashA).toMatch(/^scrypt\$/);
    expect(hashA).not.toContain(TEST_PASSWORD);
    expect(hashA).not.toBe(hashB);
    expect(await verifyPassword(TEST_PASSWORD, hashA)).toBe(true);
    expect(await verifyPassword("wrong-password", hashA)).toBe(false);
  });

  it("refuses a registered e-mail (any case) with 该邮箱已被注册 and writes nothing", async () => {
    const { email } = await createUser();
    const before = await db.select({ n: sql<number>`count(*)::int` }).from(users);
    const error = await authError(register(formOf({ email: email.toUpperCase(), password: TEST_PASSWORD }), "x"));
    expect(error.message).toBe(AUTH_MESSAGES.emailTaken);
    const after = await db.select({ n: sql<number>`count(*)::int` }).from(users);
    expect(after[0].n).toBe(before[0].n);
  });

  it.each([
    [{ email: "", password: TEST_PASSWORD }, "email", "请输入邮箱"],
    [{ email: "not-an-email", password: TEST_PASSWORD }, "email", "请输入有效的邮箱地址"],
    [{ email: uniqueEmail(), password: "" }, "password", "请输入密码"],
    [{ email: uniqueEmail(), password: "1234567" }, "password", "密码至少需要 8 个字符"],
    [{ email: uniqueEmail(), password: "密".repeat(100) }, "password", "密码过长"],
    [{ email: `${"a".repeat(10_001)}@example.com`, password: TEST_PASSWORD }, "email", "邮箱地址过长"],
  ])("rejects bad input %# with a Chinese message", async (fields, field, message) => {
    const error = await authError(register(formOf(fields), "x"));
    expect(error.fieldErrors[field]).toContain(message);
  });
});

describe("login", () => {
  it("accepts the right password, case-insensitively on the e-mail", async () => {
    const u = await createUser();
    const user = await login(formOf({ email: u.email.toUpperCase(), password: u.password }), "10.0.0.2");
    expect(user.id).toBe(u.id);
  });

  it("answers 邮箱或密码错误 for a wrong password and for an unknown e-mail alike", async () => {
    const u = await createUser();
    const wrong = await authError(login(formOf({ email: u.email, password: "wrong-password" }), "10.0.0.3"));
    const unknown = await authError(login(formOf({ email: uniqueEmail(), password: "whatever1" }), "10.0.0.3"));
    expect(wrong.message).toBe("邮箱或密码错误");
    expect(unknown.message).toBe("邮箱或密码错误");
  });

  it("locks an e-mail at one client address after 10 failures, counted in the database", async () => {
    const u = await createUser();
    for (let i = 0; i < 10; i++) {
      const e = await authError(login(formOf({ email: u.email, password: "wrong-password" }), "10.1.0.1"));
      expect(e.message).toBe("邮箱或密码错误");
    }
    // The 11th attempt from that address is refused even with the right password.
    const limited = await authError(login(formOf({ email: u.email, password: u.password }), "10.1.0.1"));
    expect(limited.message).toBe("尝试次数过多，请稍后再试");
    const [row] = await db.execute(sql`select count from rate_limits where key = ${`login:pair:${u.email} 10.1.0.1`}`).then(
      (r) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as { count: number }[],
    );
    expect(Number(row.count)).toBe(11);
    // Other addresses are not locked (tests/integration/login-lockout.test.ts has the rest).
    expect((await login(formOf({ email: u.email, password: u.password }), "10.1.1.1")).id).toBe(u.id);
  });
});

describe("login and register actions", () => {
  it("logs in, sets a signed httpOnly SameSite=Lax cookie holding only a random id, and redirects to redirectTo", async () => {
    const u = await createUser();
    const response = (await loginAction(
      postRequest("/auth/login", { email: u.email, password: u.password, redirectTo: "/my-works?tab=paid" }),
      "10.2.0.1",
    )) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/my-works?tab=paid");
    const setCookie = response.headers.get("Set-Cookie")!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).not.toMatch(/Secure/i);
    expect(setCookie).not.toContain(u.email);
    const request = new Request("http://localhost/", { headers: { Cookie: cookiePair(setCookie) } });
    expect((await getSessionUser(request))?.id).toBe(u.id);
  });

  it("marks the cookie Secure when served over https", async () => {
    const u = await createUser();
    const request = new Request("https://example.com/auth/login", { method: "POST" });
    const cookie = await createUserSession(request, u.id);
    expect(cookie).toMatch(/Secure/);
  });

  it.each(["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "http:/evil"])(
    "never redirects off-site after login (%s)",
    async (redirectTo) => {
      const u = await createUser();
      const response = (await loginAction(
        postRequest("/auth/login", { email: u.email, password: u.password, redirectTo }),
        "10.2.0.2",
      )) as Response;
      expect(response.headers.get("Location")).toBe("/");
    },
  );

  it("answers a wrong password with 400 and the message, without echoing the password", async () => {
    const u = await createUser();
    const result = (await loginAction(
      postRequest("/auth/login", { email: u.email, password: "bad-password-123" }),
      "10.2.0.3",
    )) as unknown as { init: { status: number }; data: { error: Record<string, string[]>; initialValue: Record<string, unknown> } };
    expect(result.init.status).toBe(400);
    expect(result.data.error[""]).toEqual(["邮箱或密码错误"]);
    expect(JSON.stringify(result.data)).not.toContain("bad-password-123");
  });

  it("answers rate limiting with 429, not 500", async () => {
    const u = await createUser();
    let last: { init: { status: number } } | undefined;
    for (let i = 0; i < 11; i++) {
      last = (await loginAction(postRequest("/auth/login", { email: u.email, password: "nope-nope-1" }), "10.3.0.1")) as never;
    }
    expect(last!.init.status).toBe(429);
  });

  it("registers and signs in: a session cookie and a redirect to the remembered page", async () => {
    const email = uniqueEmail();
    const response = (await registerAction(
      postRequest("/auth/register", { email, password: TEST_PASSWORD, redirectTo: "/works/abc?x=1" }),
      "10.4.0.1",
    )) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/works/abc?x=1");
    const setCookie = response.headers.get("Set-Cookie")!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).not.toContain(email);
    const request = new Request("http://localhost/", { headers: { Cookie: cookiePair(setCookie) } });
    expect((await getSessionUser(request))?.email).toBe(email);
  });

  it("never redirects off-site after registering", async () => {
    const response = (await registerAction(
      postRequest("/auth/register", { email: uniqueEmail(), password: TEST_PASSWORD, redirectTo: "//evil.example/x" }),
      "10.4.0.2",
    )) as Response;
    expect(response.headers.get("Location")).toBe("/");
  });

  it("a refused registration signs nobody in", async () => {
    const u = await createUser();
    const result = (await registerAction(
      postRequest("/auth/register", { email: u.email, password: TEST_PASSWORD, redirectTo: "/submit" }),
      "10.4.0.3",
    )) as unknown as { init: { status: number }; headers?: Headers };
    expect(result.init.status).toBe(400);
    expect(result).not.toBeInstanceOf(Response);
  });
});

describe("sessions", () => {
  it("ignores a tampered or unsigned cookie", async () => {
    const u = await createUser();
    const cookie = cookiePair(await createUserSession(new Request("http://localhost/"), u.id));
    const [name, value] = cookie.split("=");
    // The genuine cookie, read twice (the second time its checked signature is reused).
    for (let i = 0; i < 2; i++) {
      expect((await getSessionUser(new Request("http://localhost/", { headers: { Cookie: cookie } })))?.id).toBe(u.id);
    }
    const tampered = `${name}=${value.slice(0, -3)}abc`;
    expect(await getSessionUser(new Request("http://localhost/", { headers: { Cookie: tampered } }))).toBeNull();
    const [row] = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, u.id));
    const unsigned = `${name}=${encodeURIComponent(btoa(JSON.stringify(row.id)))}`;
    expect(await getSessionUser(new Request("http://localhost/", { headers: { Cookie: unsigned } }))).toBeNull();
    expect(await getSessionUser(new Request("http://localhost/", { headers: { Cookie: "inkstone_session=%%%" } }))).toBeNull();
  });

  it("ends every session of a user on the server (password change, admin reset)", async () => {
    const u = await createUser();
    const a = cookiePair(await createUserSession(new Request("http://localhost/"), u.id));
    const b = cookiePair(await createUserSession(new Request("http://localhost/"), u.id));
    expect(a).not.toBe(b);
    for (const cookie of [a, b]) {
      expect((await getSessionUser(new Request("http://localhost/", { headers: { Cookie: cookie } })))?.id).toBe(u.id);
    }
    await destroyAllUserSessions(u.id);
    for (const cookie of [a, b]) {
      expect(await getSessionUser(new Request("http://localhost/", { headers: { Cookie: cookie } }))).toBeNull();
    }
  });

  it("logout deletes the session row even when the cookie is replayed afterwards", async () => {
    const u = await createUser();
    const cookie = cookiePair(await createUserSession(new Request("http://localhost/"), u.id));
    const { action } = await import("~/routes/api/logout");
    const response = (await callThroughRoutes(action, {
      request: new Request("http://localhost/auth/logout", {
        method: "POST",
        headers: { Cookie: cookie, Origin: "http://localhost" },
      }),
    })) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    expect(response.headers.get("Set-Cookie")).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    expect(await getSessionUser(new Request("http://localhost/", { headers: { Cookie: cookie } }))).toBeNull();
  });

  it("requireUser redirects a visitor to the login dialog that returns to the page", async () => {
    try {
      await requireUser(new Request("http://localhost/my-works?page=2"));
      throw new Error("expected a redirect");
    } catch (e) {
      const response = e as Response;
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toBe("/?auth=login&redirectTo=%2Fmy-works%3Fpage%3D2");
    }
  });
});
