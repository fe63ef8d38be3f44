import { jsonAnswer, postOnly, readStreamRequest, serverSentEvents, startFailure } from "~/server/ai/generation-stream.server";
import { OperationSubmitted, startOperation, type OperationEvent } from "~/server/ai/operations.server";
import { operationSchema, WRITING_MESSAGES } from "~/schemas/writing";
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

/** The plot text (200,000 characters) in UTF-8, with room to spare. */
const MAX_BODY_BYTES = 1_000_000;

export const loader = postOnly;

export async function action({ request }: Route.ActionArgs) {
  const read = await readStreamRequest(request, {
    schema: operationSchema,
    maxBytes: MAX_BODY_BYTES,
    notFound: (issue) => issue.path[0] === "projectId" || issue.message === WRITING_MESSAGES.plotMissing,
    fallback: WRITING_MESSAGES.projectMissing,
  });
  if (read instanceof Response) return read;
  let operation;
  try {
    operation = await startOperation({ sessionId: read.sessionId }, read.data, request.signal);
  } catch (error) {
    if (error instanceof OperationSubmitted) return jsonAnswer({ error: error.message, operationId: error.operationId }, 409);
    return startFailure(error, request);
  }
  return serverSentEvents({
    abort: () => operation.abort(),
    run: async (send) => {
      send("start", operation.info);
      try {
        send("end", await operation.run(({ event, ...data }: OperationEvent) => send(event, data)));
      } catch {
        send("end", {});
      }
    },
  });
}
