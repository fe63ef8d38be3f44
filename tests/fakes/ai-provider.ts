import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * A test AI provider: a small HTTP server speaking both wire formats the app uses.
 *
 *   OpenAI-compatible  POST {base}/chat/completions        stream true (SSE) or false (JSON)
 *   Gemini             POST {base}models/{m}:streamGenerateContent?alt=sse   (SSE)
 *                      POST {base}models/{m}:generateContent                 (JSON)
 *
 * What it answers is a scenario: text split into chunks, delays, HTTP errors, malformed
 * lines, keep-alive comments, a mid-stream disconnect, a stall, a stream without end, or
 * a recorded body from tests/fakes/provider-streams replayed byte for byte. Tests queue
 * scenarios (`enqueue`); a model name can pick one too (`replay:<file>`, `status:<code>`,
 * `forever`, `stall`, `disconnect`, `slow`, `html`), which is how the browser tests and a
 * person trying `npm run dev:ai` reach them through an ordinary API configuration; so can
 * the prompt, with `〔fake:status:500〕` anywhere in the text a user typed.
 *
 * Usage (docs/product.md D15): a completed stream reports the tokens it used, as the real
 * services do: OpenAI-compatible only when the request asks with
 * `stream_options.include_usage` (a last chunk with `choices: []` and `usage`, or on the
 * finishing chunk, DeepSeek style, with `usageOnLastChoice`); Gemini always, in
 * `usageMetadata` (promptTokenCount on every event, candidatesTokenCount on the last).
 * The fake counts `fakeTokenCount` (1 token per 2 characters) unless the scenario gives
 * the numbers, and `usage: false` leaves usage out.
 *
 * Keys: any key works except "bad-key" (OpenAI 401; Gemini 400 API_KEY_INVALID, exactly
 * as the real services answer). Every request is recorded, with whether the client hung
 * up before the answer was complete.
 */

export type WireFormat = "openai" | "gemini";

export interface FakeScenario {
  /** Answer with this non-2xx status and `errorBody` (else the format's usual error). */
  status?: number;
  errorBody?: string;
  /** Send a recorded body from provider-streams (file name), in `pieceBytes` pieces. */
  replay?: string;
  /** Send this raw body instead of formatted events. */
  body?: string;
  contentType?: string;
  /** The text deltas to stream, or `text` cut into `chunkCount` pieces. */
  chunks?: string[];
  text?: string;
  chunkCount?: number;
  /** The whole answer of a non-streamed request. */
  reply?: string;
  /** Wait before the status line, before the first chunk, and between chunks. */
  headersDelayMs?: number;
  firstChunkDelayMs?: number;
  delayMs?: number;
  /** Write every event (or the raw body) in pieces of this many bytes, 1 ms apart. */
  pieceBytes?: number;
  /** Indices of chunks to precede with a malformed event (`data: {not json`). */
  malformed?: number[];
  /** A `: keep-alive` comment before every chunk. */
  keepAlive?: boolean;
  /** Destroy the connection after this many chunks. */
  disconnectAfter?: number;
  /** Stop sending after this many chunks, but keep the connection open. */
  stallAfter?: number;
  /** Repeat the chunks without end (until the client goes away). */
  forever?: boolean;
  /** Leave out `data: [DONE]` (OpenAI) at the end. */
  omitDone?: boolean;
  /** The usage to report at the end (default: counted with fakeTokenCount); false: none. */
  usage?: false | { inputTokens: number; outputTokens: number };
  /** OpenAI-compatible: usage on the finishing chunk (DeepSeek style), not a chunk of its own. */
  usageOnLastChoice?: boolean;
}

export interface FakeRequest {
  format: WireFormat;
  stream: boolean;
  path: string;
  model: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  /** The prompt text as the app sent it (system and user; Gemini sends them joined). */
  system: string;
  user: string;
  chunksSent: number;
  /** The client closed the connection before the answer was complete. */
  aborted: boolean;
  completed: boolean;
  /** Settles when the exchange is over (completed, aborted or disconnected). */
  closed: Promise<void>;
}

