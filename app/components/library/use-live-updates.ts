import { useEffect, useRef, useState } from "react";
import { useNavigation, useRevalidator } from "react-router";
import { announceCommentsChanged, type LiveCommentsTarget } from "~/components/comments/live-comments";

/** How much before its data's time a page asks for changes (its other loaders ran beside the shell's). */
const SINCE_MARGIN_MS = 250;

/**
 * Live updates (docs/product.md D9): listen to /api/events and reload the page's data when the
 * server says something changed: the site's branding, terms or privacy for everyone;
 * for a signed-in user also their balance, favourites, purchases and the works in their
 * library. Bursts are coalesced; after a reconnect the page reloads once, in case an
 * event was missed while the connection was down. A reload never interrupts a
 * navigation or form submission in flight: it waits until the router is idle (the
 * navigation's own loaders bring fresh data anyway, but a revalidation started during
 * it would race the redirect and could consume its one-time notice).
 * On a chapter (`comments`), the stream also carries that chapter's comments events,
 * handed to the page's own listeners (live-comments.ts) instead of reloading everything.
 * `loadedAt` is the server time the page's data was read: the stream first sends what
 * changed between then and its subscription (decision 145), so a change made while the
 * page was loading its scripts is not missed.
 */
export function useLiveUpdates(signedIn: boolean, comments: LiveCommentsTarget | null = null, loadedAt: number | null = null) {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const revalidate = useRef(revalidator.revalidate);
  revalidate.current = revalidator.revalidate;
  const idle = navigation.state === "idle";
  const since = useRef(loadedAt);
  since.current = loadedAt;
  const [pending, setPending] = useState(false);

  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    // A new session (login or logout) needs a new stream: the server scopes it by cookie.
    const query = new URLSearchParams();
    if (comments) {
      query.set("work", String(comments.workId));
      query.set("chapterId", String(comments.chapterId));
    }
    if (since.current) query.set("since", String(since.current - SINCE_MARGIN_MS));
    const source = new EventSource(`/api/events${query.size ? `?${query}` : ""}`);
    let timer: ReturnType<typeof setTimeout> | null = null;
    let opened = false;
    const schedule = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        setPending(true);
      }, 200);
    };
    source.addEventListener("change", schedule);
    source.addEventListener("comments", (event) => {
      try {
        announceCommentsChanged(JSON.parse((event as MessageEvent<string>).data));
      } catch {
        // not ours
      }
    });
    source.addEventListener("open", () => {
      if (opened) schedule();
      opened = true;
    });
    // The server has subscribed this stream to everything it carries.
    const root = document.documentElement;
    source.addEventListener("ready", () => (root.dataset.live = "ready"));
    source.addEventListener("error", () => delete root.dataset.live);
    return () => {
      if (timer) clearTimeout(timer);
      delete root.dataset.live;
      source.close();
    };
  }, [signedIn, comments?.workId, comments?.chapterId]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (!pending || !idle || revalidator.state !== "idle") return;
    setPending(false);
    void revalidate.current();
  }, [pending, idle, revalidator.state]);
}
