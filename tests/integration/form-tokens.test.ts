import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, creditTransactions, formSubmissions, paymentOrders, prompts, works } from "~/db/schema";
import { action as promptsAction, loader as promptsLoader } from "~/routes/admin/prompts";
import { action as userEditAction, loader as userEditLoader } from "~/routes/admin/user-edit";
import { action as creditsAction, loader as creditsLoader } from "~/routes/shell/credits/credits";
import { action as newChapterAction, loader as newChapterLoader } from "~/routes/shell/works/new-chapter";
import { action as submitAction, loader as submitLoader } from "~/routes/shell/works/submit";
import { deleteOldFormTokens, FORM_TOKEN_MESSAGES } from "~/server/platform/form-tokens.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { creditBalance, setConfig } from "../fixtures/ledger";
import { adminCookieFor, createAdmin } from "./admin-fixtures";
import { callThroughRoutes, redirectOf } from "./route-chain";

/**
 * A creating form sent twice with its one-time token (a double click, a retry after a
 * restart cut the answer) creates once, and both answers lead to what was created
 * (docs/decisions/077). Both submissions run at once: on PostgreSQL the second waits on
 * the token's unique key and then finds the first one's result.
 */
let cookie: string;
let userId: string;
beforeAll(async () => {
  const user = await createUser();
  userId = user.id;
  cookie = await sessionCookieFor(user.id);
});

function publishForm(fields: Record<string, string>) {
  const form = new FormData();
  const defaults = { status: "completed", type: "single_chapter", title: "一次", description: "简介", rating: "all_ages", visibility: "public", content: "正文" };
  for (const [k, v] of Object.entries({ ...defaults, ...fields })) form.set(k, v);
  return form;
}

const submit = (form: FormData, as = cookie) => callThroughRoutes(submitAction, { request: userRequest(as, "/submit", form) }) as Promise<unknown>;
const worksTitled = async (title: string) => db.select({ id: works.id }).from(works).where(eq(works.title, title));

async function publishToken(): Promise<string> {
  const data = (await callThroughRoutes(submitLoader, { request: userRequest(cookie, "/submit") })) as { formToken: string };
  expect(data.formToken).toMatch(/^[A-Za-z0-9_-]{24}$/);
  return data.formToken;
}

describe("the publish form", () => {
  it("publishes once when the same form is posted twice at once, and both answers redirect to it", async () => {
    const formToken = await publishToken();
    const results = await Promise.all([submit(publishForm({ title: "双击发布", formToken })), submit(publishForm({ title: "双击发布", formToken }))]);
    expect(results.map(redirectOf)).toEqual(["302 /my-works?tab=free", "302 /my-works?tab=free"]);
    expect(await worksTitled("双击发布")).toHaveLength(1);
  });

  it("answers a retry after the first one committed with the same redirect, even if the retry differs", async () => {
    const formToken = await publishToken();
    expect(redirectOf(await submit(publishForm({ title: "重试发布", visibility: "private", formToken })))).toBe("302 /my-works?tab=private");
    expect(redirectOf(await submit(publishForm({ title: "重试发布", visibility: "private", formToken })))).toBe("302 /my-works?tab=private");
    expect(await worksTitled("重试发布")).toHaveLength(1);
    // A new form (a new token) is a new work.
    expect(redirectOf(await submit(publishForm({ title: "重试发布", formToken: await publishToken() })))).toBe("302 /my-works?tab=free");
    expect(await worksTitled("重试发布")).toHaveLength(2);
  });

  it("refuses another user's token and a malformed one, creating nothing", async () => {
    const formToken = await publishToken();
    expect(redirectOf(await submit(publishForm({ title: "他人的表单", formToken })))).toBe("302 /my-works?tab=free");
    const other = await sessionCookieFor((await createUser()).id);
    const stolen = (await submit(publishForm({ title: "他人的表单", formToken }), other)) as { init: { status: number }; data: { result: { error: Record<string, string[]> } } };
    expect([stolen.init.status, stolen.data.result.error[""]]).toEqual([409, [FORM_TOKEN_MESSAGES.usedElsewhere]]);
    const malformed = (await submit(publishForm({ title: "坏表单", formToken: "短" }))) as { init: { status: number } };
    expect(malformed.init.status).toBe(400);
    expect(await worksTitled("他人的表单")).toHaveLength(1);
    expect(await worksTitled("坏表单")).toHaveLength(0);
  });
});

describe("the new chapter form", () => {
  it("adds the chapter once when the same form is posted twice at once", async () => {
    const [work] = await db
      .insert(works)
      .values({ userId, title: "连载", description: "", type: "series", status: "ongoing", visibility: "public", rating: "all_ages", chapterCount: 0, wordCount: 0 })
      .returning({ id: works.id });
    const path = `/works/${work.id}/new-chapter`;
    const params = { id: String(work.id) };
    const { formToken } = (await callThroughRoutes(newChapterLoader, { request: userRequest(cookie, path), params })) as { formToken: string };
    const post = () => callThroughRoutes(newChapterAction, { request: userRequest(cookie, path, { title: "第一章", content: "正文", formToken }), params });
    const results = await Promise.all([post(), post()]);
    expect(results.map(redirectOf)).toEqual(["302 /my-works?tab=free", "302 /my-works?tab=free"]);
    const rows = await db.select({ n: sql<number>`count(*)::int` }).from(chapters).where(eq(chapters.workId, work.id));
    expect(rows[0].n).toBe(1);
  });
});

