import http from "node:http";
import https from "node:https";
import { AiError, errorForStatus, networkError } from "./ai-errors.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { StreamTextDecoder, type ReportedUsage, type WireFormat } from "./sse.server";
import { aiTimings, backoffMs, type AiTimings } from "./timings.server";

/** The caller (the browser's request) went away; nothing is reported to anyone. */
export class CallAbortedError extends Error {
  constructor() {
    super("aborted by the caller");
    this.name = "CallAbortedError";
  }
}

const MAX_ERROR_BODY = 64 * 1024;
const MAX_COMPLETE_BODY = 5 * 1024 * 1024;

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CallAbortedError());
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(new CallAbortedError());
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A provider's answer as node:http gives it. The provider is called with node:http, not
 * fetch: fetch's Request, Headers and web streams cost about 2 ms of CPU per call here,
 * several times the whole HTTP exchange, and every generation makes one before its
 * first byte (docs/benchmarks.md, Streaming). Redirects are not followed (a 3xx is an
 * error like any other status), and no compression is asked for.
 */
interface UpstreamResponse {
  status: number;
  ok: boolean;
  /** The body's chunks; rejects when the connection fails or the call is aborted. */
  body: AsyncIterator<Buffer>;
}

/** POSTs `body`; resolves with the response head, rejects when the connection fails or `signal` aborts. */
function post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch (error) {
      return reject(error);
    }
    const client = target.protocol === "https:" ? https : target.protocol === "http:" ? http : null;
    if (!client) return reject(new TypeError(`unsupported protocol ${target.protocol}`));
    if (signal.aborted) return reject(new Error("aborted"));
    const payload = Buffer.from(body);
    const request = client.request(
      target,
      { method: "POST", headers: { "User-Agent": "inkstone", ...headers, "Content-Length": String(payload.length) } },
      (response) => {
        // Failures reach the reader through the iterator; nobody may be reading then.
        response.on("error", () => {});
        const status = response.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, body: response[Symbol.asyncIterator]() });
      },
    );
    // Destroying the request ends the response too (its iterator rejects); once the
    // response was read to the end it is a no-op, so a reused connection is safe.
    const onAbort = () => request.destroy();
    signal.addEventListener("abort", onAbort, { once: true });
    request.on("close", () => {
      signal.removeEventListener("abort", onAbort);
      reject(new Error("connection closed")); // no-op once the answer came
    });
    request.on("error", reject);
    request.end(payload);
  });
}

/** Reads at most `limit` bytes of a body as text (error bodies, non-streamed answers). */
async function readText(response: UpstreamResponse, limit: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for (;;) {
    const { done, value } = await response.body.next();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await response.body.return?.();
      throw new AiError(AI_MESSAGES.unreadable, "unreadable", response.status, "body too large");
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * One call with its own abort controller (the caller's signal and our timers both end
 * it). `timedOut` says which timer fired, so a timeout is told apart from the caller
 * leaving and from the network failing.
 */
class Call {
  readonly controller = new AbortController();
  timedOut: "first-byte" | "idle" | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onCallerAbort = () => {
    // The timers only tell a timeout apart from the caller leaving: not needed any more.
    this.disarm();
    this.controller.abort();
  };

  constructor(private readonly callerSignal: AbortSignal | undefined) {
    callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
  }

  arm(kind: "first-byte" | "idle", ms: number) {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timedOut = kind;
      this.controller.abort();
    }, ms);
  }

  disarm() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The error to report for a failure of fetch or of a body read. */
  failure(error: unknown): Error {
    if (this.callerSignal?.aborted) return new CallAbortedError();
    if (this.timedOut === "first-byte") return new AiError(AI_MESSAGES.firstByteTimeout, "first-byte-timeout");
    if (this.timedOut === "idle") return new AiError(AI_MESSAGES.idleTimeout, "idle-timeout");
    if (error instanceof AiError) return error;
    return networkError(error);
  }

  end() {
    this.disarm();
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
    // Closes the upstream connection if the body was not read to the end.
    this.controller.abort();
  }
}

