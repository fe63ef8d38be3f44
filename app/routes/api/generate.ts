import { startGeneration } from "~/server/ai/generation.server";
import { generationEventStream, postOnly, readStreamRequest, startFailure } from "~/server/ai/generation-stream.server";
import { generateSchema, WRITING_MESSAGES } from "~/schemas/writing";
import type { Route } from "./+types/generate";

/**
 * POST /api/generate: generates the selected plot's text and streams it back as
 * Server-Sent Events while it arrives (docs/product.md D7). Form fields: projectId, plotId,
 * and optionally theme and content (what the page shows, saved first if changed).
 *
 *   event: start  data: {"model","promptTokens","balance"}       once the provider answered
 *   event: text   data: "<JSON string>"                          each piece, as it arrives
 *   event: done   data: {"reason","charged","promptTokens","outputTokens","outputChars","balance","versionId","notice"?}
 *   event: error  data: {"message"}                              the provider failed mid-stream
 *
 * Anything that fails before the first byte (login, docs/product.md's preconditions, prompt,
 * configuration, balance, the provider's refusal) is a JSON `{ error }` with its status
 * (generation-stream.server.ts). Without JavaScript the page's own form action runs the
 * same generation.
 */

/** The plot text (200,000 characters) and the overall setting, in UTF-8, with room to spare. */
const MAX_BODY_BYTES = 1_500_000;

export const loader = postOnly;

export async function action({ request }: Route.ActionArgs) {
  const read = await readStreamRequest(request, {
    schema: generateSchema,
    maxBytes: MAX_BODY_BYTES,
    notFound: (issue) => issue.path[0] === "projectId",
    fallback: WRITING_MESSAGES.projectMissing,
  });
  if (read instanceof Response) return read;
  try {
    return generationEventStream(await startGeneration({ sessionId: read.sessionId }, read.data, request.signal));
  } catch (error) {
    return startFailure(error, request);
  }
}
