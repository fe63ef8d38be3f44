import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AiError } from "~/server/ai/ai-errors.server";
import { GeminiProvider, geminiUrl } from "~/server/ai/gemini.server";
import { CallAbortedError } from "~/server/ai/http.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { OpenAiProvider, openaiUrl } from "~/server/ai/openai.server";
import type { AiProvider } from "~/server/ai/provider.server";
import { aiTimings, backoffMs } from "~/server/ai/timings.server";
import { BAD_KEY, FIXTURES_DIR, startFakeAiProvider, type FakeAiProvider } from "../fakes/ai-provider";

let fake: FakeAiProvider;
const saved = { ...aiTimings };
const prompt = { system: "你是作者。", user: "写一段话，篇幅约 100 字。" };

beforeAll(async () => {
  fake = await startFakeAiProvider();
  Object.assign(aiTimings, { retryBaseMs: 20, retryJitterMs: 10, firstByteMs: 2_000, idleMs: 2_000, completeMs: 2_000 });
});
afterEach(() => fake.reset());
afterAll(async () => {
  Object.assign(aiTimings, saved);
  await fake.close();
});

const openai = (over: Partial<{ apiKey: string; model: string; endpoint: string }> = {}) =>
  new OpenAiProvider({ provider: "openai", endpoint: fake.openaiEndpoint, apiKey: "k-1", model: "m-1", ...over });
const gemini = (over: Partial<{ apiKey: string; model: string; endpoint: string }> = {}) =>
  new GeminiProvider({ provider: "gemini", endpoint: fake.geminiEndpoint, apiKey: "g-1", model: "gemini-test", ...over });

