import { redirect } from "react-router";

/** docs/product.md D4: unknown user-side paths redirect to "/". */
export function loader() {
  return redirect("/");
}

export function action() {
  return new Response("Not Found", { status: 404 });
}
