import { redirect } from "react-router";
import type { Route } from "./+types/work-redirect";

/** docs/product.md D4: `/work/:id` is an old spelling of the reader's `/works/:id`. */
function target(url: URL, id: string | undefined): string {
  return `/works/${encodeURIComponent(id ?? "")}${url.search}`;
}

export function loader({ url, params }: Route.LoaderArgs) {
  return redirect(target(url, params.id), 301);
}

export function action({ url, params }: Route.ActionArgs) {
  return redirect(target(url, params.id), 308);
}
