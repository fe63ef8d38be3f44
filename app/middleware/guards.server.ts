import { createContext, data, redirect, type MiddlewareFunction } from "react-router";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { SETTINGS_MESSAGES } from "~/schemas/settings";
import { requireExportAccess, type ExportAccess } from "~/server/identity/api-tokens.server";
import { getAdmin, mustEnrolSecondFactor, type SessionAdmin } from "~/server/identity/admin-session.server";
import { safeRedirectPath } from "~/utils/redirect";
import { getSessionUser, loginRedirectUrl, type SessionUser } from "~/server/identity/session.server";
import { verifyOpdsToken, type OpdsReader } from "~/server/identity/opds-tokens.server";
import { toResponse } from "~/server/platform/errors.server";

/**
 * Guards are middleware on the layout routes of app/routes.ts, so a page is protected by
 * where it sits (docs/architecture.md#guards): the signed-in layout
 * (routes/shell/signed-in.tsx), the back office layout (routes/admin/layout.tsx) and the
 * exports layout (routes/exports/layout.ts), the reading apps' layout (routes/opds/layout.ts). Each puts who is asking on a typed request
 * context, which the loaders and actions below it read; reading a context that no guard
 * above has set throws, so a page moved out of its guard fails loudly instead of serving
 * a visitor.
 */
export const userContext = createContext<SessionUser>();
export const adminContext = createContext<SessionAdmin>();
export const exportAccessContext = createContext<ExportAccess>();
export const opdsReaderContext = createContext<OpdsReader>();

/** A visitor's page view goes to the login dialog (and comes back after); see requireUser. */
export const requireUserMiddleware: MiddlewareFunction<Response> = async ({ request, url, context }) => {
  context.set(userContext, await requireUser(request, url));
};

/**
 * No admin session: a page view goes to /xbbadmin, anything else gets 401 (requireAdmin).
 * With ADMIN_REQUIRE_2FA=1 a 超级管理员 without an authenticator can open only
 * /admin/account (where it is set up) until they have one (docs/decisions/134).
 */
export const requireAdminMiddleware: MiddlewareFunction<Response> = async ({ request, url, context }) => {
  const admin = await requireAdmin(request, url);
  if (mustEnrolSecondFactor(admin) && url.pathname !== ACCOUNT_PATH) {
    if (request.method === "GET" || request.method === "HEAD") throw redirect(`${ACCOUNT_PATH}?notice=totp-required`);
    throw data(ADMIN_MESSAGES.totpRequired, { status: 403 });
  }
  context.set(adminContext, admin);
};

const ACCOUNT_PATH = "/admin/account";


/**
 * On the super-admin layout (routes/admin/super-only.tsx), below the admin layout: a 运营
 * admin gets 403 on every page and action placed under it in app/routes.ts
 * (docs/product.md#admin-roles).
 */
export const requireSuperAdminMiddleware: MiddlewareFunction<Response> = async ({ context }) => {
  if (context.get(adminContext).role !== "super") throw data(ADMIN_MESSAGES.superOnly, { status: 403 });
};

/**
 * The daily back office (routes/admin/staff.tsx): 超级管理员 and 运营. A 审核员 or 总编辑 opening
 * one of its pages is sent to the review queue, their home; a post gets 403
 * (docs/product.md#admin-roles).
 */
export const requireStaffMiddleware: MiddlewareFunction<Response> = async ({ request, context }) => {
  const { role } = context.get(adminContext);
  if (role === "super" || role === "operator") return;
  if (request.method === "GET" || request.method === "HEAD") throw redirect(REVIEW_HOME);
  throw data(ADMIN_MESSAGES.staffOnly, { status: 403 });
};

/** Where a 审核员 or 总编辑 lands in the back office. */
const REVIEW_HOME = "/admin/review";

/** The review pages (routes/admin/reviewers.tsx): 审核员, 总编辑 and 超级管理员. */
export const requireReviewerMiddleware: MiddlewareFunction<Response> = async ({ context }) => {
  if (context.get(adminContext).role === "operator") throw data(ADMIN_MESSAGES.reviewersOnly, { status: 403 });
};

/** The review policy (routes/admin/chief-only.tsx): 总编辑 and 超级管理员. */
export const requireChiefEditorMiddleware: MiddlewareFunction<Response> = async ({ context }) => {
  const { role } = context.get(adminContext);
  if (role !== "super" && role !== "chief_editor") throw data(ADMIN_MESSAGES.chiefOnly, { status: 403 });
};

/** An admin session or a bearer API token, else 401 with WWW-Authenticate (requireExportAccess). */
export const requireExportAccessMiddleware: MiddlewareFunction<Response> = async ({ request, context }) => {
  context.set(exportAccessContext, await requireExportAccess(request));
};

/**
 * The reading apps' catalog (decision 201): the token in the address (/opds/:token/...) is
 * who is asking; unknown, revoked or its reader banned is 401 before any loader runs. Every
 * answer below is private and never stored (the address is the secret), and sets no cookie.
 */
export const requireOpdsReaderMiddleware: MiddlewareFunction<Response> = async ({ params, context }, next) => {
  const noStore = { "Cache-Control": "private, no-store" };
  let reader: OpdsReader | null;
  try {
    reader = await verifyOpdsToken(params.token ?? "");
  } catch (error) {
    return toResponse(error, "text", noStore);
  }
  if (!reader) return new Response(SETTINGS_MESSAGES.opdsUnauthorized, { status: 401, headers: { "Content-Type": "text/plain; charset=utf-8", ...noStore } });
  context.set(opdsReaderContext, reader);
  const response = await next();
  response.headers.set("Cache-Control", noStore["Cache-Control"]);
  return response;
};

/** The signed-in user, or a redirect to the login dialog that comes back here after. @internal */
export async function requireUser(request: Request, url = new URL(request.url)): Promise<SessionUser> {
  const user = await getSessionUser(request);
  if (!user) throw redirect(loginRedirectUrl(url));
  return user;
}

function adminLoginUrl(url: URL): string {
  const target = safeRedirectPath(url.pathname + url.search, "/admin/dashboard");
  return `/xbbadmin?redirectTo=${encodeURIComponent(target)}`;
}

/**
 * The signed-in administrator, checked by the admin layout's middleware before every
 * /admin loader and action (requireAdminMiddleware above). A page view without an admin
 * session goes to the login form; anything else (a posted form, a script) gets 401 and
 * changes nothing.
 */
async function requireAdmin(request: Request, url = new URL(request.url)): Promise<SessionAdmin> {
  const admin = await getAdmin(request);
  if (admin) return admin;
  if (request.method === "GET" || request.method === "HEAD") throw redirect(adminLoginUrl(url));
  throw data(ADMIN_MESSAGES.unauthorized, { status: 401 });
}
