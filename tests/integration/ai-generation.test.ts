import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { apiConfigs, plotVersions, prompts, siteConfigs, tokenTransactions, writingPlots } from "~/db/schema";
import { action } from "~/routes/api/generate";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { aiTimings } from "~/server/ai/timings.server";
import { countChars, tokensForChars } from "~/utils/ai-tokens";
import { destroyAllUserSessions } from "~/server/identity/session.server";
import { createProject, saveCharacter, savePlot, saveTheme } from "~/server/ai/writing-projects.server";
import { fakeTokenCount, storyText, type FakeAiProvider } from "../fakes/ai-provider";
import {
  aiRows,
  aiRowsSum,
  generateRequest,
  readEvents,
  readyProject,
  setTokens,
  textOf,
  tokensOf,
  writer,
  type SseEvent,
} from "./ai-helpers";
import { callThroughRoutes } from "./route-chain";
import { waitFor } from "../fixtures/wait";
import { useFakeAiProvider } from "../fixtures/fake-ai";

let fake: FakeAiProvider;
let configId: string;
useFakeAiProvider((f, id) => ((fake = f), (configId = id)), { timings: { retryBaseMs: 10, retryJitterMs: 5, idleMs: 2_000, firstByteMs: 3_000 } });

async function post(cookie: string | null, fields: Record<string, string>, options: { origin?: string; signal?: AbortSignal } = {}) {
  return (await callThroughRoutes(action, { request: generateRequest(cookie, fields, options) })) as Response;
}

async function errorOf(response: Response): Promise<{ status: number; error: string }> {
  const body = (await response.json()) as { error: string };
  return { status: response.status, error: body.error };
}

const start = (events: SseEvent[]) => events.find((e) => e.event === "start")?.data as { promptTokens: number; model: string; balance: number };
const done = (events: SseEvent[]) =>
  events.find((e) => e.event === "done")?.data as {
    reason: string;
    charged: number;
    promptTokens: number;
    metering: "actual" | "estimate";
    inputTokens: number;
    outputTokens: number;
    outputChars: number;
    balance: number;
    versionId: string;
    notice?: string;
  };

