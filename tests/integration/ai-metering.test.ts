import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { profiles, siteConfigs } from "~/db/schema";
import { action } from "~/routes/api/generate";
import { loader as creditsLoader } from "~/routes/shell/credits/credits";
import { loader as receiptLoader } from "~/routes/shell/credits/receipt";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { aiTimings } from "~/server/ai/timings.server";
import { tokensForChars } from "~/utils/ai-tokens";
import { DAILY_TOKEN_CAP_KEY, TOKEN_MESSAGES } from "~/server/economy/ledger.server";
import { userRequest } from "../fixtures/accounts";
import { configureFakeProvider } from "../fakes/ai-provider-config";
import { startFakeAiProvider, storyText, type FakeAiProvider } from "../fakes/ai-provider";
import { aiRows, aiRowsSum, generateRequest, readEvents, readyProject, setTokens, textOf, tokensOf, writer, type SseEvent } from "./ai-helpers";
import { callThroughRoutes } from "./route-chain";

/**
 * Exact metering (docs/product.md D15, decision 125): the daily cap, the receipts in the
 * token history, and two tabs generating at once. The charge itself (usage or estimate)
 * is covered by ai-generation.test.ts.
 */

let fake: FakeAiProvider;
const saved = { ...aiTimings };

beforeAll(async () => {
  fake = await startFakeAiProvider();
  await configureFakeProvider(fake.openaiEndpoint, { db });
  Object.assign(aiTimings, { retryBaseMs: 10, retryJitterMs: 5, idleMs: 2_000, firstByteMs: 3_000 });
});
afterEach(async () => {
  fake.reset();
  await db.delete(siteConfigs).where(eq(siteConfigs.key, DAILY_TOKEN_CAP_KEY));
});
afterAll(async () => {
  Object.assign(aiTimings, saved);
  await fake.close();
});

async function post(cookie: string, fields: Record<string, string>) {
  return (await callThroughRoutes(action, { request: generateRequest(cookie, fields) })) as Response;
}

const start = (events: SseEvent[]) => events.find((e) => e.event === "start")?.data as { promptTokens: number };
const done = (events: SseEvent[]) =>
  events.find((e) => e.event === "done")?.data as { reason: string; charged: number; metering: string; notice?: string; balance: number };

async function setCap(cap: string) {
  await db
    .insert(siteConfigs)
    .values({ key: DAILY_TOKEN_CAP_KEY, value: cap })
    .onConflictDoUpdate({ target: siteConfigs.key, set: { value: cap } });
}

/** Today's count of the daily cap, as the ledger keeps it beside the balance. */
async function dayTokens(userId: string): Promise<number> {
  const [row] = await db
    .select({ tokens: sql<string>`case when ${profiles.aiDay} = (now() at time zone 'Asia/Shanghai')::date then ${profiles.aiDayTokens} else 0 end` })
    .from(profiles)
    .where(eq(profiles.id, userId));
  return Number(row.tokens);
}

async function setDayTokens(userId: string, tokens: number, daysAgo = 0) {
  await db
    .update(profiles)
    .set({ aiDay: sql`(now() at time zone 'Asia/Shanghai')::date - ${daysAgo}::int`, aiDayTokens: tokens })
    .where(eq(profiles.id, userId));
}

/** The prompt's estimated cost for this project (learned from one cheap generation). */
async function promptCostOf(cookie: string, fields: Record<string, string>) {
  fake.enqueue({ chunks: ["一"], usage: false });
  return start(await readEvents(await post(cookie, fields))).promptTokens;
}

