import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AiError, errorForStatus } from "~/server/ai/ai-errors.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { StreamTextDecoder, type WireFormat } from "~/server/ai/sse.server";
import { FIXTURES_DIR } from "../fakes/ai-provider";

interface FixtureEntry {
  file: string;
  sha256: string;
  http_status?: number;
  expected_text?: string;
  expected_usage?: Record<string, number> | null;
}
const index = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, "index.json"), "utf8")) as { files: FixtureEntry[] };
const bytesOf = (file: string) => new Uint8Array(fs.readFileSync(path.join(FIXTURES_DIR, file)));
const formatOf = (file: string): WireFormat => (file.startsWith("gemini") ? "gemini" : "openai");

/** A small seeded generator, so a failing split can be reproduced. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function splitRandomly(bytes: Uint8Array, seed: number, maxPiece: number): Uint8Array[] {
  const next = random(seed);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const size = 1 + Math.floor(next() * maxPiece);
    pieces.push(bytes.subarray(i, i + size));
    i += size;
  }
  return pieces;
}

function decode(format: WireFormat, pieces: Uint8Array[]): string {
  const decoder = new StreamTextDecoder(format);
  const out: string[] = [];
  for (const piece of pieces) out.push(...decoder.push(piece));
  out.push(...decoder.end());
  return out.join("");
}

function decodeError(format: WireFormat, body: string | Uint8Array): AiError {
  try {
    decode(format, [typeof body === "string" ? new TextEncoder().encode(body) : body]);
  } catch (error) {
    if (error instanceof AiError) return error;
    throw error;
  }
  throw new Error("expected an AiError");
}

const withText = index.files.filter((f) => f.expected_text !== undefined);

describe("recorded provider bodies", () => {
  it("are the bytes the index describes (no line-end rewriting on checkout)", () => {
    for (const entry of index.files) {
      const digest = createHash("sha256").update(bytesOf(entry.file)).digest("hex");
      expect(digest, entry.file).toBe(entry.sha256);
    }
  });

  it.each(withText.map((f) => [f.file, f] as const))("%s gives the expected text in one piece", (file, entry) => {
    expect(decode(formatOf(file), [bytesOf(file)])).toBe(entry.expected_text);
  });

  it.each(withText.map((f) => [f.file, f] as const))("%s gives the same text split one byte at a time", (file, entry) => {
    const bytes = bytesOf(file);
    const pieces = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    expect(decode(formatOf(file), pieces)).toBe(entry.expected_text);
  });

  it.each(withText.map((f) => [f.file, f] as const))("%s gives the same text under 200 random splits", (file, entry) => {
    const bytes = bytesOf(file);
    for (let seed = 1; seed <= 200; seed++) {
      const pieces = splitRandomly(bytes, seed, seed % 2 === 0 ? 7 : 97);
      expect(decode(formatOf(file), pieces), `seed ${seed}`).toBe(entry.expected_text);
    }
  });

  it("splits inside multi-byte characters of the Chinese and emoji stream are put back together", () => {
    const bytes = bytesOf("openai-stream-zh.txt");
    // Cut right after the first byte of every 3- and 4-byte sequence.
    const cuts: number[] = [];
    for (let i = 0; i < bytes.length; i++) if (bytes[i] >= 0xe0) cuts.push(i + 1);
    const pieces: Uint8Array[] = [];
    let start = 0;
    for (const cut of cuts) {
      pieces.push(bytes.subarray(start, cut));
      start = cut;
    }
    pieces.push(bytes.subarray(start));
    expect(decode("openai", pieces)).toBe("你好！我是一个AI助手。\n\n积分充值成功后，余额会自动更新😊");
  });
});

describe("the usage the recorded bodies report (docs/product.md D15)", () => {
  /** What the index says the answer used, in the decoder's terms (Gemini: candidates are the output). */
  function expectedUsage(entry: FixtureEntry) {
    const usage = entry.expected_usage;
    if (!usage) return null;
    return "prompt_tokens" in usage
      ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens }
      : { inputTokens: usage.promptTokenCount, outputTokens: usage.candidatesTokenCount };
  }
  const withUsage = withText.filter((f) => "expected_usage" in f || f.file.startsWith("openai-compat"));

  it.each(withUsage.map((f) => [f.file, f] as const))("%s: the last usage, whole and split at random", (file, entry) => {
    const bytes = bytesOf(file);
    for (const pieces of [[bytes], splitRandomly(bytes, 7, 5), splitRandomly(bytes, 11, 61)]) {
      const decoder = new StreamTextDecoder(formatOf(file));
      for (const piece of pieces) decoder.push(piece);
      decoder.end();
      expect(decoder.usage).toEqual(expectedUsage(entry));
    }
  });

  it("Gemini's early events (prompt count only) are not the answer's usage", () => {
    const decoder = new StreamTextDecoder("gemini");
    const text = bytesOf("gemini-stream-usage.txt");
    const firstEvent = text.subarray(0, new TextDecoder().decode(text).indexOf("\r\n\r\n") + 4);
    decoder.push(firstEvent);
    expect(decoder.usage).toBeNull();
  });

  it("a non-streamed answer's usage is read too, and a stream without one reports none", () => {
    const json = new StreamTextDecoder("openai");
    json.push(bytesOf("openai-nonstream.json"));
    json.end();
    expect(json.usage).toEqual({ inputTokens: 14, outputTokens: 37 });
    const none = new StreamTextDecoder("gemini");
    none.push(bytesOf("gemini-stream-zh.txt"));
    none.end();
    expect(none.usage).toBeNull();
  });
});

