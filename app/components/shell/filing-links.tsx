import type { FilingInfo } from "~/types/front-page";
import { ICP_HREF } from "~/utils/filing";

/** The footer's ICP备案号 and 公安联网备案号 (docs/product.md#front-page); nothing when unset. */
export function FilingLinks({ filing }: { filing: FilingInfo }) {
  return (
    <>
      {filing.icp ? (
        <a href={ICP_HREF} target="_blank" rel="noopener noreferrer" data-testid="icp-number">
          {filing.icp}
        </a>
      ) : null}
      {filing.police ? (
        filing.policeHref ? (
          <a href={filing.policeHref} target="_blank" rel="noopener noreferrer" data-testid="police-filing">
            {filing.police}
          </a>
        ) : (
          <span data-testid="police-filing">{filing.police}</span>
        )
      ) : null}
    </>
  );
}