describe("the daily cap (admin setting)", () => {
  it("refuses with a clear message, before calling the provider, once today's room is smaller than the prompt", async () => {
    const user = await writer(50_000);
    const fields = await readyProject(user.id);
    const promptTokens = await promptCostOf(user.cookie, fields);
    await setCap("5000");
    await setDayTokens(user.id, 5000 - promptTokens);
    const requests = fake.requests.length;
    const balance = await tokensOf(user.id);

    const response = await post(user.cookie, fields);
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({ error: "今日AI生成已达每日上限（5,000 Tokens），请明天再试" });
    expect(TOKEN_MESSAGES.dailyCap(5000)).toBe("今日AI生成已达每日上限（5,000 Tokens），请明天再试");
    expect(fake.requests.length).toBe(requests);
    expect(await tokensOf(user.id)).toBe(balance);
  });

  it("stops a generation at the cap, keeps the text so far, and says why", async () => {
    const user = await writer(50_000);
    const fields = await readyProject(user.id);
    const promptTokens = await promptCostOf(user.cookie, fields);
    await setCap(String(promptTokens + 10));
    await setDayTokens(user.id, 0);
    const before = await tokensOf(user.id);

    const text = storyText(400);
    fake.enqueue({ text, chunkCount: 40, delayMs: 1, usage: false });
    const events = await readEvents(await post(user.cookie, fields));
    expect(textOf(events)).toBe(Array.from(text).slice(0, 40).join(""));
    expect(done(events)).toMatchObject({ reason: "daily-cap", charged: promptTokens + 10, notice: AI_MESSAGES.dailyCapReached });
    expect(await tokensOf(user.id)).toBe(before - promptTokens - 10);
    expect(await dayTokens(user.id)).toBe(promptTokens + 10);
  });

  it("starts afresh on a new day, and a refund gives today's room back", async () => {
    const user = await writer(50_000);
    const fields = await readyProject(user.id);
    await setCap("1000000");
    await setDayTokens(user.id, 1_000_000, 1); // yesterday's count does not count today
    fake.enqueue({ text: storyText(100), usage: { inputTokens: 30, outputTokens: 70 } });
    expect(done(await readEvents(await post(user.cookie, fields)))).toMatchObject({ reason: "complete", charged: 100 });
    expect(await dayTokens(user.id)).toBe(100);

    for (let i = 0; i < 3; i++) fake.enqueue({ status: 500 });
    expect((await post(user.cookie, fields)).status).toBe(502);
    expect(await dayTokens(user.id)).toBe(100);
  });

  it("counts the reported usage, as far as the cap allows", async () => {
    const user = await writer(50_000);
    const fields = await readyProject(user.id);
    const promptTokens = await promptCostOf(user.cookie, fields);
    await setCap(String(promptTokens + 300));
    await setDayTokens(user.id, 0);
    const before = await tokensOf(user.id);
    fake.enqueue({ text: storyText(40), usage: { inputTokens: promptTokens, outputTokens: 900 } });
    // The stream ran within the cap by the estimate; the provider's count went past it.
    // The page says so in one line (decision 153), not only the receipt.
    expect(done(await readEvents(await post(user.cookie, fields)))).toMatchObject({
      metering: "actual",
      charged: promptTokens + 300,
      uncovered: 600,
      notice: AI_MESSAGES.usageNotCovered(promptTokens + 900, promptTokens + 300, 600, true),
    });
    expect(AI_MESSAGES.usageNotCovered(promptTokens + 900, promptTokens + 300, 600, true)).toContain("超出今日剩余额度");
    expect(await dayTokens(user.id)).toBe(promptTokens + 300);
    expect(await tokensOf(user.id)).toBe(before - promptTokens - 300);
  });

  it("says so too when the balance, not the cap, could not cover the reported usage; a covered one says nothing", async () => {
    const user = await writer(50_000);
    const fields = await readyProject(user.id);
    const promptTokens = await promptCostOf(user.cookie, fields);
    fake.enqueue({ text: storyText(40), usage: { inputTokens: promptTokens, outputTokens: 20 } });
    const covered = done(await readEvents(await post(user.cookie, fields)));
    expect(covered).toMatchObject({ metering: "actual", charged: promptTokens + 20, uncovered: 0 });
    expect(covered.notice).toBeUndefined();

    await setTokens(user.id, promptTokens + 50);
    fake.enqueue({ text: storyText(40), usage: { inputTokens: promptTokens, outputTokens: 500 } });
    const short = done(await readEvents(await post(user.cookie, fields)));
    expect(short).toMatchObject({ charged: promptTokens + 50, uncovered: 450 });
    expect(short.notice).toBe(AI_MESSAGES.usageNotCovered(promptTokens + 500, promptTokens + 50, 450, false));
    expect(short.notice).toContain("超出Tokens余额");
    expect(await tokensOf(user.id)).toBe(0);
  });
});

describe("receipts in the token history", () => {
  it("tags each generation 实际 or 估算 and opens its receipt; another user's receipt is not found", async () => {
    const user = await writer(50_000);
    const fields = await readyProject(user.id);
    fake.enqueue({ text: storyText(200), usage: { inputTokens: 123, outputTokens: 456 } }, { text: storyText(200), usage: false });
    await readEvents(await post(user.cookie, fields));
    await readEvents(await post(user.cookie, fields));
    const [actual, estimate] = await aiRows(user.id);

    const history = (await callThroughRoutes(creditsLoader, { request: userRequest(user.cookie, "/credits?tab=tokens") })) as unknown as {
      data: { tokenRows: { id: number; metering: string | null }[] };
    };
    const rows = new Map(history.data.tokenRows.map((r) => [r.id, r.metering]));
    expect([rows.get(actual.id), rows.get(estimate.id)]).toEqual(["actual", "estimate"]);

    const receipt = async (cookie: string, id: number | string) =>
      (await callThroughRoutes(receiptLoader, { request: userRequest(cookie, `/credits/receipts/${id}`) })) as Awaited<ReturnType<typeof receiptLoader>>;
    expect(await receipt(user.cookie, actual.id)).toMatchObject({
      model: "inkstone-fake",
      metering: "actual",
      inputTokens: 123,
      outputTokens: 456,
      charged: 579,
      outputChars: 200,
      ended: "生成完成",
      uncovered: 0,
    });
    const promptTokens = tokensForChars(Number(estimate.promptChars));
    expect(await receipt(user.cookie, actual.id)).toMatchObject({ refunded: false });
    expect(await receipt(user.cookie, estimate.id)).toMatchObject({ metering: "estimate", inputTokens: promptTokens, outputTokens: 50, charged: promptTokens + 50 });

    const other = await writer();
    const notFound = (r: unknown) => r instanceof Response || (typeof r === "object" && r !== null && (r as { init?: { status?: number } }).init?.status === 404);
    for (const [cookie, id] of [
      [other.cookie, actual.id],
      [user.cookie, "abc"],
      [user.cookie, 99_999_999_999],
      [user.cookie, (await tokenGrantId(user.id))!],
    ] as const) {
      await expect(receipt(cookie, id)).rejects.toSatisfy(notFound);
    }
  });
});

