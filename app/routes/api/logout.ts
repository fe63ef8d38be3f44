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
  // The kept chapters (离线阅读) go with the session: the service worker deletes them when it
  // sees this request, and again when the next page says nobody is signed in. Not
  // Clear-Site-Data: "cache", which stalls Chrome's sign-out for seconds (decision 244).
  return redirect("/", { headers: { "Set-Cookie": cookie } });
}

/** Never change state on GET. */
export function loader() {
  return redirect("/");
}