describe("docs/product.md's preconditions, in order, before anything is charged", () => {
  it("asks for the overall setting, a character, the plot's characters, a plot, in that order", async () => {
    const user = await writer(10_000);
    const project = await createProject(user.id, "free", "顺序");
    const fields = { projectId: project.id };

    expect(await errorOf(await post(user.cookie, fields))).toEqual({ status: 400, error: "请先填写整体设定" });
    await saveTheme(user.id, project.id, "  ");
    expect((await errorOf(await post(user.cookie, fields))).error).toBe("请先填写整体设定");
    await saveTheme(user.id, project.id, "一个故事");
    expect(await errorOf(await post(user.cookie, fields))).toEqual({ status: 400, error: "请至少创建一个角色" });

    const character = await saveCharacter(user.id, project.id, { name: "甲", personality: "乙", appearance: "丙", other: "" });
    const lonely = await savePlot(user.id, project.id, {
      title: "无人情节",
      summary: "概要",
      environment: "环境",
      expectedWords: 1000,
      characterIds: [],
      additionalNotes: "",
    });
    expect(await errorOf(await post(user.cookie, { ...fields, plotId: lonely }))).toEqual({
      status: 400,
      error: "请为当前情节选择至少一个角色",
    });
    expect(await errorOf(await post(user.cookie, fields))).toEqual({ status: 400, error: "请先选择一个情节" });

    await savePlot(user.id, project.id, { id: lonely, title: "无人情节", summary: "概要", environment: "环境", expectedWords: 1000, characterIds: [character.id], additionalNotes: "" });
    await setTokens(user.id, 3);
    expect(await errorOf(await post(user.cookie, { ...fields, plotId: lonely }))).toEqual({ status: 402, error: "Tokens余额不足，请充值" });

    expect(await tokensOf(user.id)).toBe(3);
    expect(await aiRows(user.id)).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it("needs a session, a same-origin post, and the user's own project", async () => {
    const owner = await writer();
    const other = await writer();
    const { projectId, plotId } = await readyProject(owner.id);
    expect(await errorOf(await post(null, { projectId, plotId }))).toEqual({ status: 401, error: "请先登录" });
    expect((await post(owner.cookie, { projectId, plotId }, { origin: "https://evil.example" })).status).toBe(403);
    expect(await errorOf(await post(other.cookie, { projectId, plotId }))).toEqual({ status: 404, error: "写作项目不存在" });
    expect(await errorOf(await post(owner.cookie, { projectId: "not-a-uuid" }))).toEqual({ status: 404, error: "写作项目不存在" });
    expect(await errorOf(await post(owner.cookie, { projectId: randomUUID(), plotId }))).toEqual({ status: 404, error: "写作项目不存在" });
    // A genuine cookie whose session has ended: 请先登录, before any message about the project.
    const ended = await writer();
    await destroyAllUserSessions(ended.id);
    expect(await errorOf(await post(ended.cookie, { projectId, plotId }))).toEqual({ status: 401, error: "请先登录" });
    expect(await errorOf(await post(ended.cookie, { projectId: randomUUID(), plotId }))).toEqual({ status: 401, error: "请先登录" });
    expect(await errorOf(await post(ended.cookie, { projectId: "not-a-uuid" }))).toEqual({ status: 401, error: "请先登录" });
    expect(fake.requests).toHaveLength(0);
    expect(await aiRows(owner.id)).toEqual([]);
  });
});

describe("configuration messages (docs/product.md, Messages)", () => {
  async function withConfig(change: () => Promise<void>, restore: () => Promise<void>, message: string, status: number) {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    await change();
    try {
      expect(await errorOf(await post(user.cookie, { projectId, plotId }))).toEqual({ status, error: message });
    } finally {
      await restore();
    }
    expect(await aiRows(user.id)).toEqual([]);
  }
  const setDefault = (value: string) =>
    db.update(siteConfigs).set({ value }).where(eq(siteConfigs.key, "default_api_provider"));

  it("no default API configuration", () => withConfig(() => setDefault("").then(() => {}), () => setDefault(configId).then(() => {}), "未设置默认API配置", 503));

  it("a default that names no configuration", () =>
    withConfig(() => setDefault("00000000-0000-4000-8000-000000000000").then(() => {}), () => setDefault(configId).then(() => {}), "API配置不存在", 503));

  it("a missing prompt and an incomplete one", async () => {
    const [p01] = await db.select().from(prompts).where(eq(prompts.code, "P01"));
    await withConfig(
      () => db.delete(prompts).where(eq(prompts.code, "P01")).then(() => {}),
      async () => {
        const { id: _id, ...row } = p01;
        await db.insert(prompts).values(row);
      },
      "提示词不存在",
      503,
    );
    await withConfig(
      () => db.update(prompts).set({ systemContent: " " }).where(eq(prompts.code, "P01")).then(() => {}),
      () => db.update(prompts).set({ systemContent: p01.systemContent }).where(eq(prompts.code, "P01")).then(() => {}),
      "提示词配置不完整，请联系管理员",
      503,
    );
  });
});

describe("a generation, charged exactly", () => {
  it("streams the text, charges the usage the provider reported, writes one ledger row and a version", async () => {
    const user = await writer(50_000);
    const { projectId, plotId } = await readyProject(user.id);
    const text = storyText(1001);
    fake.enqueue({ text, chunkCount: 37, delayMs: 1 });

    const response = await post(user.cookie, { projectId, plotId });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("text/event-stream");
    const events = await readEvents(response);
    expect(textOf(events)).toBe(text);
    expect(events.filter((e) => e.event === "text").length).toBeGreaterThan(1);

    // The app asked for the usage, and the fake (1 token per 2 characters) reported it.
    expect(fake.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const info = start(events);
    const summary = done(events);
    const promptChars = countChars(fake.requests[0].system) + countChars(fake.requests[0].user);
    expect(info.promptTokens).toBe(tokensForChars(promptChars));
    const inputTokens = fakeTokenCount(fake.requests[0].system + fake.requests[0].user);
    expect(summary).toMatchObject({
      reason: "complete",
      promptTokens: info.promptTokens,
      metering: "actual",
      inputTokens,
      outputTokens: 501,
      outputChars: 1001,
      charged: inputTokens + 501,
      balance: 50_000 - inputTokens - 501,
    });
    expect(await tokensOf(user.id)).toBe(50_000 - summary.charged);

    const rows = await aiRows(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: "generation",
      amount: -summary.charged,
      promptChars,
      outputChars: 1001,
      model: "inkstone-fake",
      plotId,
      inputTokens,
      outputTokens: 501,
      metering: "actual",
    });
    const [version] = await db.select().from(plotVersions).where(eq(plotVersions.plotId, plotId));
    expect(version).toMatchObject({ id: summary.versionId, kind: "generation", content: text, model: "inkstone-fake", tokensCharged: summary.charged, transactionId: rows[0].id });
    const [plot] = await db.select().from(writingPlots).where(eq(writingPlots.id, plotId));
    expect(plot.content).toBe(text);
    expect(plot.currentVersionId).toBe(version.id);
  });

  it("without a reported usage, charges ceil(prompt/4) + ceil(output/4) and marks the row 估算", async () => {
    const user = await writer(50_000);
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ text: storyText(1001), chunkCount: 37, usage: false });
    const events = await readEvents(await post(user.cookie, { projectId, plotId }));
    const info = start(events);
    expect(done(events)).toMatchObject({
      reason: "complete",
      metering: "estimate",
      inputTokens: info.promptTokens,
      outputTokens: 251,
      charged: info.promptTokens + 251,
    });
    expect((await aiRows(user.id))[0]).toMatchObject({ amount: -(info.promptTokens + 251), inputTokens: info.promptTokens, outputTokens: 251, metering: "estimate" });
    expect(await tokensOf(user.id)).toBe(50_000 - info.promptTokens - 251);
  });

  it("reads DeepSeek-style usage on the finishing chunk, and a usage below the estimate returns the difference", async () => {
    const user = await writer(50_000);
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ text: storyText(800), chunkCount: 20, usageOnLastChoice: true, usage: { inputTokens: 7, outputTokens: 11 } });
    const events = await readEvents(await post(user.cookie, { projectId, plotId }));
    expect(done(events)).toMatchObject({ reason: "complete", metering: "actual", inputTokens: 7, outputTokens: 11, charged: 18, balance: 50_000 - 18 });
    expect(await tokensOf(user.id)).toBe(50_000 - 18);
    expect(await aiRowsSum(user.id)).toBe(-18);
  });

  it("a reported usage beyond the balance takes the balance to zero, never below", async () => {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ chunks: ["一"], usage: false });
    const promptTokens = start(await readEvents(await post(user.cookie, { projectId, plotId }))).promptTokens;
    await setTokens(user.id, promptTokens + 50);
    const before = await aiRowsSum(user.id);
    // 40 characters fit the estimate (10 tokens); the provider says they cost 1,000.
    fake.enqueue({ text: storyText(40), chunkCount: 4, usage: { inputTokens: promptTokens, outputTokens: 1_000 } });
    const events = await readEvents(await post(user.cookie, { projectId, plotId }));
    expect(done(events)).toMatchObject({ reason: "complete", metering: "actual", outputTokens: 1_000, charged: promptTokens + 50, balance: 0 });
    expect(await tokensOf(user.id)).toBe(0);
    expect((await aiRowsSum(user.id)) - before).toBe(-(promptTokens + 50));
  });

  it("sends the rendered P01 prompt with the project's values", async () => {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ chunks: ["好"] });
    await readEvents(await post(user.cookie, { projectId, plotId }));
    const { system, user: userPrompt } = fake.requests[0];
    expect(system).toContain("中文小说作者");
    expect(userPrompt).toContain("民国时期的江南小镇");
    expect(userPrompt).toContain("姓名：林晚");
    expect(userPrompt).toContain("雨夜来信：林晚收到一封没有署名的信。");
    expect(userPrompt).toContain("篇幅约 1000 字");
    expect(userPrompt).not.toMatch(/\{\|/);
  });

  it("saves the overall setting and plot text on screen first, keeping the old text as a version", async () => {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ chunks: ["新的正文"] });
    await readEvents(await post(user.cookie, { projectId, plotId, theme: "改过的设定", content: "我自己写的开头" }));
    expect(fake.requests[0].user).toContain("改过的设定");
    const versions = await db.select().from(plotVersions).where(eq(plotVersions.plotId, plotId));
    expect(versions.map((v) => [v.kind, v.content]).sort()).toEqual([
      ["generation", "新的正文"],
      ["manual", "我自己写的开头"],
    ]);
  });

  it("works the same through a Gemini configuration", async () => {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    await db.update(apiConfigs).set({ provider: "gemini", endpoint: fake.geminiEndpoint }).where(eq(apiConfigs.id, configId));
    try {
      fake.enqueue({ chunks: ["秋风", "瑟瑟"] });
      const events = await readEvents(await post(user.cookie, { projectId, plotId }));
      expect(textOf(events)).toBe("秋风瑟瑟");
      expect(fake.requests[0].path).toContain(":streamGenerateContent?alt=sse");
      // Gemini's usageMetadata (the last event's candidatesTokenCount) is the charge.
      const inputTokens = fakeTokenCount(fake.requests[0].user);
      expect(done(events)).toMatchObject({ metering: "actual", inputTokens, outputTokens: 2, charged: inputTokens + 2 });
      // The reservation is the estimate of exactly what was sent: system and user prompts joined in one part.
      const sentChars = countChars(fake.requests[0].user);
      expect((await aiRows(user.id))[0].promptChars).toBe(sentChars);
      expect(start(events).promptTokens).toBe(tokensForChars(sentChars));

      fake.enqueue({ chunks: ["秋风", "瑟瑟"], usage: false });
      const estimated = done(await readEvents(await post(user.cookie, { projectId, plotId })));
      expect(estimated).toMatchObject({ metering: "estimate", charged: start(events).promptTokens + 1 });
    } finally {
      await db.update(apiConfigs).set({ provider: "openai", endpoint: fake.openaiEndpoint }).where(eq(apiConfigs.id, configId));
    }
  });
});

