import { commentCountsFor } from "~/server/comments.server";
import { DomainError } from "~/server/errors.server";
import { getSessionUser } from "~/server/session.server";
import type { Route } from "./+types/comment-counts";

/**
 * GET /works/:id/comment-counts?chapterId=<id>: the chapter's 段评 counts by paragraph and
 * its 本章说 count, as JSON, for the reader's live refresh (decision 101). The same gates
 * as reading the chapter: a paid chapter's counts reach only its owner and buyers.
 */
export async function loader({ request, url, params }: Route.LoaderArgs) {
  try {
    const viewer = await getSessionUser(request);
    const counts = await commentCountsFor(viewer, Number(params.id), Number(url.searchParams.get("chapterId")));
    return Response.json(counts, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    if (error instanceof DomainError) return Response.json({ error: error.message }, { status: error.status });
    throw error;
  }
}
