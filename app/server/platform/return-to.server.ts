import { createCookie } from "react-router";
import { safeRedirectPath } from "~/utils/redirect";

/**
 * Where /credits sends the user back to (its `?redirectTo=`, e.g. the purchase dialog of
 * the work that was short of credits): a same-origin path, or null when absent or unsafe.
 */
export function creditsReturnPath(url: URL): string | null {
  return safeRedirectPath(url.searchParams.get("redirectTo"), "") || null;
}

/**
 * An online payment leaves the site; the gateway returns to the fixed /payment/success,
 * which offers this remembered page (set when the order is made) once the order is paid.
 */
export const paymentReturnCookie = createCookie("inkstone_payment_return", {
  httpOnly: true,
  sameSite: "lax",
  path: "/payment",
  maxAge: 2 * 60 * 60,
});

/** The remembered page, checked again on the way out. */
export async function paymentReturnPath(request: Request): Promise<string | null> {
  const value = await paymentReturnCookie.parse(request.headers.get("Cookie"));
  return safeRedirectPath(value, "") || null;
}
