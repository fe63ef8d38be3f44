import { createParser, type EventSourceParser } from "eventsource-parser";
import { AiError, errorFromPayload, unreadable } from "./ai-errors.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";

export type WireFormat = "openai" | "gemini";

/**
 * The tokens a provider reports it used for one answer (docs/product.md D15): OpenAI's
 * `usage` (prompt_tokens, completion_tokens), Gemini's `usageMetadata` (promptTokenCount,
 * candidatesTokenCount plus thoughtsTokenCount, which Gemini bills as output).
 */
export interface ReportedUsage {
  inputTokens: number;
  outputTokens: number;
}

/** One parsed event of a provider stream: the text it adds, whether it ends the stream, its usage. */
interface EventText {
  text: string;
  done?: boolean;
  usage?: ReportedUsage;
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/**
 * OpenAI-compatible usage: on a last chunk with `choices: []`, or (DeepSeek style) on the
 * last chunk that still has a choice; `usage: null` elsewhere.
 */
function openaiUsage(json: Record<string, unknown>): ReportedUsage | undefined {
  const usage = json.usage;
  if (!isObject(usage) || !isCount(usage.prompt_tokens) || !isCount(usage.completion_tokens)) return undefined;
  return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens };
}

/**
 * Gemini usage: early events carry only promptTokenCount (and it may change by the last
 * one), so only an event with candidatesTokenCount counts as the answer's usage.
 */
function geminiUsage(json: Record<string, unknown>): ReportedUsage | undefined {
  const usage = json.usageMetadata;
  if (!isObject(usage) || !isCount(usage.promptTokenCount) || !isCount(usage.candidatesTokenCount)) return undefined;
  const thoughts = isCount(usage.thoughtsTokenCount) ? usage.thoughtsTokenCount : 0;
  return { inputTokens: usage.promptTokenCount, outputTokens: usage.candidatesTokenCount + thoughts };
}

/** The usage a provider response reports, if any. */
function reportedUsage(format: WireFormat, json: unknown): ReportedUsage | undefined {
  if (!isObject(json)) return undefined;
  return format === "openai" ? openaiUsage(json) : geminiUsage(json);
}

const MAX_EVENT_CHARS = 1_000_000;
const MAX_JSON_BODY_CHARS = 5_000_000;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** OpenAI-compatible chunk: choices[index 0].delta.content (absent or empty adds nothing). */
function openaiChunkText(json: unknown): string {
  if (!isObject(json)) return "";
  if (json.error) throw errorFromPayload(json.error);
  const choices = Array.isArray(json.choices) ? json.choices : [];
  const first = choices.find((c) => isObject(c) && (c.index === 0 || c.index === undefined));
  if (!isObject(first)) return "";
  const delta = isObject(first.delta) ? first.delta : isObject(first.message) ? first.message : null;
  return delta && typeof delta.content === "string" ? delta.content : "";
}

/**
 * Gemini response: candidates[0].content.parts[].text joined, thoughts left out. A
 * response blocked by the safety filter has promptFeedback.blockReason and no candidates.
 */
