import { createHash, randomBytes } from "node:crypto";
import net from "node:net";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { passwordResetTokens, sessions } from "~/db/schema";
import * as forgotRoute from "~/routes/public/auth-forgot-password";
import * as resetRoute from "~/routes/public/auth-reset-password";
import { loader as shellLoader } from "~/routes/shell/layout";
import { loginAction } from "~/routes/public/auth-actions.server";
import { mailLinkWarning, resetMailsSettled } from "~/server/identity/password-reset.server";
import { cookiePair, createUser, postRequest, sessionCookieFor, uniqueEmail } from "../fixtures/accounts";
import { startFakeSmtp, type FakeSmtp, type ReceivedMail } from "../fakes/smtp";
import { FORM_MESSAGES } from "~/server/platform/form-data.server";
import { settle } from "./admin-fixtures";
import { requestContext } from "./route-chain";
import { errorsOf } from "../fixtures/form-replies";

/** docs/product.md: Accounts (forgot password), docs/decisions/067. */

const NEW_PASSWORD = "brand-new-password-1";

let smtp: FakeSmtp;
/** The site's address: links in mails come from SITE_URL only (docs/decisions/166). */
const SITE_URL = "http://localhost";
beforeAll(async () => {
  smtp = await startFakeSmtp();
  process.env.SMTP_URL = smtp.url;
  process.env.SITE_URL = SITE_URL;
});
afterEach(async () => {
  await resetMailsSettled();
  process.env.SMTP_URL = smtp.url;
  process.env.SITE_URL = SITE_URL;
  for (const name of ["RESET_LIMIT_PER_EMAIL", "RESET_LIMIT_PER_ADDRESS"]) delete process.env[name];
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  delete process.env.SITE_URL;
  await smtp.close();
});

/** POST /auth/forgot-password as a browser would, from one client address. */
function forgot(email: string, opts: { address?: string; url?: string } = {}) {
  const url = opts.url ?? "http://localhost/auth/forgot-password";
  const request = new Request(url, {
    method: "POST",
    body: new URLSearchParams({ email }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(url).origin },
  });
  return settle(() => forgotRoute.action({ request, params: {}, context: requestContext(opts.address ?? "127.0.0.1") } as never));
}

function linkIn(mail: ReceivedMail): URL {
  const match = mail.text.match(/https?:\/\/\S+\/auth\/reset-password\?token=\S+/);
  if (!match) throw new Error(`no reset link in: ${mail.text}`);
  return new URL(match[0]);
}

/** Requests a reset for the e-mail and returns the link from the mail that arrives. */
async function requestLink(email: string): Promise<URL> {
  expect((await forgot(email)).status).toBe(302);
  return linkIn(await smtp.nextMessageTo(email));
}

function tokenOf(link: URL): string {
  return link.searchParams.get("token") ?? "";
}

/** GET of the reset page: the problem it shows, or null with the form. */
async function resetPage(query: string) {
  const result = await settle(() => resetRoute.loader({ request: new Request(`http://localhost/auth/reset-password${query}`), url: new URL(`http://localhost/auth/reset-password${query}`), params: {}, context: requestContext() } as never));
  return result.data as { token: string; problem: string | null };
}

/** POST of the reset form. */
function reset(fields: Record<string, string>, headers: Record<string, string> = {}) {
  const query = fields.token === undefined ? "" : `?token=${encodeURIComponent(fields.token)}`;
  return settle(() => resetRoute.action({ request: postRequest(`/auth/reset-password${query}`, fields, headers), params: {}, context: requestContext() } as never));
}

async function userLogin(email: string, password: string, clientAddress = "10.1.1.1"): Promise<number> {
  const result = (await loginAction(postRequest("/auth/login", { email, password }), clientAddress)) as Response | { init: { status: number } };
  return result instanceof Response ? result.status : result.init.status;
}