export interface FakeAiProvider {
  url: string;
  port: number;
  /** Base URLs to put into an api_configs row. */
  openaiEndpoint: string;
  geminiEndpoint: string;
  requests: FakeRequest[];
  /** Scenarios for the next requests, one each, in order. */
  enqueue(...scenarios: FakeScenario[]): void;
  /** The scenario when the queue is empty (and the model name picks none). */
  setDefault(scenario: FakeScenario): void;
  reset(): void;
  close(): Promise<void>;
}

export const FIXTURES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "provider-streams");
export const BAD_KEY = "bad-key";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const STORY = [
  "夜色渐深，雨丝斜斜地落在青石板上。",
  "她撑着一把旧油纸伞，沿着河岸慢慢走着，心里反复想着白天那封没有署名的信。",
  "远处的钟楼敲了九下，声音被潮湿的空气压得很低。",
  "“你终于来了。”巷口的人影开口，嗓音比她记忆中沙哑了许多。",
  "她停下脚步，没有回答，只是把伞微微抬高，让灯笼的光照在对方脸上。",
  "那是一张熟悉又陌生的脸，眉间多了一道浅浅的疤。",
  "风从河面上吹来，带着水草和旧木头的气味。",
  "他们就这样站着，谁也没有先迈出那一步。",
];

/** A Chinese story of `length` characters (the fake's default answer), from sentence `from` on. */
export function storyText(length: number, from = 0): string {
  let text = "";
  for (let i = from; Array.from(text).length < length; i++) text += STORY[i % STORY.length];
  return Array.from(text).slice(0, length).join("");
}

/** The fake's tokenizer: 1 token per 2 characters (code points), rounded up. */
export function fakeTokenCount(text: string): number {
  return Math.ceil(Array.from(text).length / 2);
}

/** Cuts text into `count` pieces of nearly equal length (by code point). */
export function splitText(text: string, count: number): string[] {
  const chars = Array.from(text);
  const n = Math.max(1, Math.min(count, chars.length));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(chars.slice(Math.floor((i * chars.length) / n), Math.floor(((i + 1) * chars.length) / n)).join(""));
  }
  return out.filter(Boolean);
}

/** The fake's answer to an analysis prompt (P02): a JSON in the shape P02 asks for. */
export function analysisReply(): string {
  return JSON.stringify(
    {
      message: "success",
      角色设定: [
        { 姓名: "林晚", 性格: "倔强、敏感，习惯把心事藏起来", 外貌: "清瘦，常穿一件洗旧的蓝布衫", 其他: "镇上裁缝铺的女儿" },
        { 姓名: "沈舟", 性格: "沉默寡言，重情义", 外貌: "高个子，眉间有一道浅疤", 其他: "多年前离开小镇的船工" },
      ],
      大纲: [
        { 标题: "雨夜来信", 出场角色: ["林晚"], 概要: "林晚收到一封没有署名的信，约她在河边相见。", 环境: "江南小镇，梅雨季的夜晚" },
        { 标题: "河岸重逢", 出场角色: ["林晚", "沈舟"], 概要: "林晚在巷口见到多年未归的沈舟，两人相对无言。", 环境: "河岸小巷，灯笼昏黄" },
      ],
    },
    null,
    2,
  );
}

/**
 * The fake's answer to a 细纲 request ("请为第A章到第B章写细纲", docs/decisions/255): the JSON
 * it asks for, three beats per chapter naming the chapter. Null when the prompt asks none.
 */
export function outlineReply(user: string): string | null {
  const m = /请为第(\d+)章到第(\d+)章写细纲/.exec(user);
  if (!m) return null;
  const chapters = Array.from({ length: Number(m[2]) - Number(m[1]) + 1 }, (_, i) => Number(m[1]) + i);
  return JSON.stringify({
    细纲: chapters.map((n) => ({
      章: n,
      节拍: [
        { 内容: `第${n}章开场：林晚收到一封没有署名的信`, 字数: 400 },
        { 内容: `第${n}章中段：她在河边等到深夜`, 字数: 600 },
        { 内容: `第${n}章结尾：巷口的人影开口`, 字数: 500 },
      ],
    })),
  });
}

