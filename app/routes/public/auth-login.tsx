import { useActionData, useLoaderData } from "react-router";
import { AuthDialog } from "~/components/auth-dialog";
import { loginAction } from "./auth-actions.server";
import { safeRedirectPath } from "~/utils/redirect";
import { clientAddressOf } from "~/server/platform/request.server";
import type { Route } from "./+types/auth-login";

export const meta: Route.MetaFunction = () => [{ title: "登录 - 砚台" }];

/**
 * The dialog lives on every page as ?auth=login; this path receives its posts. Its loader
 * must not redirect: it also runs after a failed post without JavaScript, and a redirect
 * would throw the form's errors away. A plain GET shows the dialog here.
 */
export function loader({ request, url }: Route.LoaderArgs) {
  return { redirectTo: safeRedirectPath(url.searchParams.get("redirectTo")) };
}

export function action({ request, context }: Route.ActionArgs) {
  return loginAction(request, clientAddressOf(context));
}

/** Without JavaScript a failed login lands here and shows the dialog with its errors. */
export default function LoginPage() {
  const result = useActionData<typeof action>();
  const { redirectTo: fromQuery } = useLoaderData<typeof loader>();
  const redirectTo = safeRedirectPath(result?.initialValue?.redirectTo ?? fromQuery);
  return <AuthDialog mode="login" redirectTo={redirectTo} lastResult={result} />;
}
