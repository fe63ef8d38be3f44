import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq, sql } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { apiConfigs, creditTransactions, credits, prompts, redeemCodes, siteConfigs, tokenTransactions, workPurchases } from "~/db/schema";
import { isForbiddenAddress } from "~/server/platform/outbound-http.server";
import { adjustCreditBalance } from "~/server/economy/ledger.server";
import { verifyPassword } from "~/server/platform/password.server";
import { getSessionUser } from "~/server/identity/session.server";
import { getStorage, keyFromUrl } from "~/server/platform/storage.server";
import { startFakeAiProvider, type FakeAiProvider } from "../fakes/ai-provider";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { adminCookieFor, callAction, callLoader, createAdmin, insertUsers, request, testActor } from "./admin-fixtures";
import { errorsOf } from "../fixtures/form-replies";

let admin: Awaited<ReturnType<typeof createAdmin>>;
let cookie: string;
let fake: FakeAiProvider;

beforeAll(async () => {
  admin = await createAdmin();
  cookie = await adminCookieFor(admin.id);
  fake = await startFakeAiProvider();
});

afterAll(async () => {
  await fake?.close();
});

const post = (path: string, fields: Record<string, string> | FormData) => request(path, { cookie }, fields);
const get = (path: string) => request(path, { cookie });

async function config(key: string): Promise<string | undefined> {
  const [row] = await db.select().from(siteConfigs).where(eq(siteConfigs.key, key));
  return row?.value;
}

describe("dashboard", () => {
  it("counts users, works by visibility, and today's new users, purchases and generation tokens", async () => {
    const page = await import("~/routes/admin/dashboard");
    const before = (await callLoader(page, get("/admin/dashboard"))).data.stats;
    const author = await createUser();
    const buyer = await createUser();
    const [, , paid] = await insertWorks([
      { userId: author.id, title: "免费", visibility: "public" },
      { userId: author.id, title: "未公开", visibility: "private" },
      { userId: author.id, title: "付费", visibility: "public-vip", price: 5 },
    ]);
    await db.insert(workPurchases).values({ userId: buyer.id, workId: paid, price: 5 });
    await db.insert(tokenTransactions).values([
      { userId: buyer.id, amount: -120, type: "generation", description: "生成" },
      { userId: buyer.id, amount: -30, type: "generation", description: "生成" },
      { userId: buyer.id, amount: 500, type: "exchange", description: "兑换" },
    ]);
    const after = (await callLoader(page, get("/admin/dashboard"))).data.stats;
    expect(after.users - before.users).toBe(2);
    expect(after.works.total - before.works.total).toBe(3);
    expect(after.works.public - before.works.public).toBe(1);
    expect(after.works.private - before.works.private).toBe(1);
    expect(after.works.publicVip - before.works.publicVip).toBe(1);
    expect(after.today.newUsers - before.today.newUsers).toBe(2);
    expect(after.today.purchases - before.today.purchases).toBe(1);
    expect(after.today.purchaseCredits - before.today.purchaseCredits).toBe(5);
    expect(after.today.generationTokens - before.today.generationTokens).toBe(150);
  });
});

