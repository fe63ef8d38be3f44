import { Outlet } from "react-router";
import { requireUserMiddleware } from "~/middleware/guards.server";
import type { Route } from "./+types/signed-in";

/**
 * The signed-in pages (app/routes.ts): a pathless layout whose middleware runs before
 * every loader and action below it, so a page placed here is guarded by its place.
 * The pages read the user from the request context (userContext).
 */
export const middleware: Route.MiddlewareFunction[] = [requireUserMiddleware];

export default function SignedIn() {
  return <Outlet />;
}
