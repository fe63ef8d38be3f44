import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * postgres.js losing a connection inside a transaction (docs/decisions/276). Unpatched,
 * 3.4.9 queues the transaction's rollback on the closed connection and its deferred write
 * then throws from a setImmediate, which no caller can catch: the process dies (it killed
 * `node server.js` in the database-outage test). Each build of the driver (the ES module
 * server.js loads, the CommonJS one) runs in a child process through a TCP proxy that
 * drops the connection mid-transaction. Needs a PostgreSQL server: the run's, or
 * 127.0.0.1:5432 on a PGlite run.
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

describe("postgres.js losing its connection in a transaction", () => {
  it.each([
    ["the ES module", ["--input-type=module", "-e", body('import net from "node:net"; import postgres from "postgres";')]],
    ["the CommonJS build", ["-e", body('const net = require("node:net"); const postgres = require("postgres");')]],
  ])("rejects the transaction, keeps the process and serves the next query (%s)", (_, args) => {
    const child = spawnSync(process.execPath, args, { cwd: process.cwd(), encoding: "utf8", timeout: 30_000 });
    expect(child.stderr).not.toContain("TypeError");
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout.trim())).toEqual(["CONNECTION_CLOSED", 2, "CONNECTION_CLOSED", 2, "CONNECTION_CLOSED", 2]);
  }, 40_000);
});