describe("the receipt of a refunded generation", () => {
  it("does not read as a deduction: 实际扣除 0, the reservation said to be refunded in full", async () => {
    const user = await writer(50_000);
    const fields = await readyProject(user.id);
    for (let i = 0; i < 3; i++) fake.enqueue({ status: 500 });
    expect((await post(user.cookie, fields)).status).toBe(502);
    const row = (await aiRows(user.id)).find((r) => r.type === "generation")!;
    const reserved = -Number(row.amount);
    expect(reserved).toBeGreaterThan(0);
    const shown = (await callThroughRoutes(receiptLoader, { request: userRequest(user.cookie, `/credits/receipts/${row.id}`) })) as Awaited<
      ReturnType<typeof receiptLoader>
    >;
    expect(shown).toMatchObject({ refunded: true, reserved, charged: 0, metering: null });
  });
});

async function tokenGrantId(userId: string) {
  const rows = await db.execute(sql`select id from token_transactions where user_id = ${userId} and type = 'grant' limit 1`);
  const list = (Array.isArray(rows) ? rows : (rows as { rows: { id: number }[] }).rows) as { id: number | string }[];
  return list[0] ? Number(list[0].id) : 1;
}

describe("two tabs generating at once (a race only PostgreSQL can show)", () => {
  it("each generation is charged once, the balance never drops below zero, and the day's count matches the ledger", async () => {
    const user = await writer();
    const fields = await readyProject(user.id);
    const promptTokens = await promptCostOf(user.cookie, fields);
    const initial = 2 * promptTokens + 400;
    await setTokens(user.id, initial);
    await setDayTokens(user.id, 0);
    const before = await aiRowsSum(user.id);

    // Both reserve before either streams; each reports more than the estimate it held.
    const scenario = { text: storyText(300), chunkCount: 30, delayMs: 1, headersDelayMs: 800, usage: { inputTokens: promptTokens, outputTokens: 250 } };
    fake.enqueue(scenario, scenario);
    const responses = await Promise.all([post(user.cookie, fields), post(user.cookie, fields)]);
    const summaries = [];
    for (const response of responses) {
      expect(response.status).toBe(200);
      summaries.push(done(await readEvents(response)));
    }
    const spent = summaries.reduce((s, x) => s + x.charged, 0);
    const balance = await tokensOf(user.id);
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(balance).toBe(initial - spent);
    expect((await aiRowsSum(user.id)) - before).toBe(-spent);
    // Two generation rows settled, one each (the cheap first one aside): never one settled twice.
    const rows = (await aiRows(user.id)).slice(-2);
    expect(rows.map((r) => [r.type, r.metering])).toEqual([
      ["generation", "actual"],
      ["generation", "actual"],
    ]);
    expect(rows.map((r) => -Number(r.amount)).sort()).toEqual(summaries.map((s) => s.charged).sort());
    // 2 × (prompt + 250) wanted, 2 × prompt + 400 there: neither is charged beyond its
    // reported usage, and what one tab held and did not need went back (it may not reach
    // the other tab in time: then it stays in the balance, uncharged).
    for (const s of summaries) expect(s.charged).toBeLessThanOrEqual(promptTokens + 250);
    expect(spent).toBeGreaterThan(2 * promptTokens + 150);
    expect(await dayTokens(user.id)).toBe(spent);
    if (databaseKind === "postgres") expect(summaries.every((s) => s.reason === "complete")).toBe(true);
  });

  it("the daily cap holds across both tabs", async () => {
    const user = await writer(100_000);
    const fields = await readyProject(user.id);
    const promptTokens = await promptCostOf(user.cookie, fields);
    const cap = 2 * promptTokens + 300;
    await setCap(String(cap));
    await setDayTokens(user.id, 0);
    const scenario = { text: storyText(2_000), chunkCount: 100, delayMs: 1, headersDelayMs: 800, usage: false as const };
    fake.enqueue(scenario, scenario);
    const responses = await Promise.all([post(user.cookie, fields), post(user.cookie, fields)]);
    let spent = 0;
    for (const response of responses) {
      if (response.status !== 200) {
        expect(response.status).toBe(429);
        continue;
      }
      spent += done(await readEvents(response)).charged;
    }
    expect(spent).toBe(cap);
    expect(await dayTokens(user.id)).toBe(cap);
    expect(await tokensOf(user.id)).toBe(100_000 - (await dayTokens(user.id)) - promptTokens - 1);
  });
});
