import { toResponse } from "~/server/platform/errors.server";
import { workFeed } from "~/server/catalog/feeds.server";
import { siteOrigin } from "~/server/platform/request.server";
import type { Route } from "./+types/work-feed";

/**
 * GET /works/:id/feed.xml: the work's Atom feed of published chapters, for feed readers
 * (docs/product.md#notifications). Public: only what a visitor may see; otherwise 404.
 */
export async function loader({ params }: Route.LoaderArgs) {
  try {
    const xml = await workFeed(Number(params.id), siteOrigin());
    return new Response(xml, {
      headers: { "Content-Type": "application/atom+xml; charset=utf-8", "Cache-Control": "public, max-age=300" },
    });
  } catch (error) {
    return toResponse(error);
  }
}
