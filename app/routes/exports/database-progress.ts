import { databaseExportFrames } from "~/server/admin/exports/database-zip.server";
import { recordExport } from "~/middleware/admin-actor.server";
import { exportAccessContext } from "~/middleware/guards.server";
import type { Route } from "./+types/database-progress";

/**
 * GET /exports/database/progress: the same export as /exports/database.zip, framed with
 * progress (see databaseExportFrames), for the export page's progress bar.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const access = context.get(exportAccessContext);
  console.info(`database export (with progress) started by admin ${access.adminId} (${access.via})`);
  await recordExport(context, "export.database");
  return new Response(databaseExportFrames(request.signal), {
    headers: {
      "Content-Type": "application/octet-stream",
      "Cache-Control": "no-store, no-transform",
      "X-Content-Type-Options": "nosniff",
      // Proxies must pass the frames on as they come.
      "X-Accel-Buffering": "no",
    },
  });
}
