import { redirect } from "react-router";
import type { Route } from "./+types/work-redirect";

/** docs/product.md D4: `/work/:id` is an old spelling of the reader's `/works/:id`. */
function target(request: Request, id: string | undefined): string {
  return `/works/${encodeURIComponent(id ?? "")}${new URL(request.url).search}`;
}

export function loader({ request, params }: Route.LoaderArgs) {
  return redirect(target(request, params.id), 301);
}

export function action({ request, params }: Route.ActionArgs) {
  return redirect(target(request, params.id), 308);
}
