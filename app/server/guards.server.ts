import { createContext, type MiddlewareFunction } from "react-router";
import { requireExportAccess, type ExportAccess } from "./admin/api-tokens.server";
import { requireAdmin, type SessionAdmin } from "./admin/session.server";
import { requireUser, type SessionUser } from "./session.server";

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

/** No admin session: a page view goes to /xbbadmin, anything else gets 401 (requireAdmin). */
export const requireAdminMiddleware: MiddlewareFunction<Response> = async ({ request, url, context }) => {
  context.set(adminContext, await requireAdmin(request, url));
};

/** An admin session or a bearer API token, else 401 with WWW-Authenticate (requireExportAccess). */
export const requireExportAccessMiddleware: MiddlewareFunction<Response> = async ({ request, context }) => {
  context.set(exportAccessContext, await requireExportAccess(request));
};
