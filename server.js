// Production server: static assets, the React Router request handler, and a clean
// shutdown that closes the database (an open PGlite or postgres.js keeps Node alive).
import { randomUUID, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import compression from "compression";
import express from "express";

// Under a steady load V8 let the heap grow to several times what was live (a few hundred
// MB of garbage), and gave it back only when idle, if at all: the heap now grows by half
// of what is live after each full collection (docs/decisions/062-heap-growth.md).
v8.setFlagsFromString("--heap-growing-percent=50");

// React and React Router pick their development builds unless told otherwise: several
// times slower server rendering. Everything that imports React or React Router (the
// adapter and the build) is imported dynamically below, after this is set: a static
// import would be evaluated first and load React's development build beside
// react-dom's production one, which fails on every render.
process.env.NODE_ENV ??= "production";
const { createRequestHandler } = await import("./server/request-handler.js");
const { createPageCache } = await import("./server/page-cache.js");
const { errorPage } = await import("./server/error-page.js");
const { requestContext } = await import("./server/request-context.js");

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? "0.0.0.0";
const { applyTrustProxy, fromTrustedProxy } = await import("./server/trust-proxy.js");

// Importing the build opens the database, migrating it and writing defaults first. With
// PGlite it first takes the data directory's lock: a second process on the same directory
// stops here with one message naming the holder (docs/decisions/075).
let build;
try {
  build = await import("./build/server/index.js");
} catch (error) {
  if (error?.code !== "EDATADIRLOCKED") throw error;
  console.error(error.message);
  process.exit(1);
}

// Every log line from here on is a JSON line through pino, with the request id of the
// request it was written for; console calls too (docs/decisions/079).
const { logger, requestScope, observeRequest, metricsText } = build.entry.module;
build.entry.module.routeConsoleToLogger();

// `node server.js --migrate-only`: migrate and exit (the container's first step).
if (process.argv.includes("--migrate-only")) {
  await build.entry.module.closeDatabase();
  console.log("migrations applied");
  process.exit(0);
}

// Links in mails come from SITE_URL only (docs/decisions/166): without it, say at start
// that password reset mails are not sent.
const mailWarning = build.entry.module.mailLinkWarning();
if (mailWarning) console.warn(mailWarning);

// The background jobs, each on its timer in every process, the database deciding which
// process does each piece of work (no cron process; app/server/jobs/registry.server.ts,
// docs/decisions/179): the hourly clean-up, scheduled chapters published at their time
// (081), the rankings' counts (122), followers told of new chapters (115) and AI summaries
// of newly published chapters (128).
build.entry.module.backgroundJobs.start();

// Visitors' landing and works pages, kept a few seconds and dropped on every change of
// works or site settings (server/page-cache.js). PAGE_CACHE=0 turns it off.
const pageCache = process.env.PAGE_CACHE === "0" ? null : createPageCache();
if (pageCache) {
  build.entry.module.onPublicContentChange(() => pageCache.clear()).then(
    () => pageCache.enable(),
    (error) => console.error("page cache disabled: cannot listen for changes", error),
  );
}

// How long a stopping server waits for requests in flight (docs/decisions/076).
const graceMs = Math.max(Number(process.env.SHUTDOWN_GRACE_MS) || 20_000, 1000);
let stopping = false;
/** Responses in flight. */
const inFlight = new Set();

const app = express();
app.disable("x-powered-by");
// Only the proxies TRUST_PROXY names (a count or their addresses) are believed about the
// client's address, protocol and host (server/trust-proxy.js).
try {
  applyTrustProxy(app);
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
// A request id (a trusted proxy's X-Request-Id, else a fresh one), sent
// back and kept for the log lines written while serving the request.
const REQUEST_ID = /^[\w.:-]{8,100}$/;
// Every request: counted in flight for the shutdown (while stopping, every answer closes
// its connection, and a connection left idle is closed at once), then one log line
// (method, route pattern, status, duration, user id; never the query string, cookies or
// bodies) and the request metrics.
app.use((req, res, next) => {
  const started = process.hrtime.bigint();
  const forwarded = fromTrustedProxy(req) ? req.get("X-Request-Id") : undefined;
  const scope = { id: forwarded && REQUEST_ID.test(forwarded) ? forwarded : randomUUID() };
  res.setHeader("X-Request-Id", scope.id);
  inFlight.add(res);
  const done = () => {
    if (!inFlight.delete(res)) return;
    if (stopping) setImmediate(() => server.closeIdleConnections());
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = scope.route ?? routeOutsideApp(req, res);
    const status = res.writableFinished ? res.statusCode : 499;
    observeRequest(req.method, route, status, seconds);
    logger.info({ req_id: scope.id, method: req.method, route, status, ms: Math.round(seconds * 10_000) / 10, user: scope.userId }, "request");
  };
  res.once("finish", done);
  res.once("close", done);
  if (stopping) res.setHeader("Connection", "close");
  requestScope.run(scope, next);
});

/** The route label of an answer the app did not give: a built file, a cached page, /metrics. */
function routeOutsideApp(req, res) {
  if (res.getHeader("X-Page-Cache") === "hit") return req.path;
  if (req.path.startsWith("/assets/")) return "/assets/*";
  if (publicFiles.has(req.path)) return "static";
  if (req.path === "/metrics") return "/metrics";
  return "unmatched";
}

// Prometheus metrics, only with METRICS_TOKEN set and then only for its bearer.
const metricsToken = process.env.METRICS_TOKEN?.trim() ? Buffer.from(process.env.METRICS_TOKEN.trim()) : null;
if (metricsToken) {
  app.get("/metrics", async (req, res, next) => {
    const given = Buffer.from(/^Bearer (.+)$/i.exec(req.get("Authorization") ?? "")?.[1]?.trim() ?? "");
    if (given.length !== metricsToken.length || !timingSafeEqual(given, metricsToken)) {
      res.status(401).set("WWW-Authenticate", 'Bearer realm="metrics"').type("text/plain").send("unauthorized");
      return;
    }
    try {
      const { contentType, body } = await metricsText();
      res.set("Cache-Control", "no-store").type(contentType).send(body);
    } catch (error) {
      next(error);
    }
  });
} else {
  // No token, no metrics: a plain 404, not the app's catch-all redirect to the home page.
  app.all("/metrics", (_req, res) => {
    res.status(404).type("text/plain").set("Cache-Control", "no-store").send("not found");
  });
}
// gzip level 1: a 29 KB page compresses in a fifth of the CPU of the default level 6, to
// a body 6% larger (docs/decisions/061-gzip-level.md).
app.use(
  compression({
    level: 1,
    filter: (req, res) => !String(res.getHeader("Content-Type") ?? "").startsWith("text/event-stream") && compression.filter(req, res),
  }),
);
app.use("/assets", express.static("build/client/assets", { immutable: true, maxAge: "1y" }));
// The other files of build/client (public/: favicon.ico ...) are fixed once built: list
// them at start, so that a page request does not cost a stat of the disk and a 404 error
// object inside express.static (12% of the server's CPU under load on /healthz).
const publicFiles = new Set(
  fs
    .readdirSync("build/client", { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `/${path.relative("build/client", path.join(entry.parentPath ?? entry.path, entry.name)).split(path.sep).join("/")}`)
    .filter((file) => !file.startsWith("/assets/")),
);
const servePublic = express.static("build/client", { maxAge: "1h", index: false });
app.use((req, res, next) => (publicFiles.has(req.path) ? servePublic(req, res, next) : next()));
app.all(
  "*",
  createRequestHandler({
    build,
    pageCache,
    getLoadContext: (req) => requestContext(req.ip ?? req.socket.remoteAddress ?? "unknown"),
  }),
);
// What Express itself fails on, in Chinese and without a stack trace (server/error-page.js).
app.use(errorPage);

const server = app.listen(port, host, () => {
  console.log(`砚台 listening on http://${host === "0.0.0.0" ? "localhost" : host}:${port}`);
});
// An idle kept-alive connection stays open 65 s, not Node's 5 s: a client that reuses it
// just as the server closes it gets ECONNRESET (seen in CI after a 5 s pause), and a load
// balancer in front keeps idle connections 60 s. Headers must arrive within that too.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

// SIGTERM / SIGINT: stop accepting connections, end the live-update streams, let the
// requests in flight finish (a TXT publish that commits is answered), stop generation
// streams shortly before the grace period ends (they settle and send `done`), close the
// database, exit 0. A second signal exits at once. docs/decisions/076.
async function shutdown(signal) {
  if (stopping) {
    console.error(`${signal} again: exiting now, ${inFlight.size} requests cut`);
    process.exit(1);
  }
  stopping = true;
  console.log(`${signal}: shutting down, waiting up to ${graceMs} ms for ${inFlight.size} requests`);
  for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeIdleConnections();
  const lifecycle = build.entry.module;
  lifecycle.beginShutdown("draining");
  // Background work stops claiming at once; a release already running finishes.
  const jobsStopped = lifecycle.backgroundJobs.stop();
  const deadline = setTimeout(() => lifecycle.beginShutdown("deadline"), Math.max(graceMs - 3000, graceMs / 2));
  let timer;
  const timedOut = new Promise((resolve) => (timer = setTimeout(() => resolve(true), graceMs)));
  if (await Promise.race([closed.then(() => false), timedOut])) {
    console.error(`shutdown: ${inFlight.size} requests still running after ${graceMs} ms; closing their connections`);
    server.closeAllConnections();
  }
  clearTimeout(deadline);
  clearTimeout(timer);
  try {
    await jobsStopped;
    // Once more: the 段评 re-anchoring that saves finished during the grace period triggered.
    await lifecycle.backgroundJobs.stop();
    await lifecycle.closeDatabase();
  } finally {
    process.exit(0);
  }
}
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
