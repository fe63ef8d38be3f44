import { useEffect, useState } from "react";
import { Link, useFetcher, useLocation } from "react-router";
import { authHref } from "~/components/shell/auth-links";
import { FieldError } from "~/components/ui/forms";

interface FollowAnswer {
  on?: boolean;
  error?: string;
}

/**
 * 关注作者 / 已关注 (decision 230): a form that posts the wanted state to the author's page,
 * so it works without JavaScript (POST, redirect, GET); with JavaScript it goes through a
 * fetcher and shows the new state at once. A visitor gets a link to the login dialog.
 */
export function FollowAuthorButton({ authorId, following, signedIn }: { authorId: string; following: boolean; signedIn: boolean }) {
  const fetcher = useFetcher<FollowAnswer>({ key: `follow-author-${authorId}` });
  const location = useLocation();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);

  if (!signedIn) {
    return (
      <Link className="btn follow-author-button" to={authHref(location, "login")}>
        关注作者
      </Link>
    );
  }
  const pending = fetcher.formData?.get("on");
  const error = fetcher.state === "idle" ? fetcher.data?.error : undefined;
  const on = pending != null ? pending === "1" : following;
  return (
    <fetcher.Form method="post" action={`/authors/${authorId}`} className="inline-form">
      <input type="hidden" name="intent" value="follow" />
      <input type="hidden" name="on" value={on ? "0" : "1"} />
      {hydrated ? <input type="hidden" name="enhanced" value="1" /> : null}
      <button type="submit" className={on ? "btn follow-author-button active" : "btn btn-primary follow-author-button"} aria-pressed={on}>
        {on ? "已关注" : "关注作者"}
      </button>
      <FieldError errors={error} alert />
    </fetcher.Form>
  );
}
