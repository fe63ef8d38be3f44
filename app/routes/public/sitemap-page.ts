import { DomainError, toResponse } from "~/server/platform/errors.server";
import { parseSitemapFile, sitemapPage } from "~/server/catalog/sitemaps.server";
import { configuredSiteOrigin } from "~/server/platform/request.server";
import type { Route } from "./+types/sitemap-page";

/** GET /sitemaps/works-K.xml and /sitemaps/chapters-K.xml: one page of the sitemap index (docs/decisions/200). */
export async function loader({ params }: Route.LoaderArgs) {
  try {
    const origin = configuredSiteOrigin();
    const page = parseSitemapFile(params.file);
    if (!origin || !page) throw new DomainError("没有这一页站点地图", 404);
    return new Response(await sitemapPage(page.kind, page.block, origin), {
      headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" },
    });
  } catch (error) {
    return toResponse(error);
  }
}
