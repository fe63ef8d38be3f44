import { robotsTxt } from "~/server/catalog/sitemaps.server";
import { configuredSiteOrigin } from "~/server/platform/request.server";

/** GET /robots.txt: what crawlers may visit, and the sitemap (docs/decisions/200). */
export function loader() {
  return new Response(robotsTxt(configuredSiteOrigin()), {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
