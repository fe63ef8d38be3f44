import { generationEventStream, jsonAnswer, postOnly, readStreamRequest, startFailure } from "~/server/ai/generation-stream.server";
import { continueSchema, SERIES_MESSAGES } from "~/schemas/series";
import { ContinuationSubmitted, startContinuation } from "~/server/studio/continuation.server";
import { countCliches } from "~/server/studio/voice.server";
import type { Route } from "./+types/continue";

/**
 * POST /api/continue: 生成下一章 of /series-writing (docs/product.md#series-continuation,
 * decision 141), streamed as /api/generate streams (generationEventStream), its `start`
 * event adding the chapter number. Fields: continueSchema (workId, chapter, plan,
 * requestKey). Anything that fails before the first byte is a JSON `{ error }` with its
 * status (generation-stream.server.ts); a request key used before is a 409
 * `{ error, text? }` and starts nothing.
 */

/** The plan (5,000 characters) in UTF-8, with room to spare. */
const MAX_BODY_BYTES = 200_000;

export const loader = postOnly;

export async function action({ request }: Route.ActionArgs) {
  const read = await readStreamRequest(request, {
    schema: continueSchema,
    maxBytes: MAX_BODY_BYTES,
    notFound: (issue) => issue.path[0] === "workId",
    fallback: SERIES_MESSAGES.workMissing,
  });
  if (read instanceof Response) return read;
  let started;
  try {
    // The session is looked up with the work, in one statement.
    started = await startContinuation({ sessionId: read.sessionId }, read.data, request.signal);
  } catch (error) {
    if (error instanceof ContinuationSubmitted) {
      const result = error.result;
      return jsonAnswer({ error: error.message, ...(result.state === "done" ? { text: result.text, charged: result.charged } : {}) }, 409);
    }
    return startFailure(error, request);
  }
  // `done` carries the 套话 counted in the delivered text (decision 257).
  const { cliches } = started;
  return generationEventStream(started.generation, { chapter: started.chapter }, (text) => ({ cliches: countCliches(text, cliches) }));
}
