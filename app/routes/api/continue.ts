import { isSameOriginPost } from "~/server/csrf.server";
import { generationErrorResponse } from "~/server/ai/generation.server";
import { generationEventStream } from "~/server/ai/generation-stream.server";
import { continueSchema, SERIES_MESSAGES } from "~/schemas/series";
import { WRITING_MESSAGES } from "~/schemas/writing";
import { DomainError } from "~/server/errors.server";
import { readFormData } from "~/server/form-data.server";
import { getSessionUser } from "~/server/session.server";
import { ContinuationSubmitted, startContinuation } from "~/server/studio/continuation.server";
import type { Route } from "./+types/continue";

/**
 * POST /api/continue: 生成下一章 of /series-writing (docs/product.md#series-continuation,
 * decision 141), streamed as /api/generate streams (generationEventStream), its `start`
 * event adding the chapter number. Fields: continueSchema (workId, chapter, plan,
 * requestKey). Anything that fails before the first byte is a JSON `{ error }` with its
 * status; a request key used before is a 409 `{ error, text? }` and starts nothing.
 */
const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json; charset=utf-8" } });

/** The plan (5,000 characters) in UTF-8, with room to spare. */
const MAX_BODY_BYTES = 200_000;

export async function loader() {
  return json({ error: "请使用 POST" }, 405);
}

export async function action({ request }: Route.ActionArgs) {
  if (request.method !== "POST") return json({ error: "请使用 POST" }, 405);
  if (!isSameOriginPost(request)) return json({ error: "请求来源无效" }, 403);
  const user = await getSessionUser(request);
  if (!user) return json({ error: WRITING_MESSAGES.needLogin }, 401);
  let form: FormData;
  try {
    form = await readFormData(request, MAX_BODY_BYTES, "请求内容过大");
  } catch (error) {
    if (error instanceof DomainError) return json({ error: error.message }, error.status);
    throw error;
  }
  const parsed = continueSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return json({ error: issue?.message ?? SERIES_MESSAGES.workMissing }, issue?.path[0] === "workId" ? 404 : 400);
  }

  let started;
  try {
    started = await startContinuation(user.id, parsed.data, request.signal);
  } catch (error) {
    if (error instanceof ContinuationSubmitted) {
      const result = error.result;
      return json({ error: error.message, ...(result.state === "done" ? { text: result.text, charged: result.charged } : {}) }, 409);
    }
    if (request.signal.aborted) return new Response(null, { status: 499 });
    const { message, status } = generationErrorResponse(error);
    return json({ error: message }, status);
  }
  return generationEventStream(started.generation, { chapter: started.chapter });
}