/**
 * The fake's continuation of a 细纲 plan (decision 256): each beat's marker on a line of its
 * own, then a story of a tenth of its budget. Null when the plan has no beats.
 */
export function beatsStory(user: string): string | null {
  const beats = [...user.matchAll(/【节拍(\d+)】（约(\d+)字）/g)];
  if (beats.length === 0) return null;
  return beats.map((b, i) => `【节拍${b[1]}】\n${storyText(Math.max(10, Math.floor(Number(b[2]) / 10)), i * 2)}\n`).join("");
}

function expectedWords(user: string): number {
  const m = /篇幅约\s*(\d+)\s*字/.exec(user);
  return m ? Number(m[1]) : 300;
}

/** What the app sent: OpenAI messages, or Gemini's joined user part. */
function promptOf(format: WireFormat, body: Record<string, unknown>): { system: string; user: string } {
  if (format === "openai") {
    const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: string }[]) : [];
    return {
      system: messages.find((m) => m.role === "system")?.content ?? "",
      user: messages.find((m) => m.role === "user")?.content ?? "",
    };
  }
  const contents = Array.isArray(body.contents) ? (body.contents as { parts?: { text?: string }[] }[]) : [];
  const text = contents.flatMap((c) => c.parts ?? []).map((p) => p.text ?? "").join("");
  return { system: "", user: text };
}

/** A scenario named by the model: lets an ordinary API configuration pick one. */
function scenarioFromModel(model: string): FakeScenario | null {
  if (model.startsWith("replay:")) return { replay: model.slice("replay:".length) };
  const status = /^status:(\d{3})$/.exec(model);
  if (status) return { status: Number(status[1]) };
  if (model === "forever") return { forever: true, chunks: ["永无止境的故事，"], delayMs: 20 };
  if (model === "stall") return { text: storyText(40), chunkCount: 4, stallAfter: 2 };
  if (model === "disconnect") return { text: storyText(60), chunkCount: 6, disconnectAfter: 3, delayMs: 10 };
  if (model === "slow") return { delayMs: 150 };
  if (model === "html") return { body: "<!doctype html><html><body>502 Bad Gateway</body></html>", contentType: "text/html" };
  return null;
}

function fixture(name: string): Buffer {
  const file = path.join(FIXTURES_DIR, path.basename(name));
  return fs.readFileSync(file);
}

function defaultErrorBody(format: WireFormat, status: number): string {
  if (format === "openai") {
    if (status === 401) return fixture("openai-401.json").toString("utf8");
    if (status === 429) return fixture("openai-429.json").toString("utf8");
    return JSON.stringify({ error: { message: `fake error ${status}`, type: "server_error", param: null, code: null } });
  }
  if (status === 400) return fixture("gemini-400-invalid-key.json").toString("utf8");
  if (status === 401) return fixture("gemini-401.json").toString("utf8");
  if (status === 429) return fixture("gemini-429.json").toString("utf8");
  return JSON.stringify({ error: { code: status, message: `fake error ${status}`, status: "INTERNAL" } });
}

let sequence = 0;

interface Usage {
  inputTokens: number;
  outputTokens: number;
}

function openaiUsage(usage: Usage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function openaiChunk(
  id: string,
  model: string,
  delta: Record<string, unknown>,
  finish: string | null,
  usage?: Usage,
): string {
  return JSON.stringify({
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage ? { usage: openaiUsage(usage) } : {}),
  });
}

/** The chunk `stream_options.include_usage` adds before [DONE]: no choices, the usage. */
function openaiUsageChunk(id: string, model: string, usage: Usage): string {
  return JSON.stringify({
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [],
    usage: openaiUsage(usage),
  });
}