describe("running out of tokens mid-stream", () => {
  it("stops cleanly at what the balance covers, keeps that text and says so", async () => {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    // Learn the prompt's cost first, then leave room for exactly 10 tokens of output.
    fake.enqueue({ chunks: ["一"] });
    const promptTokens = start(await readEvents(await post(user.cookie, { projectId, plotId }))).promptTokens;
    await setTokens(user.id, promptTokens + 10);
    const before = await aiRowsSum(user.id);

    const text = storyText(400);
    fake.enqueue({ text, chunkCount: 40, delayMs: 2 });
    const events = await readEvents(await post(user.cookie, { projectId, plotId }));
    expect(textOf(events)).toBe(Array.from(text).slice(0, 40).join(""));
    expect(done(events)).toMatchObject({
      reason: "tokens-exhausted",
      outputChars: 40,
      charged: promptTokens + 10,
      balance: 0,
      notice: AI_MESSAGES.tokensExhausted,
    });
    expect(await tokensOf(user.id)).toBe(0);
    expect((await aiRowsSum(user.id)) - before).toBe(-(promptTokens + 10));
    await waitFor("the provider request to end", () => fake.requests.at(-1)!.aborted || fake.requests.at(-1)!.completed);
    const [plot] = await db.select().from(writingPlots).where(eq(writingPlots.id, plotId));
    expect(plot.content).toBe(Array.from(text).slice(0, 40).join(""));
  });

  it("refuses before calling the provider when the balance only covers the prompt", async () => {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ chunks: ["一"] });
    const promptTokens = start(await readEvents(await post(user.cookie, { projectId, plotId }))).promptTokens;
    await setTokens(user.id, promptTokens);
    expect(await errorOf(await post(user.cookie, { projectId, plotId }))).toEqual({ status: 402, error: "Tokens余额不足，请充值" });
    expect(fake.requests).toHaveLength(1);
    expect(await tokensOf(user.id)).toBe(promptTokens);
  });
});

