import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { useLoaderData } from "react-router";
import { legalTextHtml } from "~/server/platform/sanitize.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import type { Route } from "./+types/legal";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

const PAGES = {
  terms: { key: "terms_content", title: "用户协议" },
  privacy: { key: "privacy_content", title: "隐私政策" },
} as const;

function pageOf(url: URL) {
  return url.pathname.startsWith("/privacy") ? PAGES.privacy : PAGES.terms;
}

export const meta: Route.MetaFunction = ({ data }) => [{ title: `${data?.title ?? "用户协议"} - 砚台` }];

/** /terms and /privacy: site configuration HTML, sanitised on the way out, or plain text in paragraphs. */
export async function loader({ request, url }: Route.LoaderArgs) {
  const page = pageOf(url);
  const html = legalTextHtml(await getDisplayConfigValue(page.key));
  return { title: page.title, html };
}

export default function LegalPage() {
  const { title, html } = useLoaderData<typeof loader>();
  return (
    <article className="prose" aria-labelledby="legal-title">
      {/* The configured text brings its own visible title (an h2 by default). */}
      <h1 id="legal-title" className="sr-only">
        {title}
      </h1>
      {html ? <div dangerouslySetInnerHTML={{ __html: html }} /> : <p className="empty-state">暂无内容</p>}
    </article>
  );
}