async function collect(provider: AiProvider, signal?: AbortSignal): Promise<string[]> {
  const out: string[] = [];
  for await (const text of await provider.stream(prompt, signal)) out.push(text);
  return out;
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

describe("endpoints", () => {
  it("accepts an OpenAI base URL, a bare host or the full chat-completions URL", () => {
    expect(openaiUrl("https://api.example.com/v1")).toBe("https://api.example.com/v1/chat/completions");
    expect(openaiUrl("https://api.example.com/v1/")).toBe("https://api.example.com/v1/chat/completions");
    expect(openaiUrl("https://api.example.com")).toBe("https://api.example.com/v1/chat/completions");
    expect(openaiUrl("https://dashscope.example.com/compatible-mode/v1/chat/completions")).toBe(
      "https://dashscope.example.com/compatible-mode/v1/chat/completions",
    );
  });

  it("builds Gemini's models/{model}:method URLs, with alt=sse for streaming", () => {
    expect(geminiUrl("https://g.example.com/v1beta/", "gemini-2.0-flash", "streamGenerateContent")).toBe(
      "https://g.example.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse",
    );
    expect(geminiUrl("https://g.example.com/v1beta", "models/gemini-pro", "generateContent")).toBe(
      "https://g.example.com/v1beta/models/gemini-pro:generateContent",
    );
    expect(geminiUrl("https://g.example.com", "gemini-pro", "generateContent")).toBe(
      "https://g.example.com/v1beta/models/gemini-pro:generateContent",
    );
  });
});

describe("OpenAI-compatible", () => {
  it("streams the text as the chunks arrive, with a bearer key, model, messages and stream true", async () => {
    fake.enqueue({ chunks: ["从前", "有座山，", "山里有座庙。"], delayMs: 5 });
    expect((await collect(openai())).join("")).toBe("从前有座山，山里有座庙。");
    const [request] = fake.requests;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer k-1");
    expect(request.body).toMatchObject({
      model: "m-1",
      stream: true,
      messages: [
        { role: "system", content: prompt.system },
        { role: "user", content: prompt.user },
      ],
    });
  });

  it("yields the first chunk before the last has been sent", async () => {
    fake.enqueue({ chunks: ["一", "二", "三"], delayMs: 300 });
    const stream = await openai().stream(prompt);
    const first = await stream.next();
    expect(first.value).toBe("一");
    expect(fake.requests[0].completed).toBe(false);
    await stream.return();
  });

  it("answers a non-streamed request with the message content", async () => {
    fake.enqueue({ reply: "分析结果" });
    expect(await openai().complete(prompt)).toBe("分析结果");
    expect(fake.requests[0].body).toMatchObject({ stream: false });
  });

  it("gets every recorded stream's text through HTTP in small pieces", async () => {
    const index = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, "index.json"), "utf8")) as {
      files: { file: string; expected_text?: string }[];
    };
    for (const entry of index.files.filter((f) => f.file.endsWith(".txt"))) {
      fake.enqueue({ replay: entry.file, pieceBytes: 61 });
      const provider = entry.file.startsWith("gemini") ? gemini() : openai();
      expect((await collect(provider)).join(""), entry.file).toBe(entry.expected_text);
    }
  });

  it("skips malformed lines and keep-alive comments", async () => {
    fake.enqueue({ chunks: ["甲", "乙", "丙"], malformed: [1], keepAlive: true });
    expect((await collect(openai())).join("")).toBe("甲乙丙");
  });

  it("maps a bad key to the invalid-key message without retrying", async () => {
    const error = await failure(collect(openai({ apiKey: BAD_KEY })));
    expect(error).toBeInstanceOf(AiError);
    expect(error.message).toBe("API密钥无效或已过期");
    expect(fake.requests).toHaveLength(1);
  });

  it("does not retry 429", async () => {
    fake.enqueue({ status: 429 });
    expect((await failure(collect(openai()))).message).toBe("API调用次数超限");
    expect(fake.requests).toHaveLength(1);
  });

  it("retries 5xx before the first byte and succeeds on the third attempt", async () => {
    fake.enqueue({ status: 500 }, { status: 502 }, { chunks: ["好"] });
    expect((await collect(openai())).join("")).toBe("好");
    expect(fake.requests).toHaveLength(3);
  });

  it("gives up after three attempts: 500 is the server error, 503 a failed request", async () => {
    fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    expect((await failure(collect(openai()))).message).toBe("API服务器错误");
    expect(fake.requests).toHaveLength(3);
    fake.reset();
    fake.enqueue({ status: 503 }, { status: 503 }, { status: 503 });
    expect((await failure(collect(openai()))).message).toBe("API请求失败(503)");
  });

  it("reports other statuses with their number", async () => {
    fake.enqueue({ status: 404 });
    expect((await failure(collect(openai()))).message).toBe("API请求失败(404)");
  });

  it("retries a refused connection and then reports the service failure", async () => {
    const closed = await startFakeAiProvider();
    await closed.close();
    const started = Date.now();
    const error = await failure(collect(openai({ endpoint: closed.openaiEndpoint })));
    expect(error.message).toBe("AI服务调用失败：无法连接（连接被拒绝），请检查接口地址和端口");
    // Two backoffs of the shortened schedule: 20-30 ms, then 40-50 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
  });

  it("calls an HTML page unreadable", async () => {
    fake.enqueue({ body: "<html><body>Bad gateway</body></html>", contentType: "text/html" });
    expect((await failure(collect(openai()))).message).toBe("无法读取API响应，请重试");
  });

  it("reports a mid-stream disconnect after the text so far", async () => {
    fake.enqueue({ chunks: ["一", "二", "三", "四"], disconnectAfter: 2, delayMs: 5 });
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const text of await openai().stream(prompt)) seen.push(text);
      })(),
    );
    // What fetch had queued when the body broke off may be dropped with the error.
    expect(["一", "一二"]).toContain(seen.join(""));
    expect(error.message).toMatch(/^AI服务调用失败：[^A-Za-z]+$/);
    expect(fake.requests).toHaveLength(1);
  });

  it("stops a stream that goes silent, with the idle-timeout message", async () => {
    Object.assign(aiTimings, { idleMs: 150 });
    try {
      fake.enqueue({ chunks: ["一", "二", "三"], stallAfter: 1 });
      const error = await failure(collect(openai()));
      expect(error.message).toBe(AI_MESSAGES.idleTimeout);
      await fake.requests[0].closed;
      expect(fake.requests[0].aborted).toBe(true);
    } finally {
      aiTimings.idleMs = 2_000;
    }
  });

  it("gives up when no byte arrives in time, headers or body", async () => {
    Object.assign(aiTimings, { firstByteMs: 150 });
    try {
      fake.enqueue({ headersDelayMs: 1_000 });
      expect((await failure(collect(openai()))).message).toBe(AI_MESSAGES.firstByteTimeout);
      fake.enqueue({ firstChunkDelayMs: 1_000, chunks: ["迟到"] });
      expect((await failure(collect(openai()))).message).toBe(AI_MESSAGES.firstByteTimeout);
      expect(fake.requests).toHaveLength(2);
    } finally {
      aiTimings.firstByteMs = 2_000;
    }
  });

  it("aborts the upstream call when the caller's signal aborts", async () => {
    fake.enqueue({ forever: true, chunks: ["无尽"], delayMs: 10 });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const text of await openai().stream(prompt, controller.signal)) {
          seen.push(text);
          if (seen.length === 3) controller.abort();
        }
      })(),
    );
    expect(error).toBeInstanceOf(CallAbortedError);
    await fake.requests[0].closed;
    expect(fake.requests[0].aborted).toBe(true);
  });

  it("closes the upstream connection when the reader stops early", async () => {
    fake.enqueue({ forever: true, chunks: ["无尽"], delayMs: 10 });
    const stream = await openai().stream(prompt);
    await stream.next();
    await stream.return();
    await fake.requests[0].closed;
    expect(fake.requests[0].aborted).toBe(true);
  });
});

