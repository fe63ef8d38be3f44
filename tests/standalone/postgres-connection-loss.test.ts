import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * postgres.js losing a connection (docs/decisions/276), in the two places where 3.4.9 then
 * killed `node server.js` in the database-outage test:
 * - inside a transaction: it queues the rollback on the closed connection, and the deferred
 *   write throws from a setImmediate, which no caller can catch;
 * - while a new connection fetches the array types (its first statement): the fetch's
 *   promise is dropped, so its rejection is unhandled and Node ends the process.
 * Each build of the driver (the ES module server.js loads, the CommonJS one) runs in a child
 * process through a TCP proxy that drops the connection at that moment. Needs a PostgreSQL
 * server: the run's, or 127.0.0.1:5432 on a PGlite run.
 */
const target = new URL(process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres");

const body = (load: string) => `
${load}
const sockets = new Set();
const proxy = net.createServer((client) => {
  const upstream = net.connect(${Number(target.port || 5432)}, ${JSON.stringify(target.hostname)});
  sockets.add(client);
  sockets.add(upstream);
  client.pipe(upstream).pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
proxy.listen(0, "127.0.0.1", async () => {
  const url = new URL(${JSON.stringify(target.toString())});
  url.host = "127.0.0.1:" + proxy.address().port;
  const sql = postgres(url.toString(), { max: 2, onnotice: () => {} });
  const results = [];
  for (let round = 0; round < 3; round++) {
    results.push(await sql.begin(async (tx) => {
      await tx\`select 1\`;
      for (const socket of sockets) socket.destroy();
      await tx\`select pg_sleep(0.05)\`;
      return "committed";
    }).catch((error) => error.code || String(error)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    results.push((await sql\`select 2 as n\`)[0].n);
  }
  console.log(JSON.stringify(results));
  await sql.end({ timeout: 1 });
  proxy.close();
});
`;

/**
 * A proxy that resets the connection (RST) the first `drops` times the driver sends its
 * array types query; a reset arrives as ECONNRESET, as when PostgreSQL or a pooler goes away.
 */
const typesBody = (load: string) => `
${load}
let drops = 3;
const proxy = net.createServer((client) => {
  const upstream = net.connect(${Number(target.port || 5432)}, ${JSON.stringify(target.hostname)});
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
  upstream.pipe(client);
  client.on("data", (chunk) => {
    if (drops > 0 && chunk.includes("pg_catalog.pg_type")) {
      drops--;
      client.resetAndDestroy();
      upstream.destroy();
      return;
    }
    upstream.write(chunk);
  });
});
proxy.listen(0, "127.0.0.1", async () => {
  const url = new URL(${JSON.stringify(target.toString())});
  url.host = "127.0.0.1:" + proxy.address().port;
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {}, backoff: () => 0.05 });
  const results = [];
  for (let round = 0; round < 3; round++) {
    results.push(await sql\`select 1 as n\`.then((rows) => rows[0].n, (error) => error.code || String(error)));
  }
  // The fourth connection fetches its types: arrays come back as arrays.
  results.push((await sql\`select array[1, 2] as a\`)[0].a);
  console.log(JSON.stringify(results));
  await sql.end({ timeout: 1 });
  proxy.close();
});
`;

const builds = [
  ["the ES module", ["--input-type=module", "-e"], 'import net from "node:net"; import postgres from "postgres";'],
  ["the CommonJS build", ["-e"], 'const net = require("node:net"); const postgres = require("postgres");'],
] as const;

/** Each case: what it proves, the child's script, what must not reach stderr, what the child prints. */
const cases = [
  {
    proves: "rejects the transaction, keeps the process and serves the next query",
    script: body,
    crash: "TypeError",
    printed: ["CONNECTION_CLOSED", 2, "CONNECTION_CLOSED", 2, "CONNECTION_CLOSED", 2],
  },
  {
    proves: "rejects the query waiting on a connection lost while it fetched the array types, and keeps the process",
    script: typesBody,
    crash: "ECONNRESET",
    printed: ["ECONNRESET", "ECONNRESET", "ECONNRESET", [1, 2]],
  },
];

describe("postgres.js losing its connection", () => {
  it.each(cases.flatMap((c) => builds.map(([name, flags, load]) => [`${c.proves} (${name})`, { ...c, args: [...flags, c.script(load)] }] as const)))(
    "%s",
    (_, { args, crash, printed }) => {
      const child = spawnSync(process.execPath, args, { cwd: process.cwd(), encoding: "utf8", timeout: 30_000 });
      expect(child.stderr).not.toContain(crash);
      expect(child.status).toBe(0);
      expect(JSON.parse(child.stdout.trim())).toEqual(printed);
    },
    40_000,
  );
});
