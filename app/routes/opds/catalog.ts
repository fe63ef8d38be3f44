import { opdsReaderContext } from "~/middleware/guards.server";
import { OPDS_NAVIGATION, opdsBase, opdsRootFeed } from "~/server/reading/opds.server";
import { siteOrigin } from "~/server/platform/request.server";
import type { Route } from "./+types/catalog";

/** GET /opds/:token: the catalog's root navigation feed (decision 201); the layout checked the token. */
export async function loader({ params, context }: Route.LoaderArgs) {
  // Nothing of the reader is needed here, but reading the context fails loudly if this route ever leaves the token guard.
  context.get(opdsReaderContext);
  const origin = siteOrigin();
  return new Response(opdsRootFeed(origin, opdsBase(origin, params.token)), { headers: { "Content-Type": `${OPDS_NAVIGATION};charset=utf-8` } });
}
