import { downloadHeaders } from "~/server/platform/download.server";
import { exportWorkTxt } from "~/server/admin/exports/work-txt.server";
import { toResponse } from "~/server/platform/errors.server";
import { recordExport } from "~/middleware/admin-actor.server";
import type { Route } from "./+types/work-txt";

/** GET /exports/works/:id/txt: the work as a TXT that re-imports into the same chapters. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  try {
    const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : 0;
    const txt = await exportWorkTxt(id);
    await recordExport(context, "export.work-txt", txt.workId);
    return new Response(txt.body, {
      headers: downloadHeaders(txt.filename, `work-${txt.workId}.txt`, "text/plain; charset=utf-8"),
    });
  } catch (error) {
    return toResponse(error);
  }
}
