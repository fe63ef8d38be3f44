import { downloadHeaders } from "~/server/platform/download.server";
import { exportScreeningWords } from "~/server/screening/words.server";
import { shanghaiDate } from "~/utils/shanghai-time";

/**
 * 导出TXT: the whole word list in the format the import reads (docs/product.md#screening),
 * for both roles, behind the admin layout's guard.
 */
export async function loader() {
  const text = await exportScreeningWords();
  const day = shanghaiDate(new Date());
  return new Response(`\ufeff${text}`, { headers: downloadHeaders(`敏感词库-${day}.txt`, `screening-words-${day}.txt`, "text/plain; charset=utf-8") });
}