/**
 * POSTs to the provider and returns the OK response, retrying (docs/product.md D7) only when
 * the connection fails or the answer is 5xx: up to `attempts` in all, with backoff.
 * Nothing has been streamed at that point, so a retry can never duplicate text. Other
 * statuses map to docs/product.md's messages at once. The call's first-byte (or, for a
 * non-streamed call, whole-answer) timer keeps running for the caller.
 */
async function open(request: UpstreamRequest, signal: AbortSignal | undefined, streamed: boolean, timings: AiTimings) {
  for (let attempt = 1; ; attempt++) {
    const call = new Call(signal);
    call.arm("first-byte", streamed ? timings.firstByteMs : timings.completeMs);
    let response: UpstreamResponse;
    try {
      response = await post(
        request.url,
        { "Content-Type": "application/json", ...request.headers },
        JSON.stringify(request.body),
        call.controller.signal,
      );
    } catch (error) {
      call.end();
      const failure = call.failure(error);
      if (failure instanceof AiError && failure.kind === "network" && attempt < timings.attempts) {
        await sleep(backoffMs(attempt, timings), signal);
        continue;
      }
      throw failure;
    }
    if (response.ok) return { call, response };
    let body = "";
    try {
      body = await readText(response, MAX_ERROR_BODY);
    } catch (error) {
      const failure = call.failure(error);
      if (!(failure instanceof AiError && failure.kind === "network")) {
        call.end();
        throw failure;
      }
    }
    call.end();
    if (response.status >= 500 && attempt < timings.attempts) {
      await sleep(backoffMs(attempt, timings), signal);
      continue;
    }
    const error = errorForStatus(response.status, body);
    console.error("AI provider answered", response.status, error.detail);
    throw error;
  }
}

/**
 * A streamed answer's text, and the usage the provider reported (null until a usage event
 * arrived; read it after the stream has ended: docs/product.md D15).
 */
export type TextStream = AsyncGenerator<string, void, undefined> & { readonly usage: ReportedUsage | null };

/** Gives `generator` a `usage` read from `usage()`. */
export function withUsage(generator: AsyncGenerator<string, void, undefined>, usage: () => ReportedUsage | null): TextStream {
  return Object.defineProperty(generator, "usage", { get: usage, enumerable: true }) as TextStream;
}

/**
 * Opens a streamed completion. Resolves when the provider has answered OK (so a failure
 * before any text is an ordinary rejected promise); the generator then yields text as
 * the bytes arrive, until the stream ends, [DONE], an error, a timeout, or `return()`
 * (which closes the upstream connection).
 */
export async function streamText(
  format: WireFormat,
  request: UpstreamRequest,
  signal?: AbortSignal,
  timings: AiTimings = aiTimings,
): Promise<TextStream> {
  const { call, response } = await open(request, signal, true, timings);
  const decoder = new StreamTextDecoder(format);
  const generator = (async function* read() {
    const reader = response.body;
    let first = true;
    try {
      while (!decoder.done) {
        if (!first) call.arm("idle", timings.idleMs);
        let result: IteratorResult<Buffer>;
        try {
          result = await reader.next();
        } catch (error) {
          throw call.failure(error);
        }
        call.disarm();
        if (result.done) break;
        first = false;
        const texts = decoder.push(result.value);
        if (texts.length > 0) yield texts.length === 1 ? texts[0] : texts.join("");
      }
      const rest = decoder.end();
      if (rest.length > 0) yield rest.join("");
    } finally {
      call.end();
    }
  })();
  return withUsage(generator, () => decoder.usage);
}

/** A non-streamed answer: its text and the usage the provider reported (null when none). */
export interface CompletedText {
  text: string;
  usage: ReportedUsage | null;
}

/** A non-streamed completion (analysis): the whole answer's text and usage. */
export async function completeText(
  format: WireFormat,
  request: UpstreamRequest,
  signal?: AbortSignal,
  timings: AiTimings = aiTimings,
): Promise<CompletedText> {
  const { call, response } = await open(request, signal, false, timings);
  try {
    let body: string;
    try {
      body = await readText(response, MAX_COMPLETE_BODY);
    } catch (error) {
      throw call.failure(error);
    }
    const decoder = new StreamTextDecoder(format);
    const texts = decoder.push(new TextEncoder().encode(body));
    const text = [...texts, ...decoder.end()].join("");
    return { text, usage: decoder.usage };
  } finally {
    call.end();
  }
}
