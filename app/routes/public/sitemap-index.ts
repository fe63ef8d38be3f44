import { DomainError, toResponse } from "~/server/platform/errors.server";
import { sitemapIndex } from "~/server/catalog/sitemaps.server";
import { configuredSiteOrigin } from "~/server/platform/request.server";

/**
 * GET /sitemap.xml: the sitemap index (docs/decisions/200). Its addresses are absolute and
 * come from SITE_URL alone; without it there is no sitemap (404), never one naming the
 * request's Host.
 */
export async function loader() {
  try {
    const origin = configuredSiteOrigin();
    if (!origin) throw new DomainError("站点地址（SITE_URL）未设置，没有站点地图", 404);
    return new Response(await sitemapIndex(origin), {
      headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" },
    });
  } catch (error) {
    return toResponse(error);
  }
}
