import { liveEventStream } from "~/server/events.server";
import { getSessionUser } from "~/server/session.server";
import type { Route } from "./+types/events";

/**
 * GET /api/events: live updates as Server-Sent Events (docs/product.md D9): changes to the
 * site's configuration for every visitor, and the signed-in user's own changes.
 * Heartbeats keep proxies from closing an idle stream; closing the tab aborts the
 * request, which unsubscribes. server.js does not compress text/event-stream, so each
 * event is written out as it happens.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await getSessionUser(request);
  return new Response(liveEventStream(user?.id ?? null, request.signal), {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
