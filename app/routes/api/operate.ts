import { isSameOriginPost } from "~/server/csrf.server";
import { generationErrorResponse } from "~/server/ai/generation.server";
import { OperationSubmitted, startOperation, type OperationEvent } from "~/server/ai/operations.server";
import { operationSchema, WRITING_MESSAGES } from "~/schemas/writing";
import { DomainError } from "~/server/errors.server";
import { readFormData } from "~/server/form-data.server";
import { onShutdown } from "~/server/lifecycle.server";
import { generationStreams } from "~/server/metrics.server";
import { getSessionUser, readSessionId } from "~/server/session.server";
import type { Route } from "./+types/operate";

/**
 * POST /api/operate: one operation on a plot's text (续写 at the cursor, 改写 / 扩写 / 缩写 /
 * 润色 on a selection, decision 130), its 1-3 candidates streamed together as Server-Sent
 * Events, each one metered generation (docs/product.md D15). Fields: operationSchema.
 *
 *   event: start  data: {"operationId","candidates":[{"index","model","promptTokens"}|{"index","error"}],"balance"}
 *   event: text   data: {"index","text"}                one candidate's next piece
 *   event: done   data: {"index","summary"}            that candidate settled (summary as /api/generate's done)
 *   event: error  data: {"index","message"}            that candidate failed (refunded)
 *   event: end    data: {"balance"}                    every candidate is over
 *
 * Anything that fails before the first byte is a JSON `{ error }` with its status; a
 * request key used before is a 409 `{ error, operationId }` and starts nothing. A closed
 * tab aborts every candidate, which are charged for what was sent.
 */
const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json; charset=utf-8" } });

/** The plot text (200,000 characters) in UTF-8, with room to spare. */
const MAX_BODY_BYTES = 1_000_000;

const encoder = new TextEncoder();
const event = (name: string, data: unknown) => encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

export async function loader() {
  return json({ error: "请使用 POST" }, 405);
}

export async function action({ request }: Route.ActionArgs) {
  if (request.method !== "POST") return json({ error: "请使用 POST" }, 405);
  if (!isSameOriginPost(request)) return json({ error: "请求来源无效" }, 403);
  const cookieSession = readSessionId(request);
  cookieSession.catch(() => {}); // awaited below on every path
  const needLogin = () => json({ error: WRITING_MESSAGES.needLogin }, 401);
  let form: FormData;
  try {
    form = await readFormData(request, MAX_BODY_BYTES, "请求内容过大");
  } catch (error) {
    if (!(await getSessionUser(request))) return needLogin();
    if (error instanceof DomainError) return json({ error: error.message }, error.status);
    throw error;
  }
  const sessionId = await cookieSession;
  if (!sessionId || !(await getSessionUser(request))) return needLogin();
  const parsed = operationSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const missing = issue?.path[0] === "projectId" || issue?.message === WRITING_MESSAGES.plotMissing;
    return json({ error: issue?.message ?? WRITING_MESSAGES.projectMissing }, missing ? 404 : 400);
  }

  let run;
  try {
    run = await startOperation({ sessionId }, parsed.data, request.signal);
  } catch (error) {
    if (error instanceof OperationSubmitted) return json({ error: error.message, operationId: error.operationId }, 409);
    if (request.signal.aborted) return new Response(null, { status: 499 });
    const { message, status } = generationErrorResponse(error);
    return json({ error: message }, status);
  }

  let open = true;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (chunk: Uint8Array) => {
        if (open) controller.enqueue(chunk);
      };
      send(event("start", run.info));
      const offShutdown = onShutdown("deadline", () => run.abort());
      generationStreams.inc();
      run
        .run(({ event: name, ...data }: OperationEvent) => send(event(name, data)))
        .then((end) => send(event("end", end)))
        .catch(() => send(event("end", {})))
        .finally(() => {
          offShutdown();
          generationStreams.dec();
          if (!open) return;
          open = false;
          try {
            controller.close();
          } catch {
            // the reader already went away
          }
        });
    },
    cancel() {
      open = false;
      run.abort();
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
