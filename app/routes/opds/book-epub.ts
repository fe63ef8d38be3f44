import { opdsReaderContext } from "~/middleware/guards.server";
import { downloadHeaders } from "~/server/platform/download.server";
import { toResponse } from "~/server/platform/errors.server";
import { exportReaderEpub } from "~/server/reading/book-epub.server";
import type { Route } from "./+types/book-epub";

/**
 * GET /opds/:token/works/:id/book.epub: the feed's acquisition link, the same copy as
 * /works/:id/book.epub (exportReaderEpub, decision 123) for the token's reader. A work they
 * may no longer read is a plain-text 403/404, never a file.
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const reader = context.get(opdsReaderContext);
  const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : 0;
  try {
    const file = await exportReaderEpub(reader, id, request.signal);
    return new Response(file.body, { headers: downloadHeaders(file.filename, file.asciiFilename, file.contentType) });
  } catch (error) {
    return toResponse(error);
  }
}