describe("failures refund everything", () => {
  async function expectNothingCharged(userId: string, plotId: string, balance: number) {
    expect(await tokensOf(userId)).toBe(balance);
    expect(await aiRowsSum(userId)).toBe(0);
    const rows = await aiRows(userId);
    expect(rows.map((r) => r.type)).toEqual(["generation", "refund"]);
    expect(Number(rows[1].amount)).toBe(-Number(rows[0].amount));
    const versions = await db.select().from(plotVersions).where(and(eq(plotVersions.plotId, plotId), eq(plotVersions.kind, "generation")));
    expect(versions).toEqual([]);
  }

  it.each([
    [{ status: 401 }, 502, "API密钥无效或已过期", 1],
    [{ status: 429 }, 502, "API调用次数超限", 1],
    [{ status: 500 }, 502, "API服务器错误", 3],
    [{ status: 404 }, 502, "API请求失败(404)", 1],
    [{ body: "<html>oops</html>", contentType: "text/html" }, 200, "无法读取API响应，请重试", 1],
    [{ chunks: [] as string[] }, 200, "AI返回内容为空", 1],
  ])("%o answers %i with %s", async (scenario, status, message, attempts) => {
    const user = await writer(5_000);
    const { projectId, plotId } = await readyProject(user.id);
    for (let i = 0; i < 3; i++) fake.enqueue(scenario);
    const response = await post(user.cookie, { projectId, plotId });
    expect(response.status).toBe(status);
    if (status === 200) {
      const events = await readEvents(response);
      expect(events.at(-1)).toEqual({ event: "error", data: { message } });
    } else {
      expect((await errorOf(response)).error).toBe(message);
    }
    expect(fake.requests).toHaveLength(attempts);
    await expectNothingCharged(user.id, plotId, 5_000);
  });

  it("a disconnect mid-stream: the error after the text so far, nothing charged, nothing saved", async () => {
    const user = await writer(5_000);
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ chunks: ["一", "二", "三", "四"], disconnectAfter: 2, delayMs: 5 });
    const events = await readEvents(await post(user.cookie, { projectId, plotId }));
    // A fetch body that breaks off drops what it had queued but not yet handed over, so
    // the second chunk may or may not have been read before the error.
    expect(["一", "一二"]).toContain(textOf(events));
    expect(events.at(-1)).toMatchObject({ event: "error", data: { message: expect.stringMatching(/^AI服务调用失败：[^A-Za-z]+$/) } });
    await expectNothingCharged(user.id, plotId, 5_000);
    const [plot] = await db.select().from(writingPlots).where(eq(writingPlots.id, plotId));
    expect(plot.content).toBe("");
  });

  it("a stream that goes silent is stopped with a clear message and refunded", async () => {
    const user = await writer(5_000);
    const { projectId, plotId } = await readyProject(user.id);
    aiTimings.idleMs = 200;
    try {
      fake.enqueue({ chunks: ["一", "二", "三"], stallAfter: 1 });
      const events = await readEvents(await post(user.cookie, { projectId, plotId }));
      expect(events.at(-1)).toEqual({ event: "error", data: { message: AI_MESSAGES.idleTimeout } });
    } finally {
      aiTimings.idleMs = 2_000;
    }
    await expectNothingCharged(user.id, plotId, 5_000);
  });
});

