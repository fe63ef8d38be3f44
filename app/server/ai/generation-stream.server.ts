import type { z } from "zod";
import { isSameOriginPost } from "~/server/platform/csrf.server";
import { domainErrorOf, toResponse } from "~/server/platform/errors.server";
import { readFormData } from "~/server/platform/form-data.server";
import { onShutdown } from "~/server/platform/lifecycle.server";
import { generationStreams } from "~/server/platform/metrics.server";
import { getSessionUser, readSessionId } from "~/server/identity/session.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { WRITING_MESSAGES } from "~/schemas/writing";
import type { Generation } from "./generation.server";

/**
 * What the streaming AI endpoints (/api/generate, /api/operate, /api/continue) share:
 * reading the request before anything starts, answering a failure before the first byte
 * as JSON `{ error }` with its status, and the Server-Sent Events response itself.
 *
 * server.js does not compress text/event-stream, so each event leaves at once; a closed
 * tab cancels the stream, which aborts the upstream call and settles what was sent; a
 * server shutting down lets it run through its grace period, then stops it.
 */

export const jsonAnswer = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json; charset=utf-8" } });

/** The loader of a POST-only endpoint. */
export function postOnly() {
  return jsonAnswer({ error: "请使用 POST" }, 405);
}

/**
 * Reads a streaming endpoint's request: POST from this site, a body of at most `maxBytes`
 * (readFormData's checks), fields valid by `schema`. The session cookie is verified while
 * the body is read; the session itself is looked up by the domain function, in the
 * statement that reads what it needs, and only here when the request fails anyway, so
 * that 请先登录 comes before any other message. Answers the Response to send back
 * instead when the request cannot start: 405, 403, 401, 413, 400, or 404 for a field
 * `notFound` names (a missing project, plot or work).
 */
export async function readStreamRequest<S extends z.ZodType>(
  request: Request,
  options: { schema: S; maxBytes: number; notFound: (issue: z.core.$ZodIssue) => boolean; fallback: string },
): Promise<{ sessionId: string; data: z.output<S> } | Response> {
  if (request.method !== "POST") return postOnly();
  if (!isSameOriginPost(request)) return jsonAnswer({ error: "请求来源无效" }, 403);
  const cookieSession = readSessionId(request);
  cookieSession.catch(() => {}); // awaited below on every path
  const needLogin = () => jsonAnswer({ error: WRITING_MESSAGES.needLogin }, 401);
  let form: FormData;
  try {
    form = await readFormData(request, options.maxBytes, "请求内容过大");
  } catch (error) {
    if (!(await getSessionUser(request))) return needLogin();
    return toResponse(error, "json");
  }
  const sessionId = await cookieSession;
  if (!sessionId) return needLogin();
  const parsed = options.schema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    if (!(await getSessionUser(request))) return needLogin();
    const issue = parsed.error.issues[0];
    return jsonAnswer({ error: issue?.message ?? options.fallback }, issue && options.notFound(issue) ? 404 : 400);
  }
  return { sessionId, data: parsed.data };
}

/**
 * A generation that failed before its first byte, as its JSON answer (499: the tab left);
 * the unexpected too, as 生成失败，请重试 (500), since the page reads JSON here.
 */
export function startFailure(error: unknown, request: Request): Response {
  if (request.signal.aborted) return new Response(null, { status: 499 });
  return toResponse(domainErrorOf(error, AI_MESSAGES.generationFailed), "json");
}

const encoder = new TextEncoder();

type Send = (name: string, data: unknown) => void;

/**
 * Where server/request-handler.js finds a stream's writer for Node's response: the events
 * are written to the socket as they are made, not enqueued on a web stream that a Node
 * stream then reads (a promise, a queue and a copy per event, for twenty streams of five
 * hundred events each: docs/decisions/269-first-bytes.md). Elsewhere (tests, another
 * adapter) the Response's body is an ordinary web stream that runs the same task.
 */
const NODE_BODY = Symbol.for("inkstone.nodeBody");

/**
 * Once text is flowing, the Node writer sends what arrived within this many milliseconds in
 * one write (docs/decisions/275): a provider sends a chunk every few milliseconds, and a
 * socket write per chunk was the largest part of relaying. The `start` event, the first
 * text and the last events leave at once.
 */
