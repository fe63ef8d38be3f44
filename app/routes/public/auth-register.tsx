import { useActionData, useLoaderData } from "react-router";
import { AuthDialog } from "~/components/auth-dialog";
import { registerAction } from "./auth-actions.server";
import { safeRedirectPath } from "~/utils/redirect";
import { clientAddressOf } from "~/server/platform/request.server";
import type { Route } from "./+types/auth-register";

export const meta: Route.MetaFunction = () => [{ title: "注册 - 砚台" }];

/** Like /auth/login: no redirect, so a failed post without JavaScript keeps its errors. */
export function loader({ request, url }: Route.LoaderArgs) {
  return { redirectTo: safeRedirectPath(url.searchParams.get("redirectTo")) };
}

export function action({ request, context }: Route.ActionArgs) {
  return registerAction(request, clientAddressOf(context));
}

/** Without JavaScript a failed registration lands here and shows the dialog with its errors. */
export default function RegisterPage() {
  const result = useActionData<typeof action>();
  const submission = result && "initialValue" in result ? result : undefined;
  const { redirectTo: fromQuery } = useLoaderData<typeof loader>();
  const redirectTo = safeRedirectPath(submission?.initialValue?.redirectTo ?? fromQuery);
  return <AuthDialog mode="register" redirectTo={redirectTo} lastResult={submission} />;
}
