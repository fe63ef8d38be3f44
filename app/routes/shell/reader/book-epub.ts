import { downloadHeaders } from "~/server/platform/download.server";
import { exportReaderEpub } from "~/server/reading/book-epub.server";
import { toResponse } from "~/server/platform/errors.server";
import { userContext } from "~/middleware/guards.server";
import type { Route } from "./+types/book-epub";

/**
 * GET /works/:id/book.epub: a reader's EPUB of a free work or one they bought
 * (docs/decisions/123). Inside the signed-in layout: a visitor is sent to sign in first,
 * since the copy carries its reader's id. Refusals are plain-text 403/404, never a file.
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : 0;
  try {
    const file = await exportReaderEpub(user, id, request.signal);
    return new Response(file.body, { headers: downloadHeaders(file.filename, file.asciiFilename, file.contentType) });
  } catch (error) {
    return toResponse(error);
  }
}
