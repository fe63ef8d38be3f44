// Production server: static assets, the React Router request handler, and a clean
// shutdown that closes the database (an open PGlite or postgres.js keeps Node alive).
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
const trustProxy = process.env.TRUST_PROXY === "1";

// Importing the build opens the database, migrating it and writing defaults first.
const build = await import("./build/server/index.js");

// `node server.js --migrate-only`: migrate and exit (the container's first step).
if (process.argv.includes("--migrate-only")) {
  await build.entry.module.closeDatabase();
  console.log("migrations applied");
  process.exit(0);
}

// Staged TXT imports are deleted a day after they were made, whoever made them; every
// process runs this (it is idempotent), so no one process has to be the one.
build.entry.module.startTxtImportCleanup();

// Scheduled chapters are published at their time by every process (no cron process);
// the database decides which process publishes each one (docs/decisions/081).
build.entry.module.startReleasePoller();

// Visitors' landing and works pages, kept a few seconds and dropped on every change of
// works or site settings (server/page-cache.js). PAGE_CACHE=0 turns it off.
const pageCache = process.env.PAGE_CACHE === "0" ? null : createPageCache();
if (pageCache) {
  build.entry.module.onPublicContentChange(() => pageCache.clear()).then(
    () => pageCache.enable(),
    (error) => console.error("page cache disabled: cannot listen for changes", error),
  );
}

const app = express();
app.disable("x-powered-by");
if (trustProxy) app.set("trust proxy", true);
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

let stopping = false;
async function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: shutting down`);
  server.close();
  server.closeAllConnections?.();
  try {
    await build.entry.module.stopReleasePoller?.();
    await build.entry.module.closeDatabase?.();
  } finally {
    process.exit(0);
  }
}
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
