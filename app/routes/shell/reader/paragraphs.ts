import { commentCounts } from "~/server/community/comments.server";
import { toResponse } from "~/server/platform/errors.server";
import { parseChapterOrder, parseFrom, READER_MESSAGES, readChapter } from "~/server/reading/reader.server";
import { getSessionUser } from "~/server/identity/session.server";
import type { Route } from "./+types/paragraphs";

/**
 * GET /works/:id/paragraphs?chapter=<order>&from=<index>: the next batch of a chapter
 * for the reader's progressive loading; `&before=<index>` instead: the batch that ends
 * just before it (scrolling up from a resumed position). The same gates as the page (readChapter): a
 * paid work's text reaches only its owner and buyers.
 */
export async function loader({ request, url, params }: Route.LoaderArgs) {
  const order = parseChapterOrder(url.searchParams.get("chapter"));
  if (order === null) return Response.json({ error: READER_MESSAGES.chapterMissing }, { status: 404 });
  try {
    const viewer = await getSessionUser(request);
    const before = url.searchParams.get("before");
    const { batch, chapter } = await readChapter(
      Number(params.id),
      viewer,
      order,
      parseFrom(before ?? url.searchParams.get("from")),
      before === null ? "after" : "before",
    );
    // The batch's 段评 counts travel with it (decision 101).
    const comments = await commentCounts(chapter.id, { from: batch.from, to: batch.from + batch.paragraphs.length });
    return Response.json({ ...batch, comments }, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    // A refusal in the reader's JSON; anything else is for entry.server's handleError.
    return toResponse(error, "json");
  }
}
