import { readableChapterId } from "~/server/community/comments.server";
import { liveEventStream } from "~/server/platform/events.server";
import { getSessionUser } from "~/server/identity/session.server";
import type { Route } from "./+types/events";

/**
 * GET /api/events: live updates as Server-Sent Events (docs/product.md D9): changes to the
 * site's configuration for every visitor, and the signed-in user's own changes. A reader
 * page adds `?work=<id>&chapterId=<id>` to hear that chapter's comments too, if the viewer
 * may read them (decision 101); otherwise the stream goes on without them. `since=<ms>`,
 * the server time the page's data was read (the shell's `loadedAt`), has what changed
 * since then sent as soon as the stream is subscribed (decision 145).
 * Heartbeats keep proxies from closing an idle stream; closing the tab aborts the
 * request, which unsubscribes. server.js does not compress text/event-stream, so each
 * event is written out as it happens.
 */
export async function loader({ request, url }: Route.LoaderArgs) {
  const user = await getSessionUser(request);
  const workId = Number(url.searchParams.get("work"));
  const chapterId = Number(url.searchParams.get("chapterId"));
  const commentsOf = url.searchParams.has("chapterId") ? await readableChapterId(user, workId, chapterId).catch(() => null) : null;
  const since = Number(url.searchParams.get("since"));
  return new Response(
    liveEventStream(user?.id ?? null, request.signal, { commentsOf, since: Number.isSafeInteger(since) && since > 0 ? since : null }),
    {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-transform",
        "X-Accel-Buffering": "no",
      },
    },
  );
}
