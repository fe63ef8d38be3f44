// The production server of server.js with one change, for `npm run bench:export --
// --adapter=fixed`: responses are streamed with stream.pipeline instead of
// @react-router/node's writeReadableStreamToWritable, which in 7.18.x retains every
// chunk of a response until it ends (it races each read against one long-lived promise:
// remix-run/react-router#15247, fixed upstream in #15500, not released for 7.x). The
// benchmark runs the export through both, to show what the leak costs and what the
// export itself needs.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import compression from "compression";
import express from "express";
import { createRequestHandler } from "react-router";

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? "127.0.0.1";
const build = await import("../build/server/index.js");
const handle = createRequestHandler(build, process.env.NODE_ENV);

const app = express();
app.use(compression({ filter: (req, res) => !String(res.getHeader("Content-Type") ?? "").startsWith("text/event-stream") && compression.filter(req, res) }));
app.all("*", async (req, res, next) => {
  try {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      for (const v of Array.isArray(value) ? value : value ? [value] : []) headers.append(key, v);
    }
    const init = { method: req.method, headers, signal: controller.signal };
    if (req.method !== "GET" && req.method !== "HEAD") {
      init.body = Readable.toWeb(req);
      init.duplex = "half";
    }
    const request = new Request(`http://${req.get("host")}${req.originalUrl}`, init);
    const response = await handle(request, { clientAddress: req.ip ?? "unknown" });
    res.status(response.status);
    for (const [key, value] of response.headers.entries()) res.append(key, value);
    if (!response.body) return res.end();
    await pipeline(Readable.fromWeb(response.body), res);
  } catch (error) {
    if (!res.headersSent) next(error);
    else res.destroy();
  }
});

const server = app.listen(port, host);
async function shutdown() {
  server.close();
  server.closeAllConnections?.();
  await build.entry.module.closeDatabase?.();
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