describe("a provider that never stops", () => {
  it("is cut off at the length limit; the text so far is kept and charged", async () => {
    const user = await writer(100_000);
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ forever: true, chunks: ["字".repeat(700)] });
    const events = await readEvents(await post(user.cookie, { projectId, plotId }));
    const summary = done(events);
    // max(10 × 1,000 expected words, 20,000) characters.
    expect(summary).toMatchObject({ reason: "limit", outputChars: 20_000, outputTokens: 5_000, notice: AI_MESSAGES.lengthLimit });
    expect(countChars(textOf(events))).toBe(20_000);
    expect(await tokensOf(user.id)).toBe(100_000 - summary.charged);
    await fake.requests[0].closed;
    expect(fake.requests[0].aborted).toBe(true);
  });
});

describe("the browser going away", () => {
  it("aborts the upstream call and charges only for what was sent", async () => {
    const user = await writer(50_000);
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ forever: true, chunks: ["无尽的故事，"], delayMs: 15 });
    const controller = new AbortController();
    let received = "";
    const response = await post(user.cookie, { projectId, plotId }, { signal: controller.signal });
    await readEvents(response, (e) => {
      if (e.event === "text") received += e.data as string;
      if (countChars(received) >= 30) controller.abort();
    });
    await fake.requests[0].closed;
    expect(fake.requests[0].aborted).toBe(true);

    const row = await waitFor("the generation row with its output", async () => {
      const [r] = await aiRows(user.id);
      return r && Number(r.outputChars) > 0 ? r : null;
    });
    const [version] = await waitFor("the saved version", async () => {
      const rows = await db.select().from(plotVersions).where(eq(plotVersions.plotId, plotId));
      return rows.length > 0 && rows;
    });
    expect(version.endReason).toBe("aborted");
    expect(version.content.startsWith(received)).toBe(true);
    const sent = countChars(version.content);
    expect(row.outputChars).toBe(sent);
    const promptTokens = tokensForChars(Number(row.promptChars));
    expect(Number(row.amount)).toBe(-(promptTokens + tokensForChars(sent)));
    // After an abort only what was delivered is charged, by the estimate (docs/product.md D15).
    expect(row).toMatchObject({ metering: "estimate", inputTokens: promptTokens, outputTokens: tokensForChars(sent) });
    expect(await tokensOf(user.id)).toBe(50_000 + Number(row.amount));
    // The fake sent far more than the 30 characters read: only what left the app is charged.
    expect(sent).toBeLessThan(countChars("无尽的故事，") * fake.requests[0].chunksSent + 1);
  });

  it("a response stream cancelled by its reader ends the generation the same way", async () => {
    const user = await writer(50_000);
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ forever: true, chunks: ["无尽的故事，"], delayMs: 15 });
    const response = await post(user.cookie, { projectId, plotId });
    // What the server does when the socket closes under a streamed body: the body is
    // cancelled (not only the request aborted). Nothing may be written after that.
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let read = "";
    while (!read.includes("event: text")) read += (await reader.read()).value ?? "";
    await reader.cancel();
    await fake.requests[0].closed;
    expect(fake.requests[0].aborted).toBe(true);
    const [version] = await waitFor("the saved version", async () => {
      const rows = await db.select().from(plotVersions).where(eq(plotVersions.plotId, plotId));
      return rows.length > 0 ? rows : null;
    });
    expect(version.endReason).toBe("aborted");
    const [row] = await aiRows(user.id);
    expect(Number(row.amount)).toBe(-(tokensForChars(Number(row.promptChars)) + tokensForChars(countChars(version.content))));
    expect(await tokensOf(user.id)).toBe(50_000 + Number(row.amount));
  });
});