describe("users", () => {
  it("lists 30 a page with credits and tokens, and searches by e-mail or nickname", async () => {
    const page = await import("~/routes/admin/users");
    const tag = `srch${Date.now().toString(36)}`;
    await insertUsers(32, tag);
    const first = await callLoader(page, get(`/admin/users?q=${tag}`));
    expect(first.data.total).toBe(32);
    expect(first.data.users).toHaveLength(30);
    expect(first.data.pageCount).toBe(2);
    expect(first.data.users[0]).toMatchObject({ credits: 0, tokens: expect.any(Number) });
    const second = await callLoader(page, get(`/admin/users?q=${tag}&page=2`));
    expect(second.data.users).toHaveLength(2);
    // Pages past the end show the last page.
    expect((await callLoader(page, get(`/admin/users?q=${tag}&page=99`))).data.page).toBe(2);

    const named = await createUser();
    const edit = await import("~/routes/admin/user-edit");
    await callAction(edit, post(`/admin/users/${named.id}`, { intent: "nickname", nickname: `墨${tag}` }), { id: named.id });
    const byNickname = await callLoader(page, get(`/admin/users?q=${encodeURIComponent(`墨${tag}`)}`));
    expect(byNickname.data.users.map((u: { id: string }) => u.id)).toEqual([named.id]);
    // LIKE wildcards are matched literally.
    expect((await callLoader(page, get("/admin/users?q=%25%25%25"))).data.total).toBe(0);
  });

  it("edits the nickname (required, at most 30 characters)", async () => {
    const u = await createUser();
    const edit = await import("~/routes/admin/user-edit");
    let r = await callAction(edit, post(`/admin/users/${u.id}`, { intent: "nickname", nickname: "   " }), { id: u.id });
    expect(r.status).toBe(400);
    expect(errorsOf(r.data.result)).toContain("请输入昵称");
    r = await callAction(edit, post(`/admin/users/${u.id}`, { intent: "nickname", nickname: "字".repeat(31) }), { id: u.id });
    expect(errorsOf(r.data.result)).toContain("昵称不能超过30个字符");
    r = await callAction(edit, post(`/admin/users/${u.id}`, { intent: "nickname", nickname: " 新昵称 " }), { id: u.id });
    expect(r.location).toBe(`/admin/users/${u.id}?notice=nickname-set`);
    const shown = await callLoader(edit, get(`/admin/users/${u.id}`), { id: u.id });
    expect(shown.data.user.nickname).toBe("新昵称");
  });

  it("answers 404 for an unknown user", async () => {
    const edit = await import("~/routes/admin/user-edit");
    const id = "00000000-0000-4000-8000-000000000000";
    expect((await callLoader(edit, get(`/admin/users/${id}`), { id })).status).toBe(404);
    expect((await callLoader(edit, get("/admin/users/nope"), { id: "nope" })).status).toBe(404);
    const r = await callAction(edit, post(`/admin/users/${id}`, { intent: "balance", change: "5", reason: "测试" }), { id });
    expect(r.status).toBe(404);
  });

  it("adds or takes credits with a required reason in the 管理员调整 row; never below zero; the ledger sums to the balance", async () => {
    const u = await createUser();
    const edit = await import("~/routes/admin/user-edit");
    const adjust = (change: string, reason = "活动奖励") =>
      callAction(edit, post(`/admin/users/${u.id}`, { intent: "balance", change, reason }), { id: u.id });

    expect((await adjust("+150")).location).toBe(`/admin/users/${u.id}?notice=balance-set`);
    await adjust("-110", "误充扣回");
    for (const bad of ["0", "+0", "1.5", "abc", "", "1e3", "--1", "99999999999"]) {
      const r = await adjust(bad);
      expect(r.status, bad).toBe(400);
      expect(errorsOf(r.data.result)).toContain("请输入有效的调整数量（非零整数，如 +100 或 -50）");
    }
    const noReason = await adjust("+5", "   ");
    expect(noReason.status).toBe(400);
    expect(errorsOf(noReason.data.result)).toContain("请填写调整原因");
    // Taking more than the balance changes nothing.
    const short = await adjust("-41");
    expect(short.status).toBe(402);
    expect(errorsOf(short.data.result)).toContain("积分余额不足");
    const rows = await db.select().from(creditTransactions).where(eq(creditTransactions.userId, u.id)).orderBy(creditTransactions.id);
    expect(rows.map((r) => [r.type, r.amount, r.description])).toEqual([
      ["recharge", 150, "管理员调整：活动奖励"],
      ["consume", 110, "管理员调整：误充扣回"],
    ]);
    const [{ balance }] = await db.select({ balance: credits.balance }).from(credits).where(eq(credits.userId, u.id));
    expect(balance).toBe(40);
    const sum = rows.reduce((s, r) => s + (r.type === "recharge" ? r.amount : -r.amount), 0);
    expect(sum).toBe(balance);
  });

  it("keeps balance == ledger under concurrent adjustments", async () => {
    const u = await createUser();
    const changes = [10, 70, -25, 5, -90, 33];
    await Promise.allSettled(changes.map((n) => adjustCreditBalance(admin.id, u.id, n, "并发测试")));
    const [{ balance }] = await db.select({ balance: credits.balance }).from(credits).where(eq(credits.userId, u.id));
    const [{ sum }] = await db
      .select({ sum: sql<number>`coalesce(sum(case when type = 'recharge' then amount else -amount end), 0)`.mapWith(Number) })
      .from(creditTransactions)
      .where(and(eq(creditTransactions.userId, u.id)));
    expect(sum).toBe(balance);
    expect(balance).toBeGreaterThanOrEqual(0);
  });

  it("resets a password: the new one works and every session of that user ends", async () => {
    const u = await createUser();
    const userCookie = await sessionCookieFor(u.id);
    expect(await getSessionUser(new Request("http://localhost/", { headers: { Cookie: userCookie } }))).not.toBeNull();
    const edit = await import("~/routes/admin/user-edit");
    let r = await callAction(edit, post(`/admin/users/${u.id}`, { intent: "password", password: "short" }), { id: u.id });
    expect(errorsOf(r.data.result)).toContain("密码至少需要 8 个字符");
    r = await callAction(edit, post(`/admin/users/${u.id}`, { intent: "password", password: "brand-new-password" }), { id: u.id });
    expect(r.location).toBe(`/admin/users/${u.id}?notice=password-reset`);
    expect(await getSessionUser(new Request("http://localhost/", { headers: { Cookie: userCookie } }))).toBeNull();
    const { users } = await import("~/db/schema");
    const [row] = await db.select().from(users).where(eq(users.id, u.id));
    expect(await verifyPassword("brand-new-password", row.passwordHash)).toBe(true);
  });
});

describe("works", () => {
  it("lists every work 30 a page, newest first, and searches title or author", async () => {
    const author = await createUser();
    const tag = `wk${Date.now().toString(36)}`;
    const base = Date.now() - 100_000;
    await insertWorks(
      Array.from({ length: 31 }, (_, i) => ({
        userId: author.id,
        title: `${tag} 第${i}部`,
        visibility: (["public", "private", "public-vip"] as const)[i % 3],
        createdAt: new Date(base + i * 1000),
      })),
    );
    const page = await import("~/routes/admin/works");
    const r = await callLoader(page, get(`/admin/works?q=${tag}`));
    expect(r.data.total).toBe(31);
    expect(r.data.works).toHaveLength(30);
    expect(r.data.works[0].title).toBe(`${tag} 第30部`);
    expect(r.data.works.some((w: { visibility: string }) => w.visibility === "private")).toBe(true);
  });
});

