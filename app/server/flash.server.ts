import { makeSessionCookie, isSecureRequest } from "./session.server";

/**
 * A one-time notice carried across a POST-redirect-GET ("兑换成功，获得100积分"): set by
 * the action's redirect, read by the next page's loader. Signed, short-lived, rendered
 * as text.
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

/** The Set-Cookie header that carries `notice` to the next page. */
export function setFlash(request: Request, notice: FlashNotice): Promise<string> {
  return flashCookie.serialize(notice, { maxAge: FLASH_SECONDS, secure: isSecureRequest(request) });
}

/** The pending notice, if any, and the Set-Cookie to send with it (null: none needed). */
export async function takeFlash(request: Request): Promise<{ notice: FlashNotice | null; setCookie: string | null }> {
  const cookieHeader = request.headers.get("Cookie");
  if (!cookieHeader?.includes("inkstone_flash=")) return { notice: null, setCookie: null };
  const value = (await flashCookie.parse(cookieHeader)) as { kind?: unknown; text?: unknown; seen?: unknown } | null;
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
  return { notice, setCookie: await flashCookie.serialize({ ...notice, seen: true }, { maxAge: SEEN_GRACE_SECONDS, secure }) };
}

/** A redirect response that shows `notice` on the page it lands on. */
export async function redirectWithFlash(request: Request, to: string, notice: FlashNotice, init: HeadersInit = {}): Promise<Response> {
  const headers = new Headers(init);
  headers.set("Location", to);
  headers.append("Set-Cookie", await setFlash(request, notice));
  return new Response(null, { status: 302, headers });
}
