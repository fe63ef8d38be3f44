import { userEventStream } from "~/server/events.server";
import { getSessionUser } from "~/server/session.server";
import type { Route } from "./+types/events";

/**
 * GET /api/events: the signed-in user's live updates as Server-Sent Events (DECISIONS
 * D9). Heartbeats keep proxies from closing an idle stream; closing the tab aborts the
 * request, which unsubscribes. server.js does not compress text/event-stream, so each
 * event is written out as it happens.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await getSessionUser(request);
  if (!user) return new Response("请先登录", { status: 401, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return new Response(userEventStream(user.id, request.signal), {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