describe("Gemini", () => {
  it("streams from streamGenerateContent?alt=sse with the key in x-goog-api-key", async () => {
    fake.enqueue({ chunks: ["秋风", "瑟瑟"] });
    expect((await collect(gemini())).join("")).toBe("秋风瑟瑟");
    const [request] = fake.requests;
    expect(request.path).toBe("/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
    expect(request.headers["x-goog-api-key"]).toBe("g-1");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.user).toBe(`${prompt.system}\n\n${prompt.user}`);
  });

  it("answers analysis from generateContent", async () => {
    fake.enqueue({ reply: "{\"message\":\"success\"}" });
    expect(await gemini().complete(prompt)).toBe("{\"message\":\"success\"}");
    expect(fake.requests[0].path).toBe("/v1beta/models/gemini-test:generateContent");
  });

  it("replays the recorded non-streamed answers", async () => {
    fake.enqueue({ replay: "gemini-nonstream.json" }, { replay: "gemini-nonstream-legacy.json" });
    expect(await gemini().complete(prompt)).toBe("I've divided 10 by 2 using the customDivide function, and the result is 42.\n");
    expect(await gemini().complete(prompt)).toBe("Helena");
    fake.enqueue({ replay: "openai-nonstream.json" });
    expect(await openai().complete(prompt)).toContain("Weather Channel");
  });

  it("maps a bad key (400 API_KEY_INVALID) to the invalid-key message", async () => {
    expect((await failure(collect(gemini({ apiKey: BAD_KEY })))).message).toBe("API密钥无效或已过期");
    expect((await failure(gemini({ apiKey: BAD_KEY }).complete(prompt))).message).toBe("API密钥无效或已过期");
  });

  it("reports the JSON error of a streamed request by its status", async () => {
    fake.enqueue({ status: 404, errorBody: fs.readFileSync(path.join(FIXTURES_DIR, "gemini-404-stream-error.json"), "utf8") });
    expect((await failure(collect(gemini()))).message).toBe("API请求失败(404)");
  });
});

describe("backoff (docs/product.md D7)", () => {
  it("starts at 1 s, doubles, adds up to 1 s of jitter and stops at 10 s", () => {
    const timings = { ...saved };
    expect(backoffMs(1, timings, () => 0)).toBe(1_000);
    expect(backoffMs(1, timings, () => 0.999)).toBeCloseTo(1_999, 0);
    expect(backoffMs(2, timings, () => 0.5)).toBe(2_500);
    expect(backoffMs(4, timings, () => 0.5)).toBe(8_500);
    expect(backoffMs(5, timings, () => 0)).toBe(10_000);
    expect(saved.attempts).toBe(3);
  });
});
