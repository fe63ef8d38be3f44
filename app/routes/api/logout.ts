import { redirect } from "react-router";
import { destroyUserSession } from "~/server/identity/session.server";
import { isSameOriginPost } from "~/server/platform/csrf.server";
import type { Route } from "./+types/logout";

/** Sign-out ends the session on the server and always lands on "/", even on failure. */
export async function action({ request }: Route.ActionArgs) {
  if (!isSameOriginPost(request)) return redirect("/");
  let cookie: string;
  try {
    cookie = await destroyUserSession(request);
  } catch (error) {
    console.error("logout: could not delete the session row", error);
    cookie = "inkstone_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax";
  }
  return redirect("/", { headers: { "Set-Cookie": cookie } });
}

/** Never change state on GET. */
export function loader() {
  return redirect("/");
}