describe("recorded error bodies map to docs/product.md's messages", () => {
  it.each([
    ["openai-401.json", 401, AI_MESSAGES.invalidKey],
    ["openai-429.json", 429, AI_MESSAGES.rateLimited],
    ["openai-429-quota.json", 429, AI_MESSAGES.rateLimited],
    ["gemini-400-invalid-key.json", 400, AI_MESSAGES.invalidKey],
    ["gemini-401.json", 401, AI_MESSAGES.invalidKey],
    ["gemini-429.json", 429, AI_MESSAGES.rateLimited],
    ["gemini-404-stream-error.json", 404, "API请求失败(404)"],
  ])("%s (HTTP %i)", (file, status, message) => {
    expect(errorForStatus(status, fs.readFileSync(path.join(FIXTURES_DIR, file), "utf8")).message).toBe(message);
  });

  it("500 is the server error and any other status is reported with its number", () => {
    expect(errorForStatus(500).message).toBe("API服务器错误");
    expect(errorForStatus(503).message).toBe("API请求失败(503)");
    expect(errorForStatus(403).message).toBe("API请求失败(403)");
  });

  it("an error JSON sent as the body of a stream is detected and reported", () => {
    const body = fs.readFileSync(path.join(FIXTURES_DIR, "gemini-404-stream-error.json"), "utf8");
    expect(decodeError("gemini", body).message).toBe("API请求失败(404)");
    expect(decodeError("openai", fs.readFileSync(path.join(FIXTURES_DIR, "openai-401.json"))).message).toBe(AI_MESSAGES.invalidKey);
  });
});

describe("SSE edge cases", () => {
  const chunk = (content: string) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

  it("ignores comments and keep-alives, and stops at [DONE]", () => {
    const body = `: hello\n\n${chunk("甲")}: keep-alive\n\n${chunk("乙")}data: [DONE]\n\n${chunk("丙")}`;
    expect(decode("openai", [new TextEncoder().encode(body)])).toBe("甲乙");
  });

  it("accepts a last event without its blank line and a stream without [DONE]", () => {
    expect(decode("openai", [new TextEncoder().encode(chunk("甲") + chunk("乙").trimEnd())])).toBe("甲乙");
  });

  it("skips a malformed event and keeps going", () => {
    const body = `${chunk("甲")}data: {not json\n\n${chunk("乙")}`;
    expect(decode("openai", [new TextEncoder().encode(body)])).toBe("甲乙");
  });

  it("reads events separated by CR, CRLF and LF, with or without a space after data:", () => {
    const a = `data:${JSON.stringify({ choices: [{ index: 0, delta: { content: "一" } }] })}\r\r`;
    const b = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "二" } }] })}\r\n\r\n`;
    expect(decode("openai", [new TextEncoder().encode(a + b + chunk("三"))])).toBe("一二三");
  });

  it("takes only choice 0 and ignores chunks with no choices (usage)", () => {
    const other = `data: ${JSON.stringify({ choices: [{ index: 1, delta: { content: "X" } }] })}\n\n`;
    const usage = `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 1 } })}\n\n`;
    expect(decode("openai", [new TextEncoder().encode(chunk("甲") + other + usage)])).toBe("甲");
  });

  it("reports an error event in the middle of a stream", () => {
    const body = `${chunk("甲")}data: ${JSON.stringify({ error: { message: "overloaded", code: 500 } })}\n\n`;
    expect(decodeError("openai", body).message).toBe("API服务器错误");
  });

  it("joins all Gemini parts and leaves out thoughts", () => {
    const event = {
      candidates: [{ content: { parts: [{ text: "想一想", thought: true }, { text: "甲" }, { text: "乙" }] } }],
    };
    expect(decode("gemini", [new TextEncoder().encode(`data: ${JSON.stringify(event)}\n\n`)])).toBe("甲乙");
  });

  it("reports a Gemini answer blocked by its safety filter", () => {
    const event = { promptFeedback: { blockReason: "SAFETY" } };
    expect(decodeError("gemini", `data: ${JSON.stringify(event)}\n\n`).message).toBe(AI_MESSAGES.blocked("SAFETY"));
  });

  it("calls an HTML page, an empty body and a body of garbage unreadable", () => {
    expect(decodeError("openai", "<!doctype html><html>502</html>").message).toBe(AI_MESSAGES.unreadable);
    expect(decodeError("openai", "").message).toBe(AI_MESSAGES.unreadable);
    expect(decodeError("openai", "data: {oops\n\ndata: also not json\n\n").message).toBe(AI_MESSAGES.unreadable);
    expect(decodeError("gemini", "{\"candidates\": [").message).toBe(AI_MESSAGES.unreadable);
    expect(decodeError("openai", "{\"hello\": 1}").message).toBe(AI_MESSAGES.unreadable);
  });

  it("reads a non-streamed JSON answer sent to a streamed request", () => {
    expect(decode("openai", [bytesOf("openai-nonstream.json")])).toContain("I'm unable to provide real-time weather");
    // Gemini without alt=sse: a JSON array of responses.
    const array = `[${JSON.stringify({ candidates: [{ content: { parts: [{ text: "甲" }] } }] })},${JSON.stringify({ candidates: [{ content: { parts: [{ text: "乙" }] } }] })}]`;
    expect(decode("gemini", [new TextEncoder().encode(array)])).toBe("甲乙");
  });

  it("drops a byte order mark before the first event", () => {
    expect(decode("openai", [new TextEncoder().encode(`\uFEFF${chunk("甲")}`)])).toBe("甲");
  });
});
