import { redirect } from "react-router";

/** docs/product.md D4: /admin and unknown paths under it go to the dashboard (which checks the session). */
export function loader() {
  return redirect("/admin/dashboard");
}

export function action() {
  return redirect("/admin/dashboard");
}