function geminiResponseText(json: unknown): string {
  if (!isObject(json)) return "";
  if (json.error) throw errorFromPayload(json.error);
  const candidates = Array.isArray(json.candidates) ? json.candidates : [];
  const first = candidates[0];
  if (!isObject(first)) {
    const feedback = isObject(json.promptFeedback) ? json.promptFeedback : null;
    if (feedback && typeof feedback.blockReason === "string") {
      throw new AiError(AI_MESSAGES.blocked(feedback.blockReason), "blocked");
    }
    return "";
  }
  const content = isObject(first.content) ? first.content : null;
  const parts = content && Array.isArray(content.parts) ? content.parts : [];
  return parts
    .filter((p): p is Record<string, unknown> => isObject(p) && p.thought !== true && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("");
}

/** A non-streamed OpenAI-compatible answer: choices[0].message.content. */
function openaiResponseText(json: unknown): string {
  if (!isObject(json)) return "";
  if (json.error) throw errorFromPayload(json.error);
  const choices = Array.isArray(json.choices) ? json.choices : [];
  const first = choices[0];
  if (!isObject(first) || !isObject(first.message)) return "";
  return typeof first.message.content === "string" ? first.message.content : "";
}

function eventText(format: WireFormat, data: string): EventText | null {
  if (format === "openai" && data.trim() === "[DONE]") return { text: "", done: true };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  return { text: format === "openai" ? openaiChunkText(json) : geminiResponseText(json), usage: reportedUsage(format, json) };
}

/**
 * Turns the bytes of a provider's streamed answer into text deltas. Bytes may be split
 * anywhere, inside a line or inside a multi-byte character: a streaming TextDecoder puts
 * characters back together and eventsource-parser puts events back together (comments,
 * keep-alives, `data:` without a space, CR, LF and CRLF line ends).
 *
 * A body that is not SSE at all is recognised by its first character: `{` or `[` is a
 * JSON body (an error reported with a 200 or with `text/event-stream`, or a server that
 * ignored `stream`), `<` is an HTML page. Malformed events are skipped; a stream in which
 * no event could be read is unreadable.
 */
export class StreamTextDecoder {
  private readonly decoder = new TextDecoder("utf-8");
  private readonly parser: EventSourceParser;
  private mode: "sniff" | "sse" | "json" = "sniff";
  private sniffed = "";
  private json = "";
  private pending: string[] = [];
  private failure: Error | null = null;
  /** Events that parsed (with or without text). */
  eventsSeen = 0;
  malformed = 0;
  /** [DONE] arrived: whatever follows is ignored. */
  done = false;
  /** The last usage the provider reported (the answer's, once the stream has ended). */
  usage: ReportedUsage | null = null;

  constructor(readonly format: WireFormat) {
    this.parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (event) => this.onEvent(event.data),
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") this.failure = unreadable("event too large");
        else this.malformed += 1;
      },
    });
  }

  private onEvent(data: string) {
    if (this.done || this.failure) return;
    let parsed: EventText | null;
    try {
      parsed = eventText(this.format, data);
    } catch (error) {
      this.failure = error as Error;
      return;
    }
    if (!parsed) {
      this.malformed += 1;
      return;
    }
    this.eventsSeen += 1;
    if (parsed.usage) this.usage = parsed.usage;
    if (parsed.text) this.pending.push(parsed.text);
    if (parsed.done) this.done = true;
  }

  private take(): string[] {
    if (this.failure) throw this.failure;
    const out = this.pending;
    this.pending = [];
    return out;
  }

  private feedText(text: string) {
    if (!text || this.done) return;
    if (this.mode === "sniff") {
      this.sniffed += text;
      const start = this.sniffed.replace(/^\uFEFF/, "").trimStart();
      if (!start) return;
      const first = start[0];
      if (first === "<") throw unreadable(`HTML body: ${start.slice(0, 80)}`);
      this.mode = first === "{" || first === "[" ? "json" : "sse";
      text = this.sniffed;
      this.sniffed = "";
    }
    if (this.mode === "json") {
      this.json += text;
      if (this.json.length > MAX_JSON_BODY_CHARS) throw unreadable("JSON body too large");
      return;
    }
    this.parser.feed(text);
  }

  /** The text deltas completed by these bytes. Throws an AiError for an error event. */
  push(bytes: Uint8Array): string[] {
    this.feedText(this.decoder.decode(bytes, { stream: true }));
    return this.take();
  }

  /** The end of the body: flushes what is left and checks the body made sense. */
  end(): string[] {
    this.feedText(this.decoder.decode());
    if (this.mode === "json") return this.endJson();
    // A last event without its blank line still counts.
    if (this.mode === "sse" && !this.done) this.parser.feed("\n\n");
    const out = this.take();
    if (this.eventsSeen === 0) throw unreadable(this.mode === "sniff" ? "empty body" : "no readable event");
    return out;
  }

  private endJson(): string[] {
    let json: unknown;
    try {
      json = JSON.parse(this.json);
    } catch {
      throw unreadable(`not SSE, not JSON: ${this.json.slice(0, 80)}`);
    }
    // Gemini without alt=sse answers a JSON array of responses.
    const items = Array.isArray(json) ? json : [json];
    const texts = items.map((item) => {
      if (isObject(item) && item.error) throw errorFromPayload(item.error);
      this.usage = reportedUsage(this.format, item) ?? this.usage;
      return this.format === "openai" ? openaiResponseText(item) : geminiResponseText(item);
    });
    this.eventsSeen = items.length;
    if (!items.some((item) => isObject(item) && (Array.isArray(item.choices) || Array.isArray(item.candidates)))) {
      throw unreadable("JSON body without choices or candidates");
    }
    return texts.filter(Boolean);
  }
}
