import { PassThrough } from "node:stream";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { DomainError } from "~/server/platform/errors.server";
import { countUnusedCodes, unusedCodeBatches } from "~/server/admin/redeem-codes.server";
import { webStreamFrom } from "~/server/platform/download.server";

export const UNUSED_CODES_NAME = "未使用兑换码";

/**
 * docs/product.md: Constants: the unused redeem codes as an .xlsx named 未使用兑换码, one sheet of the
 * same name, columns 兑换码, 积分, 创建时间 (Asia/Shanghai local time). Written with
 * exceljs's streaming writer from keyset batches, so the codes never sit in memory all
 * at once. None at all is 暂无未使用的兑换码 (404), checked before any byte is sent.
 */
export async function exportUnusedCodesXlsx(): Promise<ReadableStream<Uint8Array>> {
  if ((await countUnusedCodes()) === 0) throw new DomainError(ADMIN_MESSAGES.noUnusedCodes, 404);
  const output = new PassThrough();
  // A cancelled download destroys `output` while the writer may still write into it.
  output.on("error", () => {});
  // exceljs adds about 20 MB to the process: loaded on the first export, not at start.
  const { default: ExcelJS } = await import("exceljs");
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: false });
  workbook.creator = "砚台";
  const sheet = workbook.addWorksheet(UNUSED_CODES_NAME);
  sheet.columns = [
    { header: "兑换码", key: "code", width: 16 },
    { header: "积分", key: "amount", width: 10 },
    { header: "创建时间", key: "createdAt", width: 22 },
  ];
  sheet.getRow(1).font = { bold: true };
  void (async () => {
    try {
      for await (const batch of unusedCodeBatches()) {
        for (const code of batch) {
          sheet.addRow({ code: code.code, amount: code.amount, createdAt: formatShanghaiSeconds(code.createdAt) }).commit();
        }
      }
      sheet.commit();
      await workbook.commit();
    } catch (error) {
      if (!output.destroyed) {
        console.error("unused codes export failed", error);
        output.destroy(error as Error);
      }
    }
  })();
  return webStreamFrom(output);
}
