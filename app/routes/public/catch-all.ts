import { redirect } from "react-router";

/** docs/product.md D4: an unknown page path redirects to "/". */
export function loader() {
  return redirect("/");
}

export function action() {
  return new Response("页面不存在", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
