/**
 * A chapter's scripts start at the reader's first touch (docs/decisions/264-scripts-at-first-touch.md).
 * The server holds React Router's module script back as an inert `<script type=HELD_SCRIPT_TYPE>`
 * (app/server/platform/first-touch.server.ts) and a small starter puts an identical module
 * script into the page on the first pointerdown, touchstart, keydown, wheel, scroll or focusin.
 * This module is what both sides share: the names, the route's say, and the first tap kept
 * for the reader's tap zones.
 */

/** The type of the held-back module script: not a script type, so the browser keeps it as data. */
export const HELD_SCRIPT_TYPE = "inkstone/at-first-touch";

/** `<html data-scripts>`: "at-first-touch" until the starter puts the scripts in, then "started". */
export const SCRIPTS_ATTRIBUTE = "data-scripts";

/** Where the starter keeps what the first touch was, for the tap zones (window[FIRST_TOUCH_KEY]). */
export const FIRST_TOUCH_KEY = "__inkstoneFirstTouch";

/** A route whose page may wait for the first touch says so from its `handle`, by its loader's data. */
export interface FirstTouchHandle {
  scriptsAtFirstTouch: (loaderData: unknown) => boolean;
}

/** What the starter saw: whether the first touch was a finger's, and the click it became. */
interface FirstTouch {
  touch: boolean;
  tap: { x: number; target: EventTarget | null; at: number } | null;
}

/** A tap older than this when the scripts are up is not turned into a page turn any more. */
const TAP_REPLAY_MS = 5_000;

/**
 * The first touch of this page, once: `touch` whether it was a finger (its click may still
 * come), `tap` the click it made before the scripts were up, if recent. Null on every page
 * whose scripts ran at load, and on every later call.
 */
export function takeFirstTouch(): { touch: boolean; tap: { x: number; target: EventTarget | null } | null } | null {
  const holder = window as unknown as Record<string, FirstTouch | undefined>;
  const first = holder[FIRST_TOUCH_KEY];
  if (!first) return null;
  holder[FIRST_TOUCH_KEY] = undefined;
  const tap = first.tap && performance.now() - first.tap.at <= TAP_REPLAY_MS ? first.tap : null;
  return { touch: first.touch && !first.tap, tap };
}
