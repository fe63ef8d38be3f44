import { Transform, type TransformCallback } from "node:stream";
import { createReadableStreamFromReadable } from "@react-router/node";
import { renderToPipeableStream } from "react-dom/server";
import type { EntryContext, HandleErrorFunction } from "react-router";
import { isRouteErrorResponse, ServerRouter } from "react-router";
import { contentSecurityPolicy, createNonce, originOf } from "~/server/platform/csp.server";
import { scriptsAtFirstTouch } from "~/server/platform/first-touch.server";
import { logger } from "~/server/platform/logger.server";
import { etagOf, isSharedPage, keptOnNotModified, notModified, privateCacheControl, SHARED_PAGE, withHashesForNonce } from "~/server/platform/shared-cache.server";
import { getSiteConfigValue } from "~/server/platform/site-config.server";
import type { FirstTouchHandle } from "~/utils/first-touch";

// Re-exported so server.js can shut down in order and close the database, drop its cached
// visitor pages when public content changes, and start and stop the background jobs.
export { closeDatabase } from "~/db/client.server";
export { beginShutdown } from "~/server/platform/lifecycle.server";
export { logger, requestScope, routeConsoleToLogger } from "~/server/platform/logger.server";
export { metricsText, observeRequest } from "~/server/platform/metrics.server";
export { onPublicContentChange } from "~/server/platform/events.server";
export { etagMatches, keptOnNotModified } from "~/server/platform/shared-cache.server";
export { backgroundJobs } from "~/server/jobs/registry.server";
export { mailLinkWarning } from "~/server/identity/password-reset.server";

export const streamTimeout = 5_000;

/** The page whose top-up form posts to an action that redirects to the payment gateway. */
const TOP_UP_ROUTE_ID = "routes/shell/credits/credits";

/**
 * Origins besides this one that a form on the page may be sent to. Chromium applies
 * form-action to the redirects that follow a form post, so the top-up form needs the
 * configured gateway; it is read fresh (like every payment setting) and only for that page.
 */
async function formTargetsOf(routerContext: EntryContext): Promise<string[]> {
  if (!routerContext.staticHandlerContext.matches.some((match) => match.route.id === TOP_UP_ROUTE_ID)) return [];
  const gateway = originOf(await getSiteConfigValue("payment_gateway_url"));
  return gateway ? [gateway] : [];
}

/**
 * Whether the page's scripts wait for the reader's first touch (docs/decisions/264-scripts-at-first-touch.md):
 * a page read as it came (a GET answered 200) whose route says so for its data (a chapter's text).
 */
function scriptsWaitForTouch(request: Request, status: number, routerContext: EntryContext): boolean {
  if ((request.method !== "GET" && request.method !== "HEAD") || status !== 200) return false;
  const { matches, loaderData } = routerContext.staticHandlerContext;
  return matches.some((match) => {
    const handle = routerContext.routeModules[match.route.id]?.handle as Partial<FirstTouchHandle> | undefined;
    return handle?.scriptsAtFirstTouch?.(loaderData[match.route.id]) === true;
  });
}

/**
 * When the page's data was read: the `loadedAt` of each route's data (the shell's, decision
 * 145). The only part of a visitor's page that differs between two renders of the same
 * content, which its ETag therefore leaves out (etagOf).
 */
