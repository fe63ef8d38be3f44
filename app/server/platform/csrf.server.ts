import type { MiddlewareFunction } from "react-router";

/**
 * Where a write comes from (docs/decisions/165-proxies-origins-and-forms.md). A browser
 * sends `Origin` on every POST (and `Sec-Fetch-Site`); a cookie-carrying write with
 * neither a same-origin `Origin` nor `Sec-Fetch-Site: same-origin` is not from one of this
 * site's pages (a forged form, a `Referer` alone is not enough). The site's own host is
 * the one in `request.url`: the Host header, or a host forwarded by a proxy that
 * TRUST_PROXY trusts (server/request-handler.js); a client's `X-Forwarded-Host` is never
 * read here.
 */
export function isSameOriginPost(request: Request): boolean {
  const site = new URL(request.url);
  const origin = request.headers.get("Origin");
  if (origin !== null) {
    try {
      return new URL(origin).host === site.host;
    } catch {
      return false;
    }
  }
  return request.headers.get("Sec-Fetch-Site") === "same-origin";
}

/** @internal */
export const CROSS_SITE_WRITE_MESSAGE = "请求来源无效，请从本站页面提交";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * On the root route, so every action and resource route sits behind it: a write that
 * carries a cookie (a session may authenticate it) must come from this site. Requests
 * without cookies (scripts with an API token, the payment gateway's notify) go on to
 * their route's own checks. The refusal is a plain 403 in Chinese, for a page's form and a
 * resource route's script alike: no browser of this site's pages ever sees it.
 */
export const sameOriginWriteMiddleware: MiddlewareFunction<Response> = ({ request }) => {
  if (SAFE_METHODS.has(request.method) || !request.headers.get("Cookie")) return;
  if (isSameOriginPost(request)) return;
  return new Response(CROSS_SITE_WRITE_MESSAGE, {
    status: 403,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
};
