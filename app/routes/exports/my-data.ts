import { userContext } from "~/middleware/guards.server";
import { exportPersonalData } from "~/server/identity/personal-data-export.server";
import { downloadHeaders } from "~/server/platform/download.server";
import { toResponse } from "~/server/platform/errors.server";
import type { Route } from "./+types/my-data";

/**
 * GET /exports/my-data.zip: 导出我的数据 (docs/product.md#my-data-export, decision 231). In the
 * signed-in layout (a visitor is sent to sign in first); the zip holds the session's
 * person's data only, whoever asks, streamed as it is written.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  try {
    const file = await exportPersonalData(user.id, request.signal);
    return new Response(file.body, { headers: downloadHeaders(file.filename, file.asciiFilename, "application/zip") });
  } catch (error) {
    return toResponse(error);
  }
}
