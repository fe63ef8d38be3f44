import { isSameOriginPost } from "~/server/csrf.server";
import { generationErrorResponse, startGeneration } from "~/server/ai/generation.server";
import { generateSchema, WRITING_MESSAGES } from "~/schemas/writing";
import { DomainError } from "~/server/errors.server";
import { readFormData } from "~/server/form-data.server";
import { generationEventStream } from "~/server/ai/generation-stream.server";
import { getSessionUser, readSessionId } from "~/server/session.server";
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
 * Anything that fails before the first byte (login, section 5's preconditions, prompt,
 * configuration, balance, the provider's refusal) is a JSON `{ error }` with its status.
 * server.js does not compress text/event-stream, so each event leaves at once; a closed
 * tab aborts the request, which aborts the upstream call and settles what was sent.
 * Without JavaScript the page's own form action runs the same generation.
 */
const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json; charset=utf-8" } });

/** The plot text (200,000 characters) and the overall setting, in UTF-8, with room to spare. */
const MAX_BODY_BYTES = 1_500_000;

export async function loader() {
  return json({ error: "请使用 POST" }, 405);
}

export async function action({ request }: Route.ActionArgs) {
  if (request.method !== "POST") return json({ error: "请使用 POST" }, 405);
  if (!isSameOriginPost(request)) return json({ error: "请求来源无效" }, 403);
  // The signed cookie is read while the body is read; the session itself is looked up
  // in the statement that reads the project (startGeneration). Its answer still comes
  // first: 请先登录 before any other message.
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
  if (!sessionId) return needLogin();
  const parsed = generateSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    if (!(await getSessionUser(request))) return needLogin();
    const issue = parsed.error.issues[0];
    return json({ error: issue?.message ?? WRITING_MESSAGES.projectMissing }, issue?.path[0] === "projectId" ? 404 : 400);
  }

  let generation;
  try {
    generation = await startGeneration({ sessionId }, parsed.data, request.signal);
  } catch (error) {
    if (request.signal.aborted) return new Response(null, { status: 499 });
    const { message, status } = generationErrorResponse(error);
    return json({ error: message }, status);
  }

  return generationEventStream(generation);
}