function renderMoments(routerContext: EntryContext): number[] {
  return Object.values(routerContext.staticHandlerContext.loaderData).flatMap((data) => {
    const moment = (data as { loadedAt?: unknown } | null)?.loadedAt;
    return typeof moment === "number" ? [moment] : [];
  });
}

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
) {
  // One nonce per render; a page replayed from the visitor cache gets a new one there
  // (server/page-cache.js, docs/decisions/066-content-security-policy.md). A visitor's page
  // a CDN may keep (decision 263) goes out without it: its own scripts, the ones that carry
  // it, are allowed by their hashes instead, the same in every copy.
  const shared = isSharedPage(request, responseStatusCode, responseHeaders);
  const nonce = createNonce();
  if (!shared) responseHeaders.set("Cache-Control", privateCacheControl(responseHeaders.get("Cache-Control")));
  const formTargets = await formTargetsOf(routerContext);
  const finish = scriptsWaitForTouch(request, responseStatusCode, routerContext)
    ? (page: Buffer) => scriptsAtFirstTouch(scriptsAfterText(page), nonce)
    : scriptsAfterText;
  return new Promise((resolve, reject) => {
    let shellRendered = false;
    // Every page waits for all of its content: the loaders have the data before React
    // renders, so only React Router's own script data is still to come after the shell,
    // a few turns later. The page then goes out whole, in one write with its length (no web
    // stream, no Node stream, no chunked encoding: docs/decisions/108-whole-pages.md). A
    // page that one day suspends on slow data still renders, only later than its shell.
    const { pipe, abort } = renderToPipeableStream(
      <ServerRouter context={routerContext} url={request.url} nonce={nonce} />,
      {
        nonce,
        onAllReady() {
          shellRendered = true;
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          responseHeaders.set("X-Content-Type-Options", "nosniff");
          responseHeaders.set("Referrer-Policy", "same-origin");
          responseHeaders.set("X-Frame-Options", "DENY");
          const body = new PageBody(finish);
          pipe(body);
          if (shared) {
            // Hashed whole: a shared page waits for its last bytes before its headers.
            void body.all().then((page) => {
              if (responseStatusCode === 200) {
                return resolve(sharedResponse(request, withHashesForNonce(page, nonce), responseHeaders, formTargets, renderMoments(routerContext)));
              }
              // The render failed after all (onError): the error page is nobody's to keep.
              responseHeaders.set("Cache-Control", privateCacheControl(SHARED_PAGE));
              responseHeaders.set("Content-Security-Policy", contentSecurityPolicy({ nonce, formTargets }));
              responseHeaders.set("Content-Length", String(page.byteLength));
              resolve(wholeResponse(page, { headers: responseHeaders, status: responseStatusCode }));
            }, reject);
            return;
          }
          responseHeaders.set("Content-Security-Policy", contentSecurityPolicy({ nonce, formTargets }));
          const whole = body.whole();
          if (whole) {
            responseHeaders.set("Content-Length", String(whole.byteLength));
            resolve(wholeResponse(whole, { headers: responseHeaders, status: responseStatusCode }));
          } else {
            resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }));
          }
        },
        onShellError(error: unknown) {
          // React Router reports it through handleError and renders the error boundary.
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) logUnexpectedError(error, request);
        },
      },
    );
    setTimeout(abort, streamTimeout + 1000);
  });
}

/**
 * The data of a page (`.data`, fetched by the app itself on navigations and after forms) is
 * never shared, whoever asks (decision 263): React Router gives it the route's headers, and a
 * shared page's `stale-while-revalidate` let the browser answer a revalidation after a form
 * with the data from before it.
 */
export function handleDataRequest(response: Response): Response {
  const routeSays = response.headers.get("Cache-Control");
  if (routeSays !== SHARED_PAGE) return response;
  const headers = new Headers(response.headers);
  headers.set("Cache-Control", privateCacheControl(routeSays));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * A visitor's page a CDN may keep (decision 263): its scripts allowed by their hashes, kept
 * 30 s by shared caches (SHARED_PAGE), one copy for every request without a cookie, with an
 * ETag; a copy the asker already holds is answered 304 without a body.
 */
function sharedResponse(
  request: Request,
  { page, scriptHashes }: { page: Buffer; scriptHashes: string[] },
  headers: Headers,
  formTargets: string[],
  moments: number[],
): Response {
  headers.set("Cache-Control", SHARED_PAGE);
  headers.append("Vary", "Cookie");
  const etag = etagOf(page, moments);
  headers.set("ETag", etag);
  if (notModified(request, etag)) {
    return new Response(null, { status: 304, headers: [...headers].filter(([name]) => keptOnNotModified(name)) });
  }
  headers.set("Content-Security-Policy", contentSecurityPolicy({ scriptHashes, formTargets }));
  headers.set("Content-Length", String(page.byteLength));
  return wholeResponse(page, { headers, status: 200 });
}

/**
 * Every error no route turned into a response (a failed query, a bug) arrives here once:
 * it is logged with the request it broke, and the visitor sees the root error boundary's
 * 出错了 page (app/root.tsx), never the error itself (docs/architecture.md#forms-and-errors).
 */
export const handleError: HandleErrorFunction = (error, { request, params }) => {
  // A client that went away, or a 4xx (an unknown address): nothing went wrong here.
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  // React Router wraps some errors in a 500 response; the cause is what to log.
  const cause = isRouteErrorResponse(error) ? ((error as { error?: unknown }).error ?? error) : error;
  logUnexpectedError(cause, request, params);
};

function logUnexpectedError(error: unknown, request: Request, params: Record<string, string | undefined> = {}) {
  const path = new URL(request.url).pathname;
  const route = routePattern(path, params);
  // With the request id (logger.server.ts), never the query string, cookies or a query's parameters.
  logger.error({ err: error, method: request.method, route }, `unexpected error: ${request.method} ${route}`);
}

/**
 * The matched route's path, rebuilt from the URL and the route params: /works/12 with
 * { id: "12" } is /works/:id. handleError is not told the route, and the pattern groups
 * the log lines of one route whatever the ids (without ids or query strings in the key).
 */
export function routePattern(path: string, params: Record<string, string | undefined>): string {
  const names = new Map<string, string>();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && name !== "*") names.set(value, `:${name}`);
  }
  const splat = params["*"];
  let pattern = path.replace(/\.data$/, "");
  if (splat) pattern = pattern.endsWith(`/${splat}`) ? `${pattern.slice(0, -splat.length)}*` : pattern;
  return pattern
    .split("/")
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // a malformed escape is logged as it came
      }
      return names.get(decoded) ?? segment;
    })
    .join("/");
}

