// Temporary (not committed): profile one signed-in route of the production server.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { freePort, signIn, startServer, stopServer } from "./lib-server";
const autocannon = createRequire(import.meta.url)("autocannon");
const route = process.argv[2] ?? "/works?page=1";
const seconds = Number(process.argv[3] ?? 10);
const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", DATABASE_URL: "postgres://postgres@127.0.0.1:5432/inkstone_bench_ssr" };
env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-prof-"));
const port = await freePort();
const server = await startServer({ cwd: process.cwd(), env, port, logFile: "/tmp/ana/server.log" });
const origin = `http://127.0.0.1:${port}`;
const cookie = await signIn(origin, `prof-${Date.now()}@example.com`, { register: true });
await autocannon({ url: origin + route, connections: 10, duration: 2, headers: { Cookie: cookie } });
const r = await autocannon({ url: origin + route, connections: 10, duration: seconds, headers: { Cookie: cookie } });
console.log(route, r.requests.average, "req/s", r.non2xx, "non2xx");
await stopServer(server);