describe("the top-up form", () => {
  it("creates one order when the same form is posted twice at once, and sends both to its payment page", async () => {
    await setConfig({ payment_method_v2: "payment_api", payment_gateway_url: "https://pay.example.com/submit.php", merchant_pid: "1001", merchant_key: "key" });
    const page = (await callThroughRoutes(creditsLoader, { request: userRequest(cookie, "/credits?dialog=topup") })) as { data: { formToken: string } };
    const formToken = page.data.formToken;
    expect(formToken).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const post = () => callThroughRoutes(creditsAction, { request: userRequest(cookie, "/credits?dialog=topup", { intent: "topup", amount: "30", formToken }) });
    const results = (await Promise.all([post(), post()])) as Response[];
    const [first, second] = results.map((r) => r.headers.get("Location"));
    expect(first).toMatch(/^https:\/\/pay\.example\.com\/submit\.php\?/);
    expect(second).toBe(first);
    const orders = await db.select().from(paymentOrders).where(eq(paymentOrders.userId, userId));
    expect(orders.map((o) => [o.amount, o.status])).toEqual([[30, "pending"]]);
    expect(new URL(first!).searchParams.get("out_trade_no")).toBe(orders[0].outTradeNo);
  });
});

describe("the back office's creating forms (decision 172)", () => {
  let admin: string;
  beforeAll(async () => {
    admin = await adminCookieFor((await createAdmin()).id);
  });

  async function balanceToken(path: string): Promise<string> {
    const page = (await callThroughRoutes(userEditLoader, { request: userRequest(admin, path) })) as { formTokens: { balance: string } };
    expect(page.formTokens.balance).toMatch(/^[A-Za-z0-9_-]{24}$/);
    return page.formTokens.balance;
  }

  it("调整积分 posted twice at once moves the credits once: one ledger row, and both answers redirect", async () => {
    const target = await createUser();
    const path = `/admin/users/${target.id}`;
    const formToken = await balanceToken(path);
    const post = () => callThroughRoutes(userEditAction, { request: userRequest(admin, path, { intent: "balance", change: "+100", reason: "双击补偿", formToken }) }).catch((r: unknown) => r);
    const results = await Promise.all([post(), post()]);
    expect(results.map(redirectOf)).toEqual([`302 ${path}?notice=balance-set`, `302 ${path}?notice=balance-set`]);
    expect(await creditBalance(target.id)).toBe(100);
    expect(await db.select().from(creditTransactions).where(eq(creditTransactions.userId, target.id))).toHaveLength(1);
  });

  it("新建提示词 posted twice at once makes one prompt; the second is not told 代码已存在", async () => {
    const page = (await callThroughRoutes(promptsLoader, { request: userRequest(admin, "/admin/prompts?page=1&dialog=new") })) as { formToken: string };
    const fields = { intent: "create", code: "P-TWICE", title: "双击提示词", systemContent: "系统", userContent: "用户", type: "free", formToken: page.formToken };
    const post = () => callThroughRoutes(promptsAction, { request: userRequest(admin, "/admin/prompts?page=1&dialog=new", fields) }).catch((r: unknown) => r);
    const results = await Promise.all([post(), post()]);
    expect(results.map(redirectOf)).toEqual(["302 /admin/prompts?notice=saved", "302 /admin/prompts?notice=saved"]);
    expect(await db.select().from(prompts).where(eq(prompts.code, "P-TWICE"))).toHaveLength(1);
  });

  it("an administrator's token is refused on a user's form and on another user's page, and the reverse", async () => {
    const target = await createUser();
    const path = `/admin/users/${target.id}`;
    const formToken = await balanceToken(path);
    const adjust = (to: string, token: string) =>
      callThroughRoutes(userEditAction, { request: userRequest(admin, to, { intent: "balance", change: "+5", reason: "补偿", formToken: token }) }).catch((r: unknown) => r);
    expect(redirectOf(await adjust(path, formToken))).toBe(`302 ${path}?notice=balance-set`);

    // The same token on a reader's publish form: 409, nothing published.
    const stolen = (await submit(publishForm({ title: "管理员的令牌", formToken }))) as { init: { status: number } };
    expect(stolen.init.status).toBe(409);
    expect(await worksTitled("管理员的令牌")).toHaveLength(0);

    // On another user's page: 409, that user's credits untouched.
    const other = await createUser();
    const elsewhere = (await adjust(`/admin/users/${other.id}`, formToken)) as { init: { status: number }; data: { result: { error: Record<string, string[]> } } };
    expect(elsewhere.init.status).toBe(409);
    expect(elsewhere.data.result.error[""]).toEqual([FORM_TOKEN_MESSAGES.usedElsewhere]);
    expect(await creditBalance(other.id)).toBe(0);

    // A reader's token on the back office's form: 409, nothing adjusted.
    const readerToken = await publishToken();
    await submit(publishForm({ title: "读者的表单", formToken: readerToken }));
    expect(((await adjust(`/admin/users/${other.id}`, readerToken)) as { init: { status: number } }).init.status).toBe(409);
    expect(await creditBalance(other.id)).toBe(0);
  });

  it("the clean-up forgets administrators' tokens older than a week, as it does users'", async () => {
    const target = await createUser();
    const path = `/admin/users/${target.id}`;
    const old = await balanceToken(path);
    const fresh = await balanceToken(path);
    for (const formToken of [old, fresh]) {
      await callThroughRoutes(userEditAction, { request: userRequest(admin, path, { intent: "balance", change: "+1", reason: "清理", formToken }) }).catch((r: unknown) => r);
    }
    await db.update(formSubmissions).set({ createdAt: sql`now() - interval '8 days'` }).where(eq(formSubmissions.token, old));
    await deleteOldFormTokens();
    const left = await db.select({ token: formSubmissions.token, adminId: formSubmissions.adminId }).from(formSubmissions).where(sql`${formSubmissions.token} in (${old}, ${fresh})`);
    expect(left.map((r) => r.token)).toEqual([fresh]);
    expect(left[0].adminId).not.toBeNull();
  });
});