const BATCH_MS = 16;

/** The part of Node's ServerResponse the writer uses. */
interface NodeResponse {
  write(chunk: string): unknown;
  end(): unknown;
  once(event: "close", listener: () => void): unknown;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
}

/**
 * A Server-Sent Events response for one running task: `run` sends its events and resolves
 * when it is over; `abort` stops it (the reader went away, or the server's shutdown
 * deadline passed: what was sent is settled and saved). The task starts at once, whoever
 * reads the body and whether anyone does; its events wait in a list until the first
 * reader (the web stream or the Node writer) takes them.
 */
export function serverSentEvents(task: { run: (send: Send) => Promise<void>; abort: () => void }): Response {
  // Open until the task ends or the reader goes away: after that nothing may be written.
  let open = true;
  let ended = false;
  let waiting: string[] | null = [];
  let reader: { write: (text: string, batched: boolean) => void; close: () => void } | null = null;
  // Text after the first may wait a few milliseconds for the next (the Node writer's batches).
  let textSent = false;
  const attach = (to: NonNullable<typeof reader>): boolean => {
    if (reader) return false;
    reader = to;
    if (waiting!.length > 0) to.write(waiting!.join(""), false);
    waiting = null;
    if (ended) to.close();
    return true;
  };
  const goneAway = () => {
    if (!open) return;
    open = false;
    task.abort();
  };
  const send: Send = (name, data) => {
    if (!open) return;
    const text = `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
    const batched = name === "text" && textSent;
    if (name === "text") textSent = true;
    if (reader) reader.write(text, batched);
    else waiting!.push(text);
  };
  const offShutdown = onShutdown("deadline", () => task.abort());
  generationStreams.inc();
  task
    .run(send)
    .catch((error) => console.error("stream task failed", error))
    .finally(() => {
      offShutdown();
      generationStreams.dec();
      if (!open) return;
      open = false;
      ended = true;
      reader?.close();
    });
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        attach({
          write: (text) => controller.enqueue(encoder.encode(text)),
          close: () => {
            try {
              controller.close();
            } catch {
              // the reader already went away
            }
          },
        });
      },
      cancel: goneAway,
    },
    // Not pulled until a reader asks: the Node writer may take the events instead.
    { highWaterMark: 0 },
  );
  const response = new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
  Object.defineProperty(response, NODE_BODY, {
    value: (res: NodeResponse): boolean => {
      let batch = "";
      let timer: ReturnType<typeof setTimeout> | null = null;
      const flush = () => {
        if (timer) clearTimeout(timer);
        timer = null;
        if (batch && !res.destroyed) res.write(batch);
        batch = "";
      };
      const taken = attach({
        write: (text, batched) => {
          if (!batched) {
            batch += text;
            flush();
            return;
          }
          batch += text;
          timer ??= setTimeout(flush, BATCH_MS);
        },
        close: () => {
          flush();
          res.end();
        },
      });
      // A client that goes away before the end stops the task, as cancel() does.
      if (taken)
        res.once("close", () => {
          if (timer) clearTimeout(timer);
          if (!res.writableFinished) goneAway();
        });
      return taken;
    },
  });
  return response;
}

/**
 * One generation as Server-Sent Events (/api/generate, /api/continue):
 *
 *   event: start  data: the generation's info (model, promptTokens, balance) and `start`
 *   event: text   data: "<JSON string>"      each piece, as it arrives
 *   event: done   data: the result without its text (reason, charged, metering, balance, ...)
 *   event: error  data: {"message"}          the provider failed mid-stream (refunded)
 */
export function generationEventStream(
  generation: Generation,
  start: Record<string, unknown> = {},
  /** More for the `done` event, from the delivered text (连载续写's 套话 counts, decision 257). */
  doneExtra?: (text: string) => Record<string, unknown>,
): Response {
  return serverSentEvents({
    abort: () => generation.abort(),
    run: async (send) => {
      send("start", { ...generation.info, ...start });
      try {
        const { text, ...summary } = await generation.run((piece) => send("text", piece));
        send("done", { ...summary, ...doneExtra?.(text) });
      } catch (error) {
        send("error", { message: domainErrorOf(error, AI_MESSAGES.generationFailed).message });
      }
    },
  });
}
