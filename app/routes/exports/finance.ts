import { exportFinance } from "~/server/admin/exports/finance.server";
import { downloadHeaders } from "~/server/platform/download.server";
import { DomainError, toResponse } from "~/server/platform/errors.server";
import { recordExport } from "~/middleware/admin-actor.server";
import { parseFinanceFormat, parseFinanceRange, parseFinanceReport } from "~/schemas/finance-export";
import type { Route } from "./+types/finance";

/**
 * GET /exports/finance?report=orders|refunds|payouts|author-income&from=yyyy-mm-dd&to=yyyy-mm-dd&format=xlsx|csv
 * (docs/product.md#finance-exports, decision 226): 资金报表's rows for a China-time range, streamed.
 * Bad input is a 400 with the Chinese reason, checked before any byte is sent or anything audited.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  try {
    const params = new URL(request.url).searchParams;
    const report = parseFinanceReport(params.get("report"));
    if (!report.ok) throw new DomainError(report.message, 400);
    const range = parseFinanceRange(params.get("from"), params.get("to"));
    if (!range.ok) throw new DomainError(range.message, 400);
    const format = parseFinanceFormat(params.get("format"));
    if (!format.ok) throw new DomainError(format.message, 400);
    const file = await exportFinance(report.value, range.value, format.value);
    await recordExport(context, `export.finance-${report.value}`, report.value, { ...range.value, format: format.value });
    return new Response(file.body, { headers: downloadHeaders(file.filename, file.asciiName, file.contentType) });
  } catch (error) {
    return toResponse(error);
  }
}
