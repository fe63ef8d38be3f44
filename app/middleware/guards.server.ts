import { createContext, data, redirect, type MiddlewareFunction } from "react-router";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { requireExportAccess, type ExportAccess } from "~/server/identity/api-tokens.server";
import { mustEnrolSecondFactor, requireAdmin, type SessionAdmin } from "~/server/identity/admin-session.server";
import { requireUser, type SessionUser } from "~/server/identity/session.server";

/**
 * Guards are middleware on the layout routes of app/routes.ts, so a page is protected by
 * where it sits (docs/architecture.md#guards): the signed-in layout
 * (routes/shell/signed-in.tsx), the back office layout (routes/admin/layout.tsx) and the
 * exports layout (routes/exports/layout.ts). Each puts who is asking on a typed request
 * context, which the loaders and actions below it read; reading a context that no guard
 * above has set throws, so a page moved out of its guard fails loudly instead of serving
 * a visitor.
 */
export const userContext = createContext<SessionUser>();
export const adminContext = createContext<SessionAdmin>();
export const exportAccessContext = createContext<ExportAccess>();

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

/** An admin session or a bearer API token, else 401 with WWW-Authenticate (requireExportAccess). */
export const requireExportAccessMiddleware: MiddlewareFunction<Response> = async ({ request, context }) => {
  context.set(exportAccessContext, await requireExportAccess(request));
};
