import { useEffect, useRef } from "react";
import { useRevalidator } from "react-router";

/**
 * Live updates (DECISIONS D9): while signed in, listen to /api/events and reload the
 * page's data when the server says something of this user changed (balance, favourites,
 * purchases, a work in their library). Bursts are coalesced; after a reconnect the page
 * reloads once, in case an event was missed while the connection was down.
 */
export function useLiveUpdates(enabled: boolean) {
  const revalidator = useRevalidator();
  const revalidate = useRef(revalidator.revalidate);
  revalidate.current = revalidator.revalidate;

  useEffect(() => {
    if (!enabled || typeof EventSource === "undefined") return;
    const source = new EventSource("/api/events");
    let timer: ReturnType<typeof setTimeout> | null = null;
    let opened = false;
    const schedule = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        void revalidate.current();
      }, 200);
    };
    source.addEventListener("change", schedule);
    source.addEventListener("open", () => {
      if (opened) schedule();
      opened = true;
    });
    return () => {
      if (timer) clearTimeout(timer);
      source.close();
    };
  }, [enabled]);
}
