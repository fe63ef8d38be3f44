// Loaded into the server by the soak benchmark (`node --import ./bench/lib-memory-probe.js
// server.js`), never by the app: every SOAK_PROBE_MS it appends one JSON line with
// process.memoryUsage() (rss, heapTotal, heapUsed, external, arrayBuffers) to
// SOAK_PROBE_FILE, so a growing RSS can be told apart as JavaScript heap, buffers held
// from JavaScript, or memory outside both (native allocations, allocator retention).
// On SIGUSR2 it writes a heap snapshot next to that file.
import fs from "node:fs";
import v8 from "node:v8";

const file = process.env.SOAK_PROBE_FILE;
if (file) {
  const every = Number(process.env.SOAK_PROBE_MS ?? 5000);
  const write = () => fs.appendFileSync(file, `${JSON.stringify({ t: Date.now(), ...process.memoryUsage() })}\n`);
  write();
  setInterval(write, every).unref();
  process.on("SIGUSR2", () => {
    const path = v8.writeHeapSnapshot(`${file}.${Date.now()}.heapsnapshot`);
    fs.appendFileSync(file, `${JSON.stringify({ t: Date.now(), snapshot: path })}\n`);
  });
}
