import { redirect } from "react-router";
import { destroyAdminSession } from "~/server/identity/admin-session.server";
import { isSameOriginPost } from "~/server/platform/csrf.server";
import type { Route } from "./+types/logout";

/** Sign-out ends the admin session on the server and goes back to the login form. */
export async function action({ request }: Route.ActionArgs) {
  if (!isSameOriginPost(request)) return redirect("/xbbadmin");
  let cookie: string;
  try {
    cookie = await destroyAdminSession(request);
  } catch (error) {
    console.error("admin logout: could not delete the session row", error);
    cookie = "inkstone_admin=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax";
  }
  return redirect("/xbbadmin", { headers: { "Set-Cookie": cookie } });
}

/** Never change state on GET. */
export function loader() {
  return redirect("/admin/dashboard");
}
