import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, paymentOrders, works } from "~/db/schema";
import { action as creditsAction, loader as creditsLoader } from "~/routes/shell/credits/credits";
import { action as newChapterAction, loader as newChapterLoader } from "~/routes/shell/works/new-chapter";
import { action as submitAction, loader as submitLoader } from "~/routes/shell/works/submit";
import { FORM_TOKEN_MESSAGES } from "~/server/form-tokens.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { setConfig } from "../fixtures/ledger";
import { callThroughRoutes } from "./route-chain";

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
const locationOf = (r: unknown) => (r instanceof Response ? `${r.status} ${r.headers.get("Location")}` : `not a redirect: ${JSON.stringify(r)}`);
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
    expect(results.map(locationOf)).toEqual(["302 /my-works?tab=free", "302 /my-works?tab=free"]);
    expect(await worksTitled("双击发布")).toHaveLength(1);
  });

  it("answers a retry after the first one committed with the same redirect, even if the retry differs", async () => {
    const formToken = await publishToken();
    expect(locationOf(await submit(publishForm({ title: "重试发布", visibility: "private", formToken })))).toBe("302 /my-works?tab=private");
    expect(locationOf(await submit(publishForm({ title: "重试发布", visibility: "private", formToken })))).toBe("302 /my-works?tab=private");
    expect(await worksTitled("重试发布")).toHaveLength(1);
    // A new form (a new token) is a new work.
    expect(locationOf(await submit(publishForm({ title: "重试发布", formToken: await publishToken() })))).toBe("302 /my-works?tab=free");
    expect(await worksTitled("重试发布")).toHaveLength(2);
  });

  it("refuses another user's token and a malformed one, creating nothing", async () => {
    const formToken = await publishToken();
    expect(locationOf(await submit(publishForm({ title: "他人的表单", formToken })))).toBe("302 /my-works?tab=free");
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
    expect(results.map(locationOf)).toEqual(["302 /my-works?tab=free", "302 /my-works?tab=free"]);
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