describe("two generations of one user at once", () => {
  it("never push the balance below zero, and the ledger matches the balance", async () => {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ chunks: ["一"] });
    const promptTokens = start(await readEvents(await post(user.cookie, { projectId, plotId }))).promptTokens;
    const initial = 2 * promptTokens + 300;
    await setTokens(user.id, initial);
    const before = await aiRowsSum(user.id);

    const text = storyText(2_000);
    // The provider answers only after a pause, so both requests have reserved their prompt
    // cost before either is charged for output (otherwise the second may find too little).
    fake.enqueue({ text, chunkCount: 100, delayMs: 1, headersDelayMs: 1500 }, { text, chunkCount: 100, delayMs: 1, headersDelayMs: 1500 });
    const results = await Promise.all([post(user.cookie, { projectId, plotId }), post(user.cookie, { projectId, plotId })]);
    const summaries: { charged: number; reason: string }[] = [];
    for (const response of results) {
      if (response.status !== 200) {
        expect(await errorOf(response)).toEqual({ status: 402, error: "Tokens余额不足，请充值" });
        continue;
      }
      const events = await readEvents(response);
      const summary = done(events);
      if (summary) summaries.push(summary);
      else expect(events.at(-1)?.event).toBe("error");
    }
    const balance = await tokensOf(user.id);
    expect(balance).toBeGreaterThanOrEqual(0);
    const spent = summaries.reduce((s, x) => s + x.charged, 0);
    expect(balance).toBe(initial - spent);
    expect((await aiRowsSum(user.id)) - before).toBe(-spent);
    // 4,000 characters wanted, 300 tokens (1,200 characters) of room: someone ran out.
    expect(summaries.some((s) => s.reason === "tokens-exhausted")).toBe(true);
    if (databaseKind === "postgres") expect(summaries.length).toBe(2);
  });

  it("a row-level check: holds never take more than the balance", async () => {
    const user = await writer(0);
    const { holdGenerationTokens, reserveGenerationTokens } = await import("~/server/economy/ledger.server");
    await setTokens(user.id, 5);
    const { transactionId } = await db.transaction((tx) =>
      reserveGenerationTokens(tx, user.id, 2, { description: "t", model: "m", plotId: null, promptChars: 8 }),
    );
    const first = await db.transaction((tx) => holdGenerationTokens(tx, user.id, transactionId, 250));
    const second = await db.transaction((tx) => holdGenerationTokens(tx, user.id, transactionId, 250));
    expect([first.taken, second.taken, second.balance]).toEqual([3, 0, 0]);
    const [row] = await db.select().from(tokenTransactions).where(eq(tokenTransactions.id, transactionId));
    expect(Number(row.amount)).toBe(-5);
  });
});