describe("forgot password: the request", () => {
  it("answers a registered and an unknown e-mail alike, and mails a link only to the account", async () => {
    const user = await createUser();
    const unknown = uniqueEmail("nobody");
    const [registered, stranger] = [await forgot(user.email.toUpperCase()), await forgot(unknown)];
    for (const answer of [registered, stranger]) {
      expect(answer).toMatchObject({ status: 302, location: "/auth/forgot-password?sent=1" });
      expect(answer.response!.headers.get("Set-Cookie")).toBeNull();
    }
    const page = await settle(() => forgotRoute.loader({ request: new Request("http://localhost/auth/forgot-password?sent=1"), url: new URL("http://localhost/auth/forgot-password?sent=1"), params: {}, context: requestContext() } as never));
    expect(page.data).toEqual({ sent: true, mailAvailable: true });

    const mail = await smtp.nextMessageTo(user.email);
    await resetMailsSettled();
    expect(smtp.messages.filter((m) => m.to.includes(unknown))).toEqual([]);
    expect(mail.subject).toBe("砚台密码重置");
    expect(mail.text).toContain(`你在砚台的账号（${user.email}）`);
    expect(mail.text).toContain("30分钟");
    const link = linkIn(mail);
    expect(link.origin + link.pathname).toBe("http://localhost/auth/reset-password");
    expect(tokenOf(link)).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Only the token's SHA-256 is stored.
    const rows = await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, user.id));
    expect(rows.map((r) => r.tokenHash)).toEqual([createHash("sha256").update(tokenOf(link)).digest("hex")]);
    expect(JSON.stringify(rows)).not.toContain(tokenOf(link));
  });

  it("answers before the mail goes out, so a slow mail server does not tell which e-mails exist; a failed mail is logged", async () => {
    // A server that accepts the connection and never greets: the mail waits until it gives up.
    const connected: net.Socket[] = [];
    const silent = net.createServer((socket) => connected.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    process.env.SMTP_URL = `smtp://127.0.0.1:${port}/?greetingTimeout=4000`;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const user = await createUser();
      const started = Date.now();
      expect(await forgot(user.email)).toMatchObject({ status: 302, location: "/auth/forgot-password?sent=1" });
      expect(Date.now() - started).toBeLessThan(3000);
      await vi.waitFor(() => expect(connected).toHaveLength(1), { timeout: 5000 });
      await resetMailsSettled();
      expect(logged.mock.calls.map((c) => String(c[0]))).toContain("password reset mail failed");
    } finally {
      logged.mockRestore();
      for (const socket of connected) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("builds the link from SITE_URL, never from the request's Host", async () => {
    const user = await createUser();
    process.env.SITE_URL = "https://inkstone.example/";
    // A forged Host (and a matching Origin, so the post passes as same-origin).
    await forgot(user.email, { url: "http://evil.example/auth/forgot-password" });
    expect(linkIn(await smtp.nextMessageTo(user.email)).origin).toBe("https://inkstone.example");
  });

  it("without SITE_URL sends no mail, says so on the page and at start, and counts nothing", async () => {
    const user = await createUser();
    const unavailable = "本站尚未设置网站地址，暂时无法发送重置邮件，请联系网站管理员";
    for (const value of [undefined, "not a url", "ftp://inkstone.example"]) {
      if (value === undefined) delete process.env.SITE_URL;
      else process.env.SITE_URL = value;
      const page = await settle(() => forgotRoute.loader({ request: new Request("http://localhost/auth/forgot-password"), url: new URL("http://localhost/auth/forgot-password"), params: {}, context: requestContext() } as never));
      expect(page.data).toEqual({ sent: false, mailAvailable: false });
      expect(mailLinkWarning()).toMatch(/^SITE_URL (is not set|is not an http\(s\) address)/);
      for (const url of ["http://localhost/auth/forgot-password", "http://evil.example/auth/forgot-password"]) {
        const answer = await forgot(user.email, { url });
        expect(answer.status).toBe(503);
        expect(errorsOf(answer.data)).toEqual([unavailable]);
      }
    }
    await resetMailsSettled();
    expect(smtp.messages.filter((m) => m.to.includes(user.email))).toEqual([]);
    expect(await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, user.id))).toEqual([]);
    process.env.SITE_URL = SITE_URL;
    expect(mailLinkWarning()).toBeNull();
  });

  it("refuses empty, malformed, over-long and NUL-carrying e-mails with a message", async () => {
    const cases: [string, string][] = [
      ["", "请输入邮箱"],
      ["   ", "请输入邮箱"],
      ["not-an-email", "请输入有效的邮箱地址"],
      [`${"a".repeat(250)}@example.com`, "邮箱地址过长"],
    ];
    for (const [email, message] of cases) {
      const answer = await forgot(email);
      expect(answer.status).toBe(400);
      expect(errorsOf(answer.data)).toEqual([message]);
    }
    // A control character in any field is refused by the form reader before the schema.
    expect(await forgot("a\u0000b@example.com")).toMatchObject({ status: 400, data: FORM_MESSAGES.controlCharacter });
    // A body that is no form at all, or far too large, is a 4xx too.
    const broken = new Request("http://localhost/auth/forgot-password", {
      method: "POST",
      body: "--x\r\nnot multipart",
      headers: { "Content-Type": "multipart/form-data; boundary=y", Origin: "http://localhost" },
    });
    expect((await settle(() => forgotRoute.action({ request: broken, params: {}, context: requestContext() } as never))).status).toBe(400);
    const huge = postRequest("/auth/forgot-password", { email: "x".repeat(20_000) });
    expect((await settle(() => forgotRoute.action({ request: huge, params: {}, context: requestContext() } as never))).status).toBe(413);
  });

  it("limits requests per e-mail and per address, alike for registered and unknown e-mails", async () => {
    process.env.RESET_LIMIT_PER_EMAIL = "2";
    process.env.RESET_LIMIT_PER_ADDRESS = "4";
    const user = await createUser();
    const unknown = uniqueEmail("nobody");
    for (const email of [user.email, unknown]) {
      expect((await forgot(email, { address: "10.2.0.1" })).status).toBe(302);
      expect((await forgot(email, { address: "10.2.0.2" })).status).toBe(302);
      const refused = await forgot(email, { address: "10.2.0.3" });
      expect(refused.status).toBe(429);
      expect(errorsOf(refused.data)).toEqual(["请求过于频繁，请稍后再试"]);
    }
    await resetMailsSettled();
    expect(smtp.messages.filter((m) => m.to.includes(user.email))).toHaveLength(2);
    smtp.messages.length = 0;

    // Per address: its fifth request is refused whatever the e-mail; another address goes on.
    for (let i = 0; i < 4; i++) expect((await forgot(uniqueEmail(), { address: "10.3.0.1" })).status).toBe(302);
    expect((await forgot(uniqueEmail(), { address: "10.3.0.1" })).status).toBe(429);
    expect((await forgot(uniqueEmail(), { address: "10.3.0.2" })).status).toBe(302);
  });
});

