import { downloadHeaders } from "~/server/platform/download.server";
import { exportUnusedCodesXlsx, UNUSED_CODES_NAME } from "~/server/admin/exports/xlsx.server";
import { toResponse } from "~/server/platform/errors.server";
import { recordExport } from "~/middleware/admin-actor.server";
import type { Route } from "./+types/unused-codes";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** GET /exports/redeem-codes/unused.xlsx: 未使用兑换码.xlsx, or 暂无未使用的兑换码 (404). */
export async function loader({ request, context }: Route.LoaderArgs) {
  try {
    const body = await exportUnusedCodesXlsx();
    await recordExport(context, "export.unused-codes");
    return new Response(body, { headers: downloadHeaders(`${UNUSED_CODES_NAME}.xlsx`, "unused-redeem-codes.xlsx", XLSX) });
  } catch (error) {
    return toResponse(error);
  }
}
