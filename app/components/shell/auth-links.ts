/** The current page with the auth dialog open on it, coming back to `redirectTo` after. */
export function authHref(
  location: { pathname: string; search: string },
  mode: "login" | "register",
  redirectTo?: string,
): string {
  const params = new URLSearchParams(location.search);
  params.delete("registered");
  params.delete("reset");
  params.set("auth", mode);
  params.set("redirectTo", redirectTo ?? location.pathname + stripAuth(location.search));
  return `${location.pathname}?${params.toString()}`;
}

/** The same search string without the dialog's parameters. */
export function stripAuth(search: string): string {
  const params = new URLSearchParams(search);
  for (const key of ["auth", "redirectTo", "registered", "reset"]) params.delete(key);
  const s = params.toString();
  return s ? `?${s}` : "";
}
