import { useEffect, useState } from "react";
import { Link, useFetcher, useLocation } from "react-router";
import { authHref } from "~/components/shell/auth-links";
import { FieldError } from "~/components/ui/forms";

interface FavoriteAnswer {
  intent: "favorite" | "purchase";
  on?: boolean;
  error?: string;
}

/**
 * 关注 / 已关注: a form button that posts the wanted state, so it works without
 * JavaScript (the server redirects back to `back`); with JavaScript it submits through a
 * fetcher and shows the new state at once. A visitor gets the login dialog instead.
 */
export function FavoriteButton({
  workId,
  favorited,
  signedIn,
  back,
  compact = false,
}: {
  workId: number;
  favorited: boolean;
  signedIn: boolean;
  back: string;
  compact?: boolean;
}) {
  const fetcher = useFetcher<FavoriteAnswer>({ key: `favorite-${workId}` });
  const location = useLocation();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const className = `btn favorite-button${compact ? " btn-small" : ""}`;

  if (!signedIn) {
    return (
      // A link to the login dialog, not a toggle: no aria-pressed (not allowed on links).
      <Link className={className} to={authHref(location, "login")}>
        ☆ 关注
      </Link>
    );
  }
  // Optimistic: while the request and the reload after it run, show the state it asks
  // for; then the page's data says (a refused request leaves it as it was).
  const pending = fetcher.formData?.get("on");
  const error = fetcher.state === "idle" ? fetcher.data?.error : undefined;
  const on = pending != null ? pending === "1" : favorited;
  return (
    <fetcher.Form method="post" action={`/works/${workId}`} className="inline-form favorite-form">
      <input type="hidden" name="intent" value="favorite" />
      <input type="hidden" name="on" value={on ? "0" : "1"} />
      <input type="hidden" name="back" value={back} />
      {hydrated ? <input type="hidden" name="enhanced" value="1" /> : null}
      <button type="submit" className={on ? `${className} active` : className} aria-pressed={on}>
        {on ? "★ 已关注" : "☆ 关注"}
      </button>
      <FieldError errors={error} alert />
    </fetcher.Form>
  );
}