describe("prompts", () => {
  const page = () => import("~/routes/admin/prompts");
  const valid = { intent: "create", title: "新提示词", systemContent: "系统", userContent: "用户 {|synopsis|}", type: "free" };

  it("shows docs/product.md's messages and saves nothing", async () => {
    const before = await db.select({ n: sql<number>`count(*)::int` }).from(prompts);
    const cases: [Record<string, string>, string][] = [
      [{ ...valid, code: "  " }, "请输入提示词代码"],
      [{ ...valid, code: "X1", title: "" }, "请输入提示词标题"],
      [{ ...valid, code: "X1", systemContent: " " }, "请输入系统提示词"],
      [{ ...valid, code: "X1", userContent: "" }, "请输入用户提示词"],
      [{ ...valid, code: "P01" }, "提示词代码已存在"],
    ];
    for (const [fields, message] of cases) {
      const r = await callAction(await page(), post("/admin/prompts?dialog=new", fields));
      expect(r.status, message).toBeGreaterThanOrEqual(400);
      expect(errorsOf(r.data.result)).toContain(message);
    }
    const after = await db.select({ n: sql<number>`count(*)::int` }).from(prompts);
    expect(after[0].n).toBe(before[0].n);
  });

  it("creates (type free by default), edits and deletes; lists 20 a page newest first", async () => {
    const code = `T${Date.now().toString(36)}`;
    const { type: _type, ...noType } = valid;
    let r = await callAction(await page(), post("/admin/prompts?dialog=new", { ...noType, code: ` ${code} `, isSystem: "on" }));
    expect(r.location).toBe("/admin/prompts?notice=saved");
    const [row] = await db.select().from(prompts).where(eq(prompts.code, code));
    expect(row).toMatchObject({ type: "free", isSystem: true, title: "新提示词" });

    const list = await callLoader(await page(), get("/admin/prompts"));
    expect(list.data.prompts[0].code).toBe(code);
    expect(list.data.prompts.length).toBeLessThanOrEqual(20);

    const editing = await callLoader(await page(), get(`/admin/prompts?dialog=edit&id=${row.id}`));
    expect(editing.data.prompt.userContent).toBe("用户 {|synopsis|}");
    r = await callAction(await page(), post(`/admin/prompts?dialog=edit&id=${row.id}`, { ...valid, intent: "update", id: String(row.id), code, title: "改过的", type: "continue" }));
    expect(r.location).toBe("/admin/prompts?notice=saved");
    expect((await db.select().from(prompts).where(eq(prompts.id, row.id)))[0]).toMatchObject({ title: "改过的", type: "continue", isSystem: false });
    // Renaming to an existing code is refused too.
    r = await callAction(await page(), post(`/admin/prompts?dialog=edit&id=${row.id}`, { ...valid, intent: "update", id: String(row.id), code: "P02" }));
    expect(errorsOf(r.data.result)).toContain("提示词代码已存在");

    const confirm = await callLoader(await page(), get(`/admin/prompts?dialog=delete&id=${row.id}`));
    expect(confirm.data.dialog).toEqual({ mode: "delete", id: row.id });
    r = await callAction(await page(), post(`/admin/prompts?dialog=delete&id=${row.id}`, { intent: "delete", id: String(row.id) }));
    expect(r.location).toBe("/admin/prompts?notice=deleted");
    expect(await db.select().from(prompts).where(eq(prompts.id, row.id))).toHaveLength(0);
    expect((await callAction(await page(), post("/admin/prompts", { intent: "delete", id: String(row.id) }))).status).toBe(404);
  });

  it("pages 20 at a time", async () => {
    for (let i = 0; i < 25; i++) await db.insert(prompts).values({ code: `PG${Date.now()}${i}`, title: "t", systemContent: "s", userContent: "u" });
    const r = await callLoader(await page(), get("/admin/prompts?page=1"));
    expect(r.data.prompts).toHaveLength(20);
    expect(r.data.pageCount).toBeGreaterThanOrEqual(2);
  });
});

