import { downloadHeaders } from "~/server/platform/download.server";
import { toResponse } from "~/server/platform/errors.server";
import { getSessionUser } from "~/server/identity/session.server";
import { exportOwnWorkEpub } from "~/server/studio/work-epub.server";
import { exportOwnWorkTxt } from "~/server/studio/author-export.server";
import type { Route } from "./+types/export";

/**
 * GET /works/:id/export.txt and /works/:id/export.epub (?drafts=1 adds 存稿 and 定时
 * chapters): the owner's own downloads (docs/product.md#author-studio, decision 098).
 * Outside the signed-in layout on purpose: a visitor gets the same 404 as everyone who is
 * not the owner, not a login redirect, so the address says nothing about the work.
 */
export async function loader({ request, params, url }: Route.LoaderArgs) {
  try {
    const user = await getSessionUser(request);
    const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : 0;
    const options = { drafts: url.searchParams.get("drafts") === "1" };
    const file = url.pathname.endsWith(".epub")
      ? await exportOwnWorkEpub(user?.id ?? null, id, options, request.signal)
      : await exportOwnWorkTxt(user?.id ?? null, id, options);
    return new Response(file.body, { headers: downloadHeaders(file.filename, file.asciiFilename, file.contentType) });
  } catch (error) {
    return toResponse(error);
  }
}
