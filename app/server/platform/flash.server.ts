import { makeSessionCookie, isSecureRequest } from "./cookies.server";

/**
 * A one-time notice carried across a POST-redirect-GET ("兑换成功，获得100积分"): set by
 * the action's redirect, read by the next page's loader. Signed, short-lived, rendered
 * as text.
 *
 * It belongs to the page it was sent to (docs/decisions/104-flash-keyed-to-its-page.md):
 * the cookie names the redirect's target, and only a loader for that address shows or
 * ends it, so another tab reloading some other page's data in the meantime neither shows
 * it nor uses it up.
 *
 * A page load (no JavaScript) clears it at once. A client-side navigation only marks it
 * seen and lets it expire a few seconds later: the navigation's data request can be
 * interrupted and repeated (a live update arriving mid-navigation restarts it), and a
 * notice cleared by the abandoned request would never be shown.
 */
const flashCookie = makeSessionCookie("inkstone_flash");
const FLASH_SECONDS = 60;
const SEEN_GRACE_SECONDS = 5;

export interface FlashNotice {
  kind: "success" | "error";
  text: string;
}

/** The address a notice is for: path and query, as a loader's `url` gives them. */
function addressOf(to: string | URL): string {
  const url = typeof to === "string" ? new URL(to, "http://inkstone.invalid") : to;
  return url.pathname + url.search;
}

/** The Set-Cookie header that carries `notice` to the page at `to` (a same-site path). */
function setFlash(request: Request, to: string, notice: FlashNotice): Promise<string> {
  return flashCookie.serialize({ ...notice, to: addressOf(to) }, { maxAge: FLASH_SECONDS, secure: isSecureRequest(request) });
}

/**
 * The pending notice for the page at `url` (the loader's `url`), if any, and the
 * Set-Cookie to send with it (null: none needed). A notice for another page is left alone.
 */
export async function takeFlash(request: Request, url: URL): Promise<{ notice: FlashNotice | null; setCookie: string | null }> {
  const cookieHeader = request.headers.get("Cookie");
  if (!cookieHeader?.includes("inkstone_flash=")) return { notice: null, setCookie: null };
  const value = (await flashCookie.parse(cookieHeader)) as { kind?: unknown; text?: unknown; seen?: unknown; to?: unknown } | null;
  if (value && typeof value === "object" && typeof value.to === "string" && value.to !== addressOf(url)) {
    return { notice: null, setCookie: null };
  }
  const secure = isSecureRequest(request);
  const notice: FlashNotice | null =
    value && typeof value === "object" && typeof value.text === "string" && value.text.length <= 200
      ? { kind: value.kind === "error" ? "error" : "success", text: value.text }
      : null;
  const seen = value?.seen === true;
  const dataRequest = (request.headers.get("Sec-Fetch-Dest") ?? "document") !== "document";
  if (!notice || !dataRequest) {
    // A page load shows a notice not yet seen, and ends it either way.
    const clear = await flashCookie.serialize("", { maxAge: 0, expires: new Date(0), secure });
    return { notice: seen ? null : notice, setCookie: clear };
  }
  if (seen) return { notice, setCookie: null };
  return {
    notice,
    setCookie: await flashCookie.serialize({ ...notice, to: value?.to, seen: true }, { maxAge: SEEN_GRACE_SECONDS, secure }),
  };
}

/** A redirect response that shows `notice` on the page it lands on. */
export async function redirectWithFlash(request: Request, to: string, notice: FlashNotice, init: HeadersInit = {}): Promise<Response> {
  const headers = new Headers(init);
  headers.set("Location", to);
  headers.append("Set-Cookie", await setFlash(request, to, notice));
  return new Response(null, { status: 302, headers });
}
