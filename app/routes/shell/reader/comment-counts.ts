import { commentCountsFor } from "~/server/community/comments.server";
import { toResponse } from "~/server/platform/errors.server";
import { getSessionUser } from "~/server/identity/session.server";
import type { Route } from "./+types/comment-counts";

/**
 * GET /works/:id/comment-counts?chapterId=<id>[&from=<i>&to=<j>]: the chapter's 段评 counts
 * by paragraph (of paragraphs from..to-1, the ones the reader has loaded) and its 本章说
 * count, as JSON, for the reader's live refresh (decision 101). The same gates
 * as reading the chapter: a paid chapter's counts reach only its owner and buyers.
 */
export async function loader({ request, url, params }: Route.LoaderArgs) {
  try {
    const viewer = await getSessionUser(request);
    const from = Number(url.searchParams.get("from"));
    const to = Number(url.searchParams.get("to"));
    const range = Number.isSafeInteger(from) && Number.isSafeInteger(to) && url.searchParams.has("to") && from >= 0 && to > from ? { from, to } : undefined;
    const counts = await commentCountsFor(viewer, Number(params.id), Number(url.searchParams.get("chapterId")), range);
    return Response.json(counts, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    return toResponse(error, "json");
  }
}
