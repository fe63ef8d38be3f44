// Express adapter for the React Router build. It replaces @react-router/express because
// that package (7.18.x) writes streamed bodies through @react-router/node's
// writeReadableStreamToWritable, which keeps every chunk of a response alive until the
// response ends (remix-run/react-router#15247): an export of hundreds of megabytes, or
// an /api/events stream open for hours, grew the process without bound. Here the body
// goes through stream.pipeline, which holds only what the socket has not taken yet and
// stops reading from the app when the client goes away.
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createRequestHandler as createReactRouterHandler } from "react-router";
import { replayOf } from "./page-cache.js";
import { forwardedHost } from "./trust-proxy.js";

/** Builds the Fetch Request the app sees from an Express request. */
function toFetchRequest(req, res) {
  // The Host header, or the host a trusted proxy forwarded (server/trust-proxy.js).
  const host = forwardedHost(req) || req.get("host") || "localhost";
  const url = new URL(req.originalUrl, `${req.protocol}://${host}`);

  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });

  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  const init = { method: req.method, headers, signal: controller.signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    init.body = Readable.toWeb(req);
    init.duplex = "half";
    res.once("finish", () => discardUnreadBody(req));
  }
  return new Request(url, init);
}

/**
 * The most of a request body that is read and thrown away after an answer given before
 * the body was read (docs/decisions/168-unread-request-bodies.md): the largest upload the
 * site takes (a 20 MB TXT or avatar) with room to spare. A longer body (or one of unknown
 * length) is answered with `Connection: close` instead.
 */
const DRAIN_LIMIT = 32 * 1024 * 1024;

/** The request's body has not all arrived and is too long (or of unknown length) to drain. */
function tooLongToDrain(req) {
  if (req.complete) return false;
  const declared = Number(req.headers["content-length"]);
  return !(Number.isFinite(declared) && declared <= DRAIN_LIMIT);
}

/**
 * After an answer given before the request's body was read (a guard's redirect, a 413, a
 * 500 while the database is down): the app's web stream over the body stopped pulling, so
 * the rest of the body sat unread on the socket and the next request of that keep-alive
 * connection waited behind it until the keep-alive timeout reset the connection (issue 28).
 * Node throws an unread body away itself only when nobody started reading it; here the
 * body's reader is detached and the rest of the body is read and dropped, up to
 * DRAIN_LIMIT bytes, after which the connection is closed.
 */
function discardUnreadBody(req) {
  if (req.complete || req.destroyed) return;
  req.removeAllListeners("data");
  let left = DRAIN_LIMIT;
  req.on("data", (chunk) => {
    left -= chunk.length;
    if (left < 0) req.socket?.destroy();
  });
  req.resume();
}

/** A page app/entry.server.tsx rendered whole rides on its Response under this key. */
const WHOLE_BODY = Symbol.for("inkstone.wholeBody");
/**
 * An event stream that writes to Node's response itself rides on its Response under this
 * key (app/server/ai/generation-stream.server.ts, docs/decisions/269-first-bytes.md).
 */
const NODE_BODY = Symbol.for("inkstone.nodeBody");

/** Writes a Fetch Response to the Express response, streaming its body with backpressure. */
async function sendResponse(res, response, recorder = null) {
  if (res.destroyed || res.writableEnded) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  res.statusMessage = response.statusText;
  res.status(response.status);
  // An answer before a long body has arrived ends the connection: the client sends its
  // next request on a new one rather than behind the rest of this body.
  if (tooLongToDrain(res.req)) res.setHeader("Connection", "close");
  for (const [key, value] of response.headers) {
    if (key !== "set-cookie") res.append(key, value);
  }
  for (const cookie of response.headers.getSetCookie()) res.append("Set-Cookie", cookie);
  // A page rendered whole rides beside its (empty) body (docs/decisions/108-whole-pages.md).
  const whole = response[WHOLE_BODY];
  if ((!response.body && !whole) || response.status === 304 || res.req.method === "HEAD") {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  // One write with its length.
  if (whole) {
    recorder?.add(whole);
    res.end(whole);
    recorder?.finish();
    return;
  }
  if (/text\/event-stream/i.test(response.headers.get("Content-Type") ?? "")) res.flushHeaders();
  // Written by the app as it goes; its body is never read.
  if (!recorder && response[NODE_BODY]?.(res)) return;
  try {
    if (recorder) {
      const tap = new Transform({
        transform(chunk, _encoding, callback) {
          recorder.add(chunk);
          callback(null, chunk);
        },
      });
      await pipeline(Readable.fromWeb(response.body), tap, res);
      recorder.finish();
    } else {
      await pipeline(Readable.fromWeb(response.body), res);
    }
  } catch (error) {
    // A client that went away mid-body is not an error of the server.
    if (res.destroyed || error?.code === "ERR_STREAM_PREMATURE_CLOSE") return;
    throw error;
  }
}

/** Answers from a page kept by server/page-cache.js, with a fresh CSP nonce. */
function sendCached(res, entry, { etagMatches, keptOnNotModified }) {
  const { status, headers, body } = replayOf(entry);
  res.set("X-Page-Cache", "hit");
  // A page a CDN may keep carries an ETag (decision 263): a copy the asker holds is not sent
  // again, and keeps its own headers (the copy may be another moment's render).
  const etag = headers.find(([key]) => key.toLowerCase() === "etag")?.[1];
  if (etag && etagMatches(res.req.headers["if-none-match"], etag)) {
    for (const [key, value] of headers) if (keptOnNotModified(key)) res.append(key, value);
    res.status(304).end();
    return;
  }
  for (const [key, value] of headers) res.append(key, value);
  res.status(status);
  // Its length, so that it goes out in one write as a page rendered whole does.
  res.set("Content-Length", String(body.byteLength));
  res.end(res.req.method === "HEAD" ? undefined : body);
}

/**
 * The Express middleware that serves every request through the React Router build.
 * `getLoadContext(req)` gives the request context (a RouterContextProvider, see
 * server/request-context.js) that middleware, loaders and actions receive. With a
 * `pageCache` (server/page-cache.js), pages that are the same for every visitor
 * without a cookie are answered from it while fresh.
 */
export function createRequestHandler({ build, getLoadContext, mode = process.env.NODE_ENV, pageCache = null }) {
  const handle = createReactRouterHandler(build, mode);
  return async (req, res, next) => {
    try {
      const key = pageCache?.keyOf(req) ?? null;
      const cached = key ? pageCache.lookup(key) : null;
      if (cached) return sendCached(res, cached, build.entry.module);
      const request = toFetchRequest(req, res);
      const response = await handle(request, await getLoadContext?.(req, res));
      const recorder = key && req.method === "GET" ? pageCache.recorder(key, response) : null;
      await sendResponse(res, response, recorder);
    } catch (error) {
      if (res.headersSent) res.destroy(error);
      else next(error);
    }
  };
}