/**
 * The key under which a page's whole body rides on its Response, for server.js to write
 * at once (server/request-handler.js reads it; a registered symbol, since that file and
 * the build are separate module graphs). A Response that lost it (rebuilt on its way out)
 * is read as a stream, as any other.
 */
const WHOLE_BODY = Symbol.for("inkstone.wholeBody");

function wholeResponse(whole: Buffer, init: ResponseInit): Response {
  // The page rides beside an empty body: handing the Buffer to Response would build a web
  // stream around it that nobody reads (2% of a signed-in render's CPU). Every document
  // response reaches server.js as it left here; a HEAD answer has no body anyway.
  return Object.assign(new Response(null, init), { [WHOLE_BODY]: whole });
}

const MODULE_PRELOAD = '<link rel="modulepreload"';
const HEAD_END = Buffer.from("</head>");

/**
 * The page's scripts are fetched at low priority (docs/decisions/243-shipping-less-javascript.md):
 * React Router's <Scripts/> preloads every module of the page, which React puts at the top of
 * <head>, at the high priority of a script in the head, and on a slow phone link they took the
 * bandwidth the stylesheet and the text needed for the first paint. The text reads without
 * them; they follow. Only <head> is rewritten (read as latin1, byte for byte).
 */
function scriptsAfterText(page: Buffer): Buffer {
  const end = page.indexOf(HEAD_END);
  const headLength = end < 0 ? page.length : end;
  const head = page.toString("latin1", 0, headLength);
  if (!head.includes(MODULE_PRELOAD)) return page;
  const lowered = Buffer.from(head.replaceAll(MODULE_PRELOAD, `${MODULE_PRELOAD} fetchpriority="low"`), "latin1");
  return Buffer.concat([lowered, page.subarray(headLength)]);
}

/**
 * Where React writes a page, in chunks of about 2 KB. When React has ended the page within
 * `pipe()` (all content was ready), `whole()` hands over the page as one buffer. Otherwise
 * the page streams: each turn's chunks go on as one buffer, so content that comes later
 * still goes out as it comes.
 */
class PageBody extends Transform {
  /** What a whole page goes through before it is sent (a streamed one gets scriptsAfterText). */
  constructor(private readonly finish: (page: Buffer) => Buffer) {
    super();
  }

  private chunks: Buffer[] = [];
  private streaming = false;
  private scheduled = false;

  /** The whole page once React has ended it (a shared page's hashes need every byte). */
  all(): Promise<Buffer> {
    const ended = () => {
      const chunks = this.chunks;
      this.chunks = [];
      return this.finish(Buffer.concat(chunks));
    };
    if (this.writableEnded) return Promise.resolve(ended());
    return new Promise((resolve, reject) => {
      this.once("finish", () => resolve(ended()));
      this.once("error", reject);
    });
  }

  /** The whole page if React has ended it, else null, and from then on the page streams. */
  whole(): Buffer | null {
    if (this.writableEnded && !this.streaming) {
      const chunks = this.chunks;
      this.chunks = [];
      return this.finish(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    }
    this.streaming = true;
    this.schedule();
    return null;
  }

  _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.chunks.push(chunk);
    if (this.streaming) this.schedule();
    callback();
  }

  _flush(callback: TransformCallback) {
    if (this.streaming) this.release();
    callback();
  }

  private schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.release());
  }

  private release() {
    this.scheduled = false;
    if (this.chunks.length === 0) return;
    const chunks = this.chunks;
    this.chunks = [];
    const out = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    this.push(this.headSent ? out : this.sendingHead(out));
  }

  private headSent = false;

  private sendingHead(out: Buffer): Buffer {
    if (out.includes("</head>")) this.headSent = true;
    return scriptsAfterText(out);
  }
}
