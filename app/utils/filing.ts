import type { FilingInfo } from "~/types/front-page";

/** Where the ICP number links: the MIIT's filing search (工信部 ICP/IP地址/域名信息备案管理系统). */
export const ICP_HREF = "https://beian.miit.gov.cn/";

/**
 * The footer's 备案信息 from the two site settings (docs/product.md#front-page): the
 * 公安联网备案号 links to the 公安 filing search for its digits
 * (京公网安备11010502000001号 → code=11010502000001); empty settings show nothing.
 */
export function filingInfo(icp: string, police: string): FilingInfo {
  const digits = police.replace(/\D/g, "");
  return {
    icp: icp.trim(),
    police: police.trim(),
    policeHref: digits ? `https://beian.mps.gov.cn/#/query/webSearch?code=${digits}` : "",
  };
}
