import { databaseZipStream } from "~/server/admin/exports/database-zip.server";
import { downloadHeaders } from "~/server/platform/download.server";
import { recordExport } from "~/middleware/admin-actor.server";
import { exportAccessContext } from "~/middleware/guards.server";
import type { Route } from "./+types/database";

/**
 * GET /exports/database.zip: the whole database, streamed as it is read (docs/product.md D8).
 * For scripts (`curl -fOJ -H "Authorization: Bearer ..."`) and browsers without
 * JavaScript; the export page with JavaScript uses /exports/database/progress.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const access = context.get(exportAccessContext);
  console.info(`database export started by admin ${access.adminId} (${access.via})`);
  await recordExport(context, "export.database");
  return new Response(databaseZipStream(request.signal), {
    headers: downloadHeaders("database.zip", "database.zip", "application/zip"),
  });
}