describe("API configs", () => {
  const page = () => import("~/routes/admin/settings/api");
  const base = { name: "测试服务", provider: "openai", model: "fake-model" };

  it("needs name, endpoint and key (请填写完整信息) and refuses endpoints that are not http(s)", async () => {
    for (const fields of [
      { ...base, intent: "create", name: "", endpoint: fake.openaiEndpoint, apiKey: "k" },
      { ...base, intent: "create", endpoint: "", apiKey: "k" },
      { ...base, intent: "create", endpoint: fake.openaiEndpoint, apiKey: "" },
    ]) {
      const r = await callAction(await page(), post("/admin/settings/api?dialog=new", fields));
      expect(r.status).toBe(400);
      expect(errorsOf(r.data.result)).toContain("请填写完整信息");
    }
    const r = await callAction(await page(), post("/admin/settings/api?dialog=new", { ...base, intent: "create", endpoint: "file:///etc/passwd", apiKey: "k" }));
    expect(r.status).toBe(400);
    expect(errorsOf(r.data.result)[0]).toMatch(/http或https/);
  });

  it("keeps a context size per config (default 32000) and refuses one out of range", async () => {
    const secret = `sk-context-${Date.now()}`;
    let r = await callAction(await page(), post("/admin/settings/api?dialog=new", { ...base, intent: "create", endpoint: fake.openaiEndpoint, apiKey: secret, contextTokens: "" }));
    expect(r.location).toBe("/admin/settings/api?notice=saved");
    const [row] = await db.select().from(apiConfigs).where(eq(apiConfigs.apiKey, secret));
    expect(row.contextTokens).toBe(32000);
    for (const contextTokens of ["999", "2000001", "1.5", "很多"]) {
      r = await callAction(await page(), post(`/admin/settings/api?dialog=edit&id=${row.id}`, { ...base, intent: "update", id: row.id, endpoint: fake.openaiEndpoint, apiKey: "", contextTokens }));
      expect(r.status).toBe(400);
      expect(errorsOf(r.data.result)).toContain("上下文大小必须是1000到2000000之间的整数");
    }
    r = await callAction(await page(), post(`/admin/settings/api?dialog=edit&id=${row.id}`, { ...base, intent: "update", id: row.id, endpoint: fake.openaiEndpoint, apiKey: "", contextTokens: "128000" }));
    expect(r.location).toBe("/admin/settings/api?notice=saved");
    expect((await db.select().from(apiConfigs).where(eq(apiConfigs.id, row.id)))[0].contextTokens).toBe(128000);
    const listed = await callLoader(await page(), get(`/admin/settings/api?dialog=edit&id=${row.id}`));
    expect(listed.data.configs.find((c: { id: string }) => c.id === row.id).contextTokens).toBe(128000);
    await db.delete(apiConfigs).where(eq(apiConfigs.id, row.id));
  });

  it("never sends the key to the browser; a blank key on edit keeps it; set default and delete", async () => {
    const secret = `sk-secret-${Date.now()}`;
    let r = await callAction(await page(), post("/admin/settings/api?dialog=new", { ...base, intent: "create", endpoint: fake.openaiEndpoint, apiKey: secret, model: "" }));
    expect(r.location).toBe("/admin/settings/api?notice=saved");
    const [row] = await db.select().from(apiConfigs).where(eq(apiConfigs.apiKey, secret));
    expect(row.provider).toBe("openai");
    expect(row.model).toBe("gpt-4-turbo-preview");

    const list = await callLoader(await page(), get(`/admin/settings/api?dialog=edit&id=${row.id}`));
    expect(JSON.stringify(list.data)).not.toContain(secret);
    expect(list.data.maskedKey).toBe("********************");

    r = await callAction(await page(), post(`/admin/settings/api?dialog=edit&id=${row.id}`, { ...base, intent: "update", id: row.id, name: "改名", endpoint: fake.openaiEndpoint, apiKey: "" }));
    expect(r.location).toBe("/admin/settings/api?notice=saved");
    expect((await db.select().from(apiConfigs).where(eq(apiConfigs.id, row.id)))[0]).toMatchObject({ name: "改名", apiKey: secret });

    r = await callAction(await page(), post("/admin/settings/api", { intent: "set-default", id: row.id }));
    expect(r.location).toBe("/admin/settings/api?notice=default-set");
    expect(await config("default_api_provider")).toBe(row.id);
    const listed = await callLoader(await page(), get("/admin/settings/api"));
    expect(listed.data.configs.find((c: { id: string }) => c.id === row.id).isDefault).toBe(true);

    r = await callAction(await page(), post("/admin/settings/api", { intent: "delete", id: row.id }));
    expect(r.location).toBe("/admin/settings/api?notice=deleted");
    expect(await db.select().from(apiConfigs).where(eq(apiConfigs.id, row.id))).toHaveLength(0);
    expect(await config("default_api_provider")).toBe("");
  });

  const test = async (fields: Record<string, string>) => {
    const r = await callAction(await page(), post("/admin/settings/api?dialog=new", { ...base, intent: "test", ...fields }));
    return r.data.test?.message ?? errorsOf(r.data.result)[0];
  };

  it("tests an OpenAI-compatible connection from the server (base URL or full URL)", async () => {
    fake.reset();
    expect(await test({ endpoint: fake.openaiEndpoint, apiKey: "good-key" })).toBe("API连接成功");
    expect(await test({ endpoint: `${fake.openaiEndpoint}/chat/completions`, apiKey: "good-key" })).toBe("API连接成功");
    const sent = fake.requests[0];
    expect(sent.headers.authorization).toBe("Bearer good-key");
    expect(sent.stream).toBe(false);
    expect(sent.model).toBe("fake-model");
    expect(await test({ endpoint: fake.openaiEndpoint, apiKey: "bad-key" })).toBe("API连接失败（HTTP 401）：API密钥无效或已过期");
    expect(await test({ endpoint: fake.openaiEndpoint, apiKey: "" })).toBe("请填写接口地址和API密钥");
  });

  it("tests a Gemini connection: candidates or promptFeedback required", async () => {
    fake.reset();
    expect(await test({ provider: "gemini", endpoint: fake.geminiEndpoint, apiKey: "good-key", model: "gemini-pro" })).toBe("API连接成功");
    expect(fake.requests[0].path).toBe("/v1beta/models/gemini-pro:generateContent");
    expect(fake.requests[0].headers["x-goog-api-key"]).toBe("good-key");
    fake.enqueue({ body: JSON.stringify({ nothing: true }), contentType: "application/json" });
    expect(await test({ provider: "gemini", endpoint: fake.geminiEndpoint, apiKey: "good-key", model: "gemini-pro" })).toBe("API响应格式无效");
    fake.enqueue({ body: JSON.stringify({ promptFeedback: { blockReason: "SAFETY" } }), contentType: "application/json" });
    expect(await test({ provider: "gemini", endpoint: fake.geminiEndpoint, apiKey: "good-key", model: "gemini-pro" })).toBe("API连接成功");
    expect(await test({ provider: "gemini", endpoint: fake.geminiEndpoint, apiKey: "bad-key", model: "gemini-pro" })).toBe("API连接失败（HTTP 400）：API密钥无效或已过期");
  });

  it("says which failure it was, in Chinese: 401, 500, a closed port", async () => {
    fake.reset();
    fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    expect(await test({ endpoint: fake.openaiEndpoint, apiKey: "good-key" })).toBe("API连接失败（HTTP 500）：API服务器错误");
    expect(await test({ endpoint: fake.openaiEndpoint, apiKey: "bad-key" })).toBe("API连接失败（HTTP 401）：API密钥无效或已过期");
    const closed = await startFakeAiProvider();
    await closed.close();
    const refused = await test({ endpoint: closed.openaiEndpoint, apiKey: "good-key" });
    expect(refused).toBe("API连接失败：无法连接（连接被拒绝），请检查接口地址和端口");
    expect(refused).not.toMatch(/[A-Za-z]{4,}/);
    const chat = await callAction(await import("~/routes/admin/tests/openai"), post("/admin/tests/openai", { endpoint: closed.openaiEndpoint, apiKey: "k", model: "m" }));
    expect(chat.data.test.message).toBe("云端API连接失败：无法连接（连接被拒绝），请检查接口地址和端口");
  });

  it("sends the path and headers generation sends, for a bare-host endpoint too (one request builder)", async () => {
    const { providerFor } = await import("~/server/ai/config.server");
    const origin = new URL(fake.openaiEndpoint).origin;
    const sent = () => {
      const r = fake.requests.at(-1)!;
      return { path: r.path, authorization: r.headers.authorization, key: r.headers["x-goog-api-key"], type: r.headers["content-type"] };
    };
    for (const [provider, model] of [["openai", "fake-model"], ["gemini", "gemini-pro"]] as const) {
      for (const endpoint of [origin, provider === "openai" ? fake.openaiEndpoint : fake.geminiEndpoint]) {
        fake.reset();
        expect(await test({ provider, endpoint, apiKey: "good-key", model })).toBe("API连接成功");
        const fromTest = sent();
        // Analysis makes the same non-streamed call generation streams.
        await providerFor({ provider, endpoint, apiKey: "good-key", model }).complete({ system: "系统", user: "用户" });
        expect(sent(), `${provider} ${endpoint}`).toEqual(fromTest);
        expect(fromTest.path).not.toContain("key=");
        expect(fromTest.path).toBe(provider === "openai" ? "/v1/chat/completions" : "/v1beta/models/gemini-pro:generateContent");
      }
    }
    fake.reset();
    const chat = await callAction(await import("~/routes/admin/tests/openai"), post("/admin/tests/openai", { endpoint: origin, apiKey: "good-key", model: "m" }));
    expect(chat.data.test.ok).toBe(true);
    expect(sent()).toMatchObject({ path: "/v1/chat/completions", authorization: "Bearer good-key" });
  });

  it("uses the stored key when testing a saved config with the key left blank", async () => {
    fake.reset();
    const [row] = await db.insert(apiConfigs).values({ name: "已保存", endpoint: fake.openaiEndpoint, apiKey: "stored-key", model: "m" }).returning();
    const r = await callAction(await page(), post(`/admin/settings/api?dialog=edit&id=${row.id}`, { ...base, intent: "test", id: row.id, endpoint: fake.openaiEndpoint, apiKey: "" }));
    expect(r.data.test.message).toBe("API连接成功");
    expect(fake.requests[0].headers.authorization).toBe("Bearer stored-key");
  });

  it("refuses link-local and metadata addresses, and other schemes", async () => {
    for (const endpoint of ["http://169.254.169.254/latest/", "http://[fe80::1]/v1", "http://0.0.0.0/v1", "ftp://example.com/v1", "javascript:alert(1)"]) {
      const message = await test({ endpoint, apiKey: "k" });
      expect(message, endpoint).toMatch(/不允许访问该地址|http或https/);
    }
    expect(isForbiddenAddress("169.254.169.254")).toBe(true);
    expect(isForbiddenAddress("::ffff:169.254.169.254")).toBe(true);
    expect(isForbiddenAddress("100.100.100.200")).toBe(true);
    expect(isForbiddenAddress("127.0.0.1")).toBe(false);
    expect(isForbiddenAddress("10.1.2.3")).toBe(false);
  });

  it("gives up after 15 seconds on an endpoint that never answers", async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as AddressInfo).port;
    const started = Date.now();
    try {
      const message = await test({ endpoint: `http://127.0.0.1:${port}/v1`, apiKey: "k" });
      expect(message).toMatch(/请求超时（15秒）/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(14_500);
      expect(Date.now() - started).toBeLessThan(25_000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  }, 40_000);
});

describe("third-party chat test", () => {
  const page = () => import("~/routes/admin/tests/openai");
  it("shows 测试成功，API响应正常 and the first 50 characters of the reply; qwen-plus by default", async () => {
    fake.reset();
    const reply = "你好！我是一个由测试服务扮演的助手，".repeat(5);
    fake.enqueue({ reply });
    const r = await callAction(await page(), post("/admin/tests/openai", { endpoint: fake.openaiEndpoint, apiKey: "good-key", model: "" }));
    expect(r.status).toBe(200);
    expect(r.data.test.message).toBe(`测试成功，API响应正常：${Array.from(reply).slice(0, 50).join("")}`);
    expect(fake.requests[0].model).toBe("qwen-plus");
    expect(fake.requests[0].system).not.toBe("");
    expect(fake.requests[0].user).not.toBe("");
  });

  it("reports failures: HTTP errors, a reply without content, missing fields", async () => {
    const r1 = await callAction(await page(), post("/admin/tests/openai", { endpoint: fake.openaiEndpoint, apiKey: "bad-key", model: "m" }));
    expect(r1.data.test.message).toBe("云端API连接失败（HTTP 401）：API密钥无效或已过期");
    fake.enqueue({ body: JSON.stringify({ choices: [] }), contentType: "application/json" });
    const r2 = await callAction(await page(), post("/admin/tests/openai", { endpoint: fake.openaiEndpoint, apiKey: "k", model: "m" }));
    expect(r2.data.test.message).toBe("API响应格式无效");
    const r3 = await callAction(await page(), post("/admin/tests/openai", { endpoint: "", apiKey: "", model: "" }));
    expect(r3.status).toBe(400);
    expect(errorsOf(r3.data.result)).toContain("请填写接口地址和API密钥");
  });
});

describe("payment settings", () => {
  it("sets the method and store link, with validation", async () => {
    const page = await import("~/routes/admin/payment");
    let r = await callAction(page, post("/admin/payment", { method: "bitcoin" }));
    expect(r.status).toBe(400);
    r = await callAction(page, post("/admin/payment", { method: "redeem_code", storeUrl: "not a url" }));
    expect(errorsOf(r.data)).toContain("请输入有效的商店链接（http或https开头）");
    r = await callAction(page, post("/admin/payment", { method: "redeem_code", storeUrl: "https://shop.example.com/codes" }));
    expect(r.location).toBe("/admin/payment?notice=saved");
    expect(await config("store_url_v2")).toBe("https://shop.example.com/codes");
    r = await callAction(page, post("/admin/payment", { method: "payment_api" }));
    expect(await config("payment_method_v2")).toBe("payment_api");
    expect(await config("store_url_v2")).toBe("https://shop.example.com/codes");
    // A link typed while 支付接口 is chosen is kept (used once 兑换码 is chosen again), or refused if invalid.
    r = await callAction(page, post("/admin/payment", { method: "payment_api", storeUrl: "https://shop.example.com/new" }));
    expect(r.location).toBe("/admin/payment?notice=saved");
    expect([await config("payment_method_v2"), await config("store_url_v2")]).toEqual(["payment_api", "https://shop.example.com/new"]);
    r = await callAction(page, post("/admin/payment", { method: "payment_api", storeUrl: "ftp://x" }));
    expect(r.status).toBe(400);
    expect(await config("store_url_v2")).toBe("https://shop.example.com/new");
    expect((await callLoader(page, get("/admin/payment"))).data.method).toBe("payment_api");
  });

  it("payment interface: each field required; the merchant key is never sent back, blank keeps it", async () => {
    const page = await import("~/routes/admin/settings/payment-api");
    await db.update(siteConfigs).set({ value: "" }).where(eq(siteConfigs.key, "merchant_key"));
    const cases: [Record<string, string>, string][] = [
      [{ gatewayUrl: "", merchantPid: "1", merchantKey: "k" }, "请输入支付网关地址"],
      [{ gatewayUrl: "https://pay.example.com/submit.php", merchantPid: "", merchantKey: "k" }, "请输入商户PID"],
      [{ gatewayUrl: "https://pay.example.com/submit.php", merchantPid: "1001", merchantKey: "" }, "请输入商户密钥"],
    ];
    for (const [fields, message] of cases) {
      const r = await callAction(page, post("/admin/settings/payment-api", fields));
      expect(r.status).toBe(400);
      expect(errorsOf(r.data)).toContain(message);
    }
    const key = "merchant-secret-ABCD1234";
    let r = await callAction(page, post("/admin/settings/payment-api", { gatewayUrl: "https://pay.example.com/submit.php", merchantPid: "1001", merchantKey: key }));
    expect(r.location).toBe("/admin/settings/payment-api?notice=saved");
    const shown = await callLoader(page, get("/admin/settings/payment-api"));
    expect(shown.data.settings).toEqual({ gatewayUrl: "https://pay.example.com/submit.php", merchantPid: "1001", merchantKeySet: true, merchantKeyLast4: "1234" });
    expect(JSON.stringify(shown.data)).not.toContain(key);
    r = await callAction(page, post("/admin/settings/payment-api", { gatewayUrl: "https://pay2.example.com/submit.php", merchantPid: "1002", merchantKey: "" }));
    expect(r.location).toBe("/admin/settings/payment-api?notice=saved");
    expect(await config("merchant_key")).toBe(key);
    expect(await config("merchant_pid")).toBe("1002");
    // A failed post does not echo the key back either.
    r = await callAction(page, post("/admin/settings/payment-api", { gatewayUrl: "", merchantPid: "1", merchantKey: "typed-secret" }));
    expect(JSON.stringify(r.data)).not.toContain("typed-secret");
  });
});

describe("tokens configuration", () => {
  it.each([
    [{ ratio: "0", initialTokens: "10" }, "请输入有效的积分兑换比例"],
    [{ ratio: "1.5", initialTokens: "10" }, "请输入有效的积分兑换比例"],
    [{ ratio: "abc", initialTokens: "10" }, "请输入有效的积分兑换比例"],
    [{ ratio: "", initialTokens: "10" }, "请输入有效的积分兑换比例"],
    [{ ratio: "10", initialTokens: "-1" }, "请输入有效的初始Tokens数量"],
    [{ ratio: "10", initialTokens: "2.5" }, "请输入有效的初始Tokens数量"],
    [{ ratio: "10", initialTokens: "10", dailyTokenCap: "-5" }, "每日上限请填写0或正整数（0或留空表示不限）"],
    [{ ratio: "10", initialTokens: "10", dailyTokenCap: "1万" }, "每日上限请填写0或正整数（0或留空表示不限）"],
  ])("refuses %j", async (fields, message) => {
    const page = await import("~/routes/admin/settings/tokens");
    const before = [await config("credits_to_tokens_ratio"), await config("initial_tokens"), await config("daily_token_cap")];
    const r = await callAction(page, post("/admin/settings/tokens", fields));
    expect(r.status).toBe(400);
    expect(errorsOf(r.data)).toContain(message);
    expect([await config("credits_to_tokens_ratio"), await config("initial_tokens"), await config("daily_token_cap")]).toEqual(before);
  });

  it("saves a daily cap, and an empty one as no cap (0)", async () => {
    const page = await import("~/routes/admin/settings/tokens");
    await callAction(page, post("/admin/settings/tokens", { ratio: "100", initialTokens: "10000", dailyTokenCap: " 50000 " }));
    expect(await config("daily_token_cap")).toBe("50000");
    expect((await callLoader(page, get("/admin/settings/tokens"))).data).toMatchObject({ dailyTokenCap: "50000" });
    await callAction(page, post("/admin/settings/tokens", { ratio: "100", initialTokens: "10000", dailyTokenCap: "" }));
    expect(await config("daily_token_cap")).toBe("0");
  });

  it("saves a ratio of 1 and initial tokens of 0", async () => {
    const page = await import("~/routes/admin/settings/tokens");
    const r = await callAction(page, post("/admin/settings/tokens", { ratio: "1", initialTokens: "0" }));
    expect(r.location).toBe("/admin/settings/tokens?notice=saved");
    expect(await config("credits_to_tokens_ratio")).toBe("1");
    expect(await config("initial_tokens")).toBe("0");
    await callAction(page, post("/admin/settings/tokens", { ratio: "100", initialTokens: "10000" }));
  });
});

describe("site images", () => {
  const upload = (path: string, bytes: Uint8Array, name = "a.png", type = "image/png") => {
    const form = new FormData();
    form.set("intent", "upload");
    form.set("image", new File([bytes as BlobPart], name, { type }));
    return post(path, form);
  };

  it("uploads (re-encoded to WebP), shows and removes the hero image", async () => {
    const page = await import("~/routes/admin/settings/image");
    const png = await sharp({ create: { width: 1600, height: 1000, channels: 3, background: "#a23b2c" } }).png().toBuffer();
    let r = await callAction(page, upload("/admin/settings/hero", png));
    expect(r.location).toBe("/admin/settings/hero?notice=uploaded");
    const url = (await config("hero_url"))!;
    expect(url).toMatch(/\.webp$/);
    const stored = await getStorage().get(keyFromUrl(url)!);
    const meta = await sharp(Buffer.from(stored!.body as Uint8Array)).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.width).toBeLessThanOrEqual(1200);
    expect((await callLoader(page, get("/admin/settings/hero"))).data.url).toBe(url);

    r = await callAction(page, post("/admin/settings/hero", { intent: "remove" }));
    expect(r.location).toBe("/admin/settings/hero?notice=removed");
    expect(await config("hero_url")).toBe("");
    expect(await getStorage().get(keyFromUrl(url)!)).toBeNull();
  });

  it("refuses a 3 MB hero image with 图片大小不能超过2MB, and a non-image, changing nothing", async () => {
    const page = await import("~/routes/admin/settings/image");
    const big = new Uint8Array(3 * 1024 * 1024);
    big.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    let r = await callAction(page, upload("/admin/settings/hero", big));
    expect(r.status).toBe(413);
    expect(r.data.error).toBe("图片大小不能超过2MB");
    r = await callAction(page, upload("/admin/settings/logo", new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"), "a.svg", "image/svg+xml"));
    expect(r.status).toBe(400);
    expect(r.data.error).toBe("请上传图片文件（JPG、PNG、WebP）");
    r = await callAction(page, post("/admin/settings/cover", new FormData()));
    expect(r.data.error).toBe("请选择图片文件");
    expect(await config("hero_url")).toBe("");
    expect(await config("logo_url")).toBe("");
  });

  it("uploads the default cover and the logo", async () => {
    const page = await import("~/routes/admin/settings/image");
    const jpeg = await sharp({ create: { width: 400, height: 550, channels: 3, background: "#224466" } }).jpeg().toBuffer();
    expect((await callAction(page, upload("/admin/settings/cover", jpeg, "c.jpg", "image/jpeg"))).location).toBe("/admin/settings/cover?notice=uploaded");
    expect(await config("default_cover_url")).toMatch(/^\/files\/site\/cover\/.+\.webp$/);
    const logo = await sharp({ create: { width: 400, height: 96, channels: 4, background: "#00000000" } }).png().toBuffer();
    expect((await callAction(page, upload("/admin/settings/logo", logo))).location).toBe("/admin/settings/logo?notice=uploaded");
    expect(await config("logo_url")).toMatch(/^\/files\/site\/logo\/.+\.webp$/);
  });
});

describe("site texts", () => {
  it("saves the site description", async () => {
    const page = await import("~/routes/admin/settings/description");
    const r = await callAction(page, post("/admin/settings/description", { description: "第一行\r\n第二行" }));
    expect(r.location).toBe("/admin/settings/description?notice=saved");
    expect(await config("site_description")).toBe("第一行\n第二行");
    const tooLong = await callAction(page, post("/admin/settings/description", { description: "字".repeat(2001) }));
    expect(tooLong.status).toBe(400);
  });

  it("previews terms as sanitized HTML without saving, then saves them; privacy likewise", async () => {
    const page = await import("~/routes/admin/settings/legal");
    const dirty = `<h2>条款</h2><script>alert(1)</script><p onclick="x()">正文<a href="javascript:alert(1)">链接</a></p>`;
    const before = await config("terms_content");
    const preview = await callAction(page, post("/admin/settings/terms", { intent: "preview", content: dirty }));
    expect(preview.data.preview).toContain("<h2>条款</h2>");
    expect(preview.data.preview).not.toMatch(/script|onclick|javascript:/);
    expect(await config("terms_content")).toBe(before);
    const saved = await callAction(page, post("/admin/settings/terms", { content: "<p>新的用户协议</p>" }));
    expect(saved.location).toBe("/admin/settings/terms?notice=saved");
    expect(await config("terms_content")).toBe("<p>新的用户协议</p>");
    await callAction(page, post("/admin/settings/privacy", { content: "<p>新的隐私政策</p>" }));
    expect(await config("privacy_content")).toBe("<p>新的隐私政策</p>");
    const loaded = await callLoader(page, get("/admin/settings/privacy"));
    expect(loaded.data).toMatchObject({ title: "隐私政策", content: "<p>新的隐私政策</p>" });
  });
});

describe("redeem codes", () => {
  const page = () => import("~/routes/admin/codes");

  it.each([
    [{ quantity: "0", amount: "10" }, "请输入1到100之间的数量"],
    [{ quantity: "101", amount: "10" }, "请输入1到100之间的数量"],
    [{ quantity: "abc", amount: "10" }, "请输入1到100之间的数量"],
    [{ quantity: "2.5", amount: "10" }, "请输入1到100之间的数量"],
    [{ quantity: "5", amount: "15" }, "请选择有效的面额"],
    [{ quantity: "5", amount: "" }, "请选择有效的面额"],
  ])("refuses %j and creates nothing", async (fields, message) => {
    const before = await db.select({ n: sql<number>`count(*)::int` }).from(redeemCodes);
    const r = await callAction(await page(), post("/admin/codes?dialog=generate", fields));
    expect(r.status).toBe(400);
    expect(errorsOf(r.data.result)).toContain(message);
    const after = await db.select({ n: sql<number>`count(*)::int` }).from(redeemCodes);
    expect(after[0].n).toBe(before[0].n);
  });

  it("generates unique 10-digit codes, then lists them filtered, 20 a page", async () => {
    const before = await db.select({ n: sql<number>`count(*)::int` }).from(redeemCodes);
    let r = await callAction(await page(), post("/admin/codes?status=unused&page=3&dialog=generate", { quantity: "100", amount: "50" }));
    expect(r.location).toBe("/admin/codes?status=unused&notice=codes-generated");
    r = await callAction(await page(), post("/admin/codes?dialog=generate", { quantity: "1", amount: "100" }));
    const rows = await db.select().from(redeemCodes);
    expect(rows.length - before[0].n).toBe(101);
    expect(new Set(rows.map((c) => c.code)).size).toBe(rows.length);
    for (const c of rows) expect(c.code).toMatch(/^[1-9]\d{9}$/);

    const user = await createUser();
    const [used] = rows;
    await db.update(redeemCodes).set({ status: "used", usedBy: user.id, usedAt: new Date() }).where(eq(redeemCodes.id, used.id));

    const all = await callLoader(await page(), get("/admin/codes"));
    expect(all.data.codes).toHaveLength(20);
    expect(all.data.status).toBe("all");
    const usedList = await callLoader(await page(), get("/admin/codes?status=used"));
    expect(usedList.data.codes.map((c: { code: string }) => c.code)).toContain(used.code);
    expect(usedList.data.codes.find((c: { code: string }) => c.code === used.code).userEmail).toBe(user.email);
    const unused = await callLoader(await page(), get("/admin/codes?status=unused&page=2"));
    expect(unused.data.page).toBe(2);
    expect(unused.data.codes.every((c: { status: string }) => c.status === "unused")).toBe(true);
    const bogus = await callLoader(await page(), get("/admin/codes?status=bogus"));
    expect(bogus.data.status).toBe("all");
  });

  it("draws again when a code already exists, so exactly the asked number is made", async () => {
    const { generateRedeemCodes } = await import("~/server/admin/redeem-codes.server");
    const [existing] = await generateRedeemCodes(testActor, 1, 10);
    const fresh = ["1000000001", "1000000002"];
    const sequence = [existing, existing, fresh[0], existing, fresh[1]];
    const made = await generateRedeemCodes(testActor, 2, 20, { draw: () => sequence.shift() ?? "1000000003" });
    expect(made.sort()).toEqual(fresh);
    const rows = await db.select().from(redeemCodes).where(eq(redeemCodes.code, existing));
    expect(rows).toHaveLength(1);
    expect(rows[0].amount).toBe(10);
  });
});
