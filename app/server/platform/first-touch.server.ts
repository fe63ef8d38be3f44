import { FIRST_TOUCH_KEY, HELD_SCRIPT_TYPE, SCRIPTS_ATTRIBUTE } from "~/utils/first-touch";

/**
 * A page whose scripts start at the reader's first touch (docs/decisions/264-scripts-at-first-touch.md):
 * the chapter reads, and its links and forms work, without them, so its first paint and its
 * load carry no script at all. React Router's page holds its module graph in one inline
 * module script (it imports the route modules and then the client entry) and preloads every
 * module in <head>. Here the preloads are taken out and that module script is kept as an
 * inert data block (HELD_SCRIPT_TYPE, the preloads' addresses in its data-preload); a small
 * starter, right before </body>, puts the preloads back (so the modules come in one round
 * trip, not one per level of imports) and an identical module script into the page on the
 * first pointerdown, touchstart, keydown, wheel, scroll or focusin. The inline scripts carrying React Router's context and data still run at
 * load (a few KB of JSON into a stream that hydration reads later).
 *
 * CSP: both scripts carry the render's nonce. On a private page the starter copies it to the
 * script it makes (`.nonce`, which the browser keeps when it hides the attribute); on a shared
 * page the nonce is replaced by the hashes of the scripts' texts (withHashesForNonce), and the
 * held script's text, re-inserted unchanged, has the same hash as the one in the policy.
 */

/**
 * The starter. Listens once (passive, capturing) for the reader's first touch; a finger's
 * first tap also records the click it becomes, so the tap zones can still turn the page
 * once the scripts are up (app/components/reader/gestures.ts). The new script goes at the
 * end of <body>, after everything React hydrates, which React leaves alone there.
 */
const STARTER = `(() => {
  const held = document.querySelector('script[type="${HELD_SCRIPT_TYPE}"]');
  if (!held) return;
  const events = ["pointerdown", "touchstart", "keydown", "wheel", "scroll", "focusin"];
  const first = (window.${FIRST_TOUCH_KEY} = { touch: false, tap: null });
  const start = (event) => {
    for (const type of events) removeEventListener(type, start, true);
    if (event.pointerType === "touch" || event.type === "touchstart") {
      first.touch = true;
      addEventListener("click", (click) => {
        first.tap = { x: click.clientX, target: click.target, at: click.timeStamp };
      }, { capture: true, once: true });
    }
    for (const href of (held.dataset.preload || "").split(" ").filter(Boolean)) {
      const link = document.createElement("link");
      link.rel = "modulepreload";
      link.href = href;
      document.head.append(link);
    }
    const script = document.createElement("script");
    script.type = "module";
    script.nonce = held.nonce;
    script.textContent = held.textContent;
    document.body.append(script);
    document.documentElement.setAttribute("${SCRIPTS_ATTRIBUTE}", "started");
  };
  for (const type of events) addEventListener(type, start, { capture: true, passive: true });
})();`;

const MODULE_SCRIPT = /<script\b([^>]*?)\stype="module"([^>]*)>/g;
const MODULE_PRELOAD = /<link rel="modulepreload"[^>]*>/g;
const HREF = /\shref="([^"]*)"/;
const BODY_END = "</body>";
/**
 * 翻页 (decision 242) lays the text out in pages with script: without it the reader would see
 * the chapter scroll, then jump into pages at their first touch. Their page runs its scripts
 * at load.
 */
const PAGED = /\sdata-reader-layout="paged"/;

/**
 * The page with its scripts held until the first touch, or the page as it was when it is not
 * the one-module-script page this expects (a page that could not be rewritten runs its
 * scripts at load, as every other page does) or it is laid out in pages. Read and written
 * as latin1: byte for byte.
 */
export function scriptsAtFirstTouch(page: Buffer, nonce: string): Buffer {
  const html = page.toString("latin1");
  const modules = [...html.matchAll(MODULE_SCRIPT)];
  const bodyEnd = html.lastIndexOf(BODY_END);
  const htmlStart = html.indexOf("<html");
  if (modules.length !== 1 || bodyEnd < 0 || htmlStart < 0) return page;
  if (PAGED.test(html.slice(htmlStart, html.indexOf(">", htmlStart)))) return page;
  const preloads = [...html.slice(0, bodyEnd).matchAll(MODULE_PRELOAD)].map((link) => HREF.exec(link[0])?.[1]).filter(Boolean);
  const held = html
    .slice(0, bodyEnd)
    .replace(
      MODULE_SCRIPT,
      (_tag, before: string, after: string) => `<script${before} type="${HELD_SCRIPT_TYPE}" data-preload="${preloads.join(" ")}"${after.replace(/\sasync=""/, "")}>`,
    )
    .replace(MODULE_PRELOAD, "")
    .replace("<html", `<html ${SCRIPTS_ATTRIBUTE}="at-first-touch"`);
  return Buffer.from(`${held}<script nonce="${nonce}">${STARTER}</script>${html.slice(bodyEnd)}`, "latin1");
}
