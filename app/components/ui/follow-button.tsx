import { useEffect, useState } from "react";
import { Link, useFetcher, useLocation } from "react-router";
import { authHref } from "~/components/shell/auth-links";
import { FieldError } from "~/components/ui/forms";

interface FollowAnswer {
  on?: boolean;
  error?: string;
}

/**
 * A 关注 / 已关注 toggle (an author, decision 230; a 书单, decision 232): a form that posts
 * the wanted state (`intent=follow`, `on`) to `action`, so it works without JavaScript
 * (POST, redirect, GET); with JavaScript it goes through a fetcher (`enhanced=1`, answered
 * `{ on }`) and shows the new state at once. A visitor gets a link to the login dialog.
 */
export function FollowButton({ action, following, signedIn, label, className }: { action: string; following: boolean; signedIn: boolean; label: string; className: string }) {
  const fetcher = useFetcher<FollowAnswer>({ key: `follow-${action}` });
  const location = useLocation();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);

  if (!signedIn) {
    return (
      <Link className={`btn ${className}`} to={authHref(location, "login")}>
        {label}
      </Link>
    );
  }
  const pending = fetcher.formData?.get("on");
  const error = fetcher.state === "idle" ? fetcher.data?.error : undefined;
  const on = pending != null ? pending === "1" : following;
  return (
    <fetcher.Form method="post" action={action} className="inline-form">
      <input type="hidden" name="intent" value="follow" />
      <input type="hidden" name="on" value={on ? "0" : "1"} />
      {hydrated ? <input type="hidden" name="enhanced" value="1" /> : null}
      <button type="submit" className={on ? `btn ${className} active` : `btn btn-primary ${className}`} aria-pressed={on}>
        {on ? "已关注" : label}
      </button>
      <FieldError errors={error} alert />
    </fetcher.Form>
  );
}
