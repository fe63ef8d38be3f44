import { opdsReaderContext } from "~/middleware/guards.server";
import { OPDS_ACQUISITION, opdsBase, opdsLibraryFeed } from "~/server/reading/opds.server";
import { siteOrigin } from "~/server/platform/request.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/library";

/** GET /opds/:token/library?page=N: the reader's library as an acquisition feed (decision 201). */
export async function loader({ params, url, context }: Route.LoaderArgs) {
  const reader = context.get(opdsReaderContext);
  const origin = siteOrigin();
  const xml = await opdsLibraryFeed(reader, origin, opdsBase(origin, params.token), parsePage(url.searchParams.get("page")));
  return new Response(xml, { headers: { "Content-Type": `${OPDS_ACQUISITION};charset=utf-8` } });
}