/**
 * A Gemini event. As recorded (provider-streams/gemini-stream-usage.txt): every event's
 * usageMetadata has the prompt's count; the last one adds candidatesTokenCount.
 */
function geminiChunk(text: string, last: boolean, usage?: Usage): string {
  const usageMetadata = usage
    ? last
      ? {
          promptTokenCount: usage.inputTokens,
          candidatesTokenCount: usage.outputTokens,
          totalTokenCount: usage.inputTokens + usage.outputTokens,
        }
      : { promptTokenCount: usage.inputTokens, totalTokenCount: usage.inputTokens }
    : undefined;
  return JSON.stringify({
    candidates: [{ content: { parts: [{ text }], role: "model" }, ...(last ? { finishReason: "STOP" } : {}), index: 0 }],
    ...(usageMetadata ? { usageMetadata } : {}),
  });
}

function nonStreamBody(format: WireFormat, model: string, reply: string, usage?: Usage): string {
  if (format === "openai") {
    return JSON.stringify({
      id: `chatcmpl-fake-${++sequence}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message: { role: "assistant", content: reply, refusal: null }, logprobs: null, finish_reason: "stop" }],
      ...(usage ? { usage: openaiUsage(usage) } : {}),
    });
  }
  return JSON.stringify({
    candidates: [{ content: { parts: [{ text: reply }], role: "model" }, finishReason: "STOP" }],
    ...(usage
      ? { usageMetadata: { promptTokenCount: usage.inputTokens, candidatesTokenCount: usage.outputTokens, totalTokenCount: usage.inputTokens + usage.outputTokens } }
      : {}),
  });
}

export async function startFakeAiProvider(
  options: { port?: number; host?: string; defaults?: FakeScenario } = {},
): Promise<FakeAiProvider> {
  const queue: FakeScenario[] = [];
  let defaults: FakeScenario = options.defaults ?? {};
  const requests: FakeRequest[] = [];
  const sockets = new Set<import("node:net").Socket>();

  async function write(res: http.ServerResponse, data: string | Buffer, pieceBytes?: number): Promise<boolean> {
    if (res.destroyed) return false;
    const buffer = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    // Each write waits until the bytes are handed to the socket, so a disconnect that
    // follows never loses what was already "sent".
    const send = (piece: Buffer) =>
      new Promise<void>((resolve) => {
        if (res.destroyed) return resolve();
        res.write(piece, () => resolve());
      });
    if (!pieceBytes) {
      await send(buffer);
      return !res.destroyed;
    }
    for (let i = 0; i < buffer.length; i += pieceBytes) {
      if (res.destroyed) return false;
      await send(buffer.subarray(i, i + pieceBytes));
      await sleep(1);
    }
    return !res.destroyed;
  }

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, record: FakeRequest, scenario: FakeScenario) {
    const { format, stream, model } = record;
    if (scenario.headersDelayMs) await sleep(scenario.headersDelayMs);
    if (res.destroyed) return;

    if (scenario.status && scenario.status >= 400) {
      res.writeHead(scenario.status, { "Content-Type": stream && format === "gemini" ? "text/event-stream" : "application/json" });
      res.end(scenario.errorBody ?? defaultErrorBody(format, scenario.status));
      return;
    }

    if (scenario.replay || scenario.body !== undefined) {
      const body = scenario.replay ? fixture(scenario.replay) : Buffer.from(scenario.body ?? "", "utf8");
      const contentType =
        scenario.contentType ?? (scenario.replay?.endsWith(".json") ? "application/json" : "text/event-stream");
      res.writeHead(200, { "Content-Type": contentType });
      if (scenario.firstChunkDelayMs) await sleep(scenario.firstChunkDelayMs);
      if (scenario.pieceBytes && scenario.delayMs) {
        for (let i = 0; i < body.length; i += scenario.pieceBytes) {
          if (!(await write(res, body.subarray(i, i + scenario.pieceBytes)))) return;
          await sleep(scenario.delayMs);
        }
      } else if (!(await write(res, body, scenario.pieceBytes))) return;
      res.end();
      return;
    }

    if (!stream) {
      const reply =
        scenario.reply ?? outlineReply(record.user) ?? (/角色设定/.test(record.user) && /大纲/.test(record.user) ? analysisReply() : storyText(expectedWords(record.user)));
      res.writeHead(200, { "Content-Type": "application/json" });
      // A non-streamed answer always carries its usage (unless the scenario leaves it out).
      const usage = scenario.usage === false ? undefined : scenario.usage || { inputTokens: fakeTokenCount(record.system + record.user), outputTokens: fakeTokenCount(reply) };
      res.end(nonStreamBody(format, model, reply, usage));
      return;
    }

    const chunks =
      scenario.chunks ??
      (scenario.text !== undefined
        ? splitText(scenario.text, scenario.chunkCount ?? Math.ceil(Array.from(scenario.text).length / 12))
        : beatsStory(record.user) !== null
          ? splitText(beatsStory(record.user)!, 12)
          : splitText(storyText(Math.min(expectedWords(record.user), 3000), sequence), Math.ceil(Math.min(expectedWords(record.user), 3000) / 12)));
    const id = `chatcmpl-fake-${++sequence}`;
    const event = (json: string) => `data: ${json}\n\n`;

    res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", Connection: "keep-alive" });
    res.flushHeaders();
    if (scenario.firstChunkDelayMs) await sleep(scenario.firstChunkDelayMs);
    if (format === "openai" && !(await write(res, event(openaiChunk(id, model, { role: "assistant", content: "" }, null)), scenario.pieceBytes))) return;
    // The usage to report once the answer is complete (the text is known up front).
    const wantsUsage =
      scenario.usage !== false &&
      (format === "gemini" || (record.body as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true);
    const usage: Usage | undefined = wantsUsage
      ? scenario.usage || { inputTokens: fakeTokenCount(record.system + record.user), outputTokens: fakeTokenCount(chunks.join("")) }
      : undefined;

    for (let i = 0; scenario.forever || i < chunks.length; i++) {
      if (scenario.disconnectAfter !== undefined && i === scenario.disconnectAfter) {
        // Close the connection without the chunked body's end: a FIN, so the bytes already
        // sent still arrive (a reset could discard them), then the stream breaks off.
        const socket = res.socket;
        socket?.end();
        setTimeout(() => socket?.destroy(), 200).unref();
        return;
      }
      if (scenario.stallAfter !== undefined && i === scenario.stallAfter) return; // left open
      if (i > 0 && scenario.delayMs) await sleep(scenario.delayMs);
      if (res.destroyed) return;
      let out = "";
      if (scenario.keepAlive) out += ": keep-alive\n\n";
      if (scenario.malformed?.includes(i)) out += "data: {not json\n\n";
      const text = chunks[i % chunks.length];
      const last = !scenario.forever && i === chunks.length - 1;
      out += event(format === "openai" ? openaiChunk(id, model, { content: text }, null) : geminiChunk(text, last, usage));
      if (!(await write(res, out, scenario.pieceBytes))) return;
      record.chunksSent += 1;
    }
    let tail = "";
    if (format === "openai") {
      tail += event(openaiChunk(id, model, {}, "stop", scenario.usageOnLastChoice ? usage : undefined));
      if (usage && !scenario.usageOnLastChoice) tail += event(openaiUsageChunk(id, model, usage));
      if (!scenario.omitDone) tail += "data: [DONE]\n\n";
    }
    if (tail && !(await write(res, tail, scenario.pieceBytes))) return;
    res.end();
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    if (req.method === "GET" && url.pathname === "/healthz") {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("ok");
      return;
    }
    const gemini = /\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(url.pathname);
    const openai = /\/chat\/completions$/.test(url.pathname);
    if (req.method !== "POST" || (!gemini && !openai)) {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}`, code: 404 } }));
      return;
    }
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
      } catch {
        res.writeHead(400, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: { message: "invalid JSON body", code: 400 } }));
        return;
      }
      const format: WireFormat = gemini ? "gemini" : "openai";
      const model = gemini ? decodeURIComponent(gemini[1]) : String(body.model ?? "");
      const stream = gemini ? gemini[2] === "streamGenerateContent" : body.stream === true;
      let resolveClosed = () => {};
      const record: FakeRequest = {
        format,
        stream,
        path: url.pathname + url.search,
        model,
        headers: req.headers,
        body,
        ...promptOf(format, body),
        chunksSent: 0,
        aborted: false,
        completed: false,
        closed: new Promise<void>((resolve) => (resolveClosed = resolve)),
      };
      requests.push(record);
      res.on("finish", () => {
        record.completed = true;
      });
      res.on("close", () => {
        if (!record.completed) record.aborted = true;
        resolveClosed();
      });

      // Authentication as the real services answer it.
      const key =
        format === "openai"
          ? /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
          : ((req.headers["x-goog-api-key"] as string | undefined) ?? url.searchParams.get("key") ?? undefined);
      let scenario: FakeScenario;
      if (format === "gemini" && !key && req.headers.authorization) scenario = { status: 401 };
      else if (!key || key === BAD_KEY) scenario = { status: format === "openai" ? 401 : 400 };
      else if (format === "gemini" && stream && url.searchParams.get("alt") !== "sse") {
        // Without alt=sse Gemini streams a JSON array; the app always asks for SSE.
        scenario = { body: `[${geminiChunk(storyText(20), true)}]`, contentType: "application/json" };
      } else scenario = queue.shift() ?? scenarioFromModel(model) ?? scenarioFromModel(/〔fake:([^〕]+)〕/.exec(record.user)?.[1] ?? "") ?? defaults;

      answer(req, res, record, scenario).catch((error) => {
        console.error("fake AI provider failed", error);
        res.destroy();
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${options.host ?? "127.0.0.1"}:${port}`;

  return {
    url,
    port,
    openaiEndpoint: `${url}/v1`,
    geminiEndpoint: `${url}/v1beta/`,
    requests,
    enqueue: (...scenarios) => queue.push(...scenarios),
    setDefault: (scenario) => {
      defaults = scenario;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      defaults = options.defaults ?? {};
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// `npm run dev:ai [-- --port 3199] [--configure]`: a provider to try the writing tools by hand.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: process.env.FAKE_AI_PORT ?? "3199" },
      host: { type: "string", default: "127.0.0.1" },
      delay: { type: "string", default: "40" },
      configure: { type: "boolean", default: false },
    },
  });
  const fake = await startFakeAiProvider({
    port: Number(values.port),
    host: values.host,
    defaults: { delayMs: Number(values.delay) },
  });
  if (values.configure) {
    const { configureFakeProvider } = await import("./ai-provider-config");
    await configureFakeProvider(fake.openaiEndpoint);
  }
  console.log(`测试 AI 服务已启动：${fake.url}

OpenAI 兼容接口  endpoint ${fake.openaiEndpoint}
Gemini 接口      endpoint ${fake.geminiEndpoint}
API Key 任意（"${BAD_KEY}" 会得到"密钥无效"），模型名任意，例如 inkstone-fake。

让网站使用它：在管理后台 /admin/settings/api 新增一个配置（提供商 openai，填上面的
endpoint），设为默认；或者先停掉开发服务器（PGlite 不能被两个进程同时打开），运行
  npm run dev:ai -- --configure
它会写入名为"测试 AI 服务"的 api_configs 记录并设为 default_api_provider。

特殊模型名：replay:<provider-streams 里的文件名>、status:429、forever、stall、disconnect、slow、html。
按 Ctrl+C 退出。`);
  const stop = async () => {
    await fake.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