describe("forgot password: the link", () => {
  it("sets the new password, ends every session, clears failed logins, and opens the login dialog with the e-mail", async () => {
    const user = await createUser();
    const cookie = await sessionCookieFor(user.id);
    await sessionCookieFor(user.id); // another device
    const [bystander] = [await createUser()];
    await sessionCookieFor(bystander.id);
    // Locked out at this address by failed logins (decision 046).
    for (let i = 0; i < 10; i++) expect(await userLogin(user.email, "wrong-password-1")).toBe(400);
    expect(await userLogin(user.email, user.password)).toBe(429);

    const token = tokenOf(await requestLink(user.email));
    expect(await resetPage(`?token=${token}`)).toEqual({ token, problem: null });
    const done = await reset({ token, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }, { Cookie: cookie });
    expect(done).toMatchObject({ status: 302, location: "/?auth=login&reset=1" });
    const setCookies = done.response!.headers.getSetCookie();
    expect(setCookies.some((c) => /^inkstone_session=; Max-Age=0/.test(c))).toBe(true);
    const emailCookie = setCookies.find((c) => c.startsWith("inkstone_auth_email="));
    expect(emailCookie).toBeDefined();

    expect(await db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([]);
    expect(await db.select().from(sessions).where(eq(sessions.userId, bystander.id))).toHaveLength(1);
    // The lock is gone: the new password works at the locked address; the old one does not.
    expect(await userLogin(user.email, user.password)).toBe(400);
    expect(await userLogin(user.email, NEW_PASSWORD)).toBe(302);

    // The page it lands on: the login dialog with the notice and the e-mail filled in.
    const landing = await settle(() =>
      shellLoader({ request: new Request("http://localhost/?auth=login&reset=1", { headers: { Cookie: cookiePair(emailCookie!) } }), url: new URL("http://localhost/?auth=login&reset=1"), params: {}, context: requestContext() } as never),
    );
    expect(landing.data.auth).toMatchObject({ mode: "login", notice: "密码已重置，请用新密码登录", prefillEmail: user.email });
  });

  it("works once; the page then says so, and offers a new request", async () => {
    const user = await createUser();
    const token = tokenOf(await requestLink(user.email));
    // Opening the page twice changes nothing.
    await resetPage(`?token=${token}`);
    expect((await resetPage(`?token=${token}`)).problem).toBeNull();
    expect((await reset({ token, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })).status).toBe(302);

    const again = await reset({ token, newPassword: "another-password-2", confirmPassword: "another-password-2" });
    expect(again.status).toBe(400);
    expect(errorsOf(again.data)).toEqual(["该重置链接已使用过，请重新申请"]);
    expect(await resetPage(`?token=${token}`)).toEqual({ token: "", problem: "该重置链接已使用过，请重新申请" });
    expect(await userLogin(user.email, "another-password-2")).toBe(400);
    expect(await userLogin(user.email, NEW_PASSWORD)).toBe(302);
  });

  it("expires after 30 minutes", async () => {
    const user = await createUser();
    const token = tokenOf(await requestLink(user.email));
    const [row] = await db
      .select({ minutes: sql<number>`round(extract(epoch from (${passwordResetTokens.expiresAt} - now())) / 60)`.mapWith(Number) })
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.userId, user.id));
    expect(row.minutes).toBe(30);
    await db.update(passwordResetTokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(passwordResetTokens.userId, user.id));
    const expired = "重置链接已过期（有效期30分钟），请重新申请";
    expect((await resetPage(`?token=${token}`)).problem).toBe(expired);
    const answer = await reset({ token, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    expect(answer.status).toBe(400);
    expect(errorsOf(answer.data)).toEqual([expired]);
    expect(await userLogin(user.email, user.password)).toBe(302);
  });

  it("is replaced by a newer request: the older link no longer works, and says so", async () => {
    const user = await createUser();
    const first = tokenOf(await requestLink(user.email));
    const second = tokenOf(await requestLink(user.email));
    const replaced = "该重置链接已被新的链接取代，请使用最新一封邮件中的链接";
    expect((await resetPage(`?token=${first}`)).problem).toBe(replaced);
    expect(errorsOf((await reset({ token: first, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })).data)).toEqual([replaced]);
    expect((await reset({ token: second, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })).status).toBe(302);
    // After the reset: the used link says it was used, the replaced one that it was replaced.
    expect((await resetPage(`?token=${second}`)).problem).toBe("该重置链接已使用过，请重新申请");
    expect((await resetPage(`?token=${first}`)).problem).toBe(replaced);
  });

  it("keeps each link's own reason after newer requests: used, expired and replaced are told apart", async () => {
    const user = await createUser();
    const used = tokenOf(await requestLink(user.email));
    expect((await reset({ token: used, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })).status).toBe(302);
    const expired = tokenOf(await requestLink(user.email));
    await db.update(passwordResetTokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(passwordResetTokens.tokenHash, createHash("sha256").update(expired).digest("hex")));
    expect((await resetPage(`?token=${expired}`)).problem).toBe("重置链接已过期（有效期30分钟），请重新申请");
    const replaced = tokenOf(await requestLink(user.email));
    const latest = tokenOf(await requestLink(user.email));
    const problems = await Promise.all([used, expired, replaced].map(async (token) => (await resetPage(`?token=${token}`)).problem));
    expect(problems).toEqual(["该重置链接已使用过，请重新申请", "该重置链接已被新的链接取代，请使用最新一封邮件中的链接", "该重置链接已被新的链接取代，请使用最新一封邮件中的链接"]);
    expect(await resetPage(`?token=${latest}`)).toEqual({ token: latest, problem: null });
    // A link nobody ever made is simply invalid.
    expect((await resetPage(`?token=${randomBytes(32).toString("base64url")}`)).problem).toBe("重置链接无效，请重新申请");
  });

  it("refuses a missing, unknown or malformed token and bad passwords with a message, keeping the link", async () => {
    const user = await createUser();
    const token = tokenOf(await requestLink(user.email));
    expect(await resetPage("")).toEqual({ token: "", problem: "重置链接不完整，请从邮件中重新打开链接，或重新申请" });
    for (const query of [`?token=${randomBytes(32).toString("base64url")}`, "?token=abc", `?token=${encodeURIComponent(`${token}\u0000`)}`, `?token=${"A".repeat(5000)}`]) {
      expect((await resetPage(query)).problem).toBe("重置链接无效，请重新申请");
    }

    const cases: [Record<string, string>, string[]][] = [
      [{ newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }, ["重置链接不完整，请从邮件中重新打开链接，或重新申请"]],
      [{ token: randomBytes(32).toString("base64url"), newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }, ["重置链接无效，请重新申请"]],
      [{ token, newPassword: "", confirmPassword: "" }, ["请输入新密码", "请再次输入新密码"]],
      [{ token, newPassword: "short", confirmPassword: "short" }, ["密码至少需要 8 个字符"]],
      // 86 Chinese characters are 258 bytes, over the 256 of registration.
      [{ token, newPassword: "密".repeat(86), confirmPassword: "密".repeat(86) }, ["密码过长"]],
      [{ token, newPassword: NEW_PASSWORD, confirmPassword: `${NEW_PASSWORD}x` }, ["两次输入的新密码不一致"]],
    ];
    for (const [fields, messages] of cases) {
      const answer = await reset(fields);
      expect(answer.status).toBe(400);
      expect(errorsOf(answer.data)).toEqual(messages);
    }
    // Control characters are refused by the form reader, in the token or the password.
    for (const fields of [
      { token: `${token}\u0000`, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
      { token, newPassword: "nul\u0000-in-password", confirmPassword: "nul\u0000-in-password" },
    ]) {
      expect(await reset(fields)).toMatchObject({ status: 400, data: FORM_MESSAGES.controlCharacter });
    }
    // None of that used the link; a tab in a password is just a character.
    const odd = "tab\t-in-password";
    expect((await reset({ token, newPassword: odd, confirmPassword: odd })).status).toBe(302);
    expect(await userLogin(user.email, odd)).toBe(302);
  });

  it(`lets only one of two simultaneous submissions of a link through (${databaseKind})`, async () => {
    const user = await createUser();
    const token = tokenOf(await requestLink(user.email));
    const passwords = ["first-new-password", "second-new-password"];
    const answers = await Promise.all(passwords.map((p) => reset({ token, newPassword: p, confirmPassword: p })));
    expect(answers.map((a) => a.status).sort()).toEqual([302, 400]);
    const loser = answers.find((a) => a.status === 400)!;
    expect(errorsOf(loser.data)).toEqual(["该重置链接已使用过，请重新申请"]);
    const winner = passwords[answers.findIndex((a) => a.status === 302)];
    const statuses = await Promise.all(passwords.map((p, i) => userLogin(user.email, p, `10.9.0.${i}`)));
    expect(statuses).toEqual(passwords.map((p) => (p === winner ? 302 : 400)));
  });
});
