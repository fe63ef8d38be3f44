import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../bench/lib-server";
import { sendThrough, upload } from "../fixtures/keep-alive";
import { startServerProcess, type Child, requireBuild } from "../fixtures/processes";
import { ownPostgresDatabase } from "../fixtures/server-database";
import { waitFor } from "../fixtures/wait";

/**
 * PostgreSQL going away and coming back (docs/decisions/078), for `node server.js`
 * connected through a TCP proxy the test can cut: refusing connections (PostgreSQL
 * stopped) or taking them and never answering (a host that vanished). Needs a PostgreSQL
 * server: the test run's, or 127.0.0.1:5432 when the run is on PGlite.
 */
let dropDatabase: (() => Promise<void>) | undefined;
let server: Child;
let origin: string;

/** Forwards to PostgreSQL, or refuses, or swallows connections. */
class Proxy {
  private listener: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private mode: "forward" | "hang" = "forward";
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(mode: "forward" | "hang") {
    this.mode = mode;
    if (this.listener) return;
    this.listener = net.createServer((client) => {
      this.track(client);
      if (this.mode === "hang") return;
      const upstream = net.connect(this.target.port, this.target.host);
      this.track(upstream);
      client.pipe(upstream).pipe(client);
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
    });
    await new Promise<void>((resolve) => this.listener!.listen(this.port, "127.0.0.1", resolve));
  }

  private track(socket: net.Socket) {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
  }

  /** Drops every connection; with `refuse`, stops listening too (connection refused). */
  async cut(refuse = true) {
    for (const socket of this.sockets) socket.destroy();
    if (refuse && this.listener) {
      const listener = this.listener;
      this.listener = null;
      await new Promise((resolve) => listener.close(resolve));
    }
  }
}

let proxy: Proxy;

/** The state of each of the server's connections to `port` (by its local port), from the kernel's table (Linux). */
function connectionsTo(port: number): Map<number, string> {
  const states = new Map<number, string>();
  for (const line of fs.readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const [, local, remote, state] = line.trim().split(/\s+/);
    if (remote && parseInt(remote.split(":")[1], 16) === port) states.set(parseInt(local.split(":")[1], 16), state);
  }
  return states;
}
/** ESTABLISHED, and CLOSE_WAIT (the other end closed, this one not yet): a socket its owner still holds open. */
const OPEN_STATES = new Set(["01", "08"]);

async function timed(url: string): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  // The server's own words say why it dropped the connection (a crash, say).
  const failed = (error: unknown) => {
    const cause = error instanceof Error && error.cause ? `, ${String(error.cause)}` : "";
    throw new Error(`GET ${url} failed (${String(error)}${cause}; exit code ${server.process.exitCode}); the server said:\n${server.output().slice(-4000)}`);
  };
  const response = await fetch(`${origin}${url}`).catch(failed);
  const body = await response.text().catch(failed);
  return { status: response.status, ms: performance.now() - started, body };
}

beforeAll(async () => {
  requireBuild();
  const database = await ownPostgresDatabase(
    "inkstone_outage",
    process.env.OUTAGE_TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres",
  );
  dropDatabase = database.drop;
  const url = new URL(database.url);
  proxy = new Proxy(await freePort(), { host: url.hostname, port: Number(url.port || 5432) });
  await proxy.open("forward");
  url.host = `127.0.0.1:${proxy.port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url.toString(), PAGE_CACHE: "0" };
  delete env.NODE_ENV;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  server = await startServerProcess(env, port);
}, 120_000);

afterAll(async () => {
  if (server && server.process.exitCode === null) {
    server.process.kill("SIGTERM");
    await server.exited;
  }
  await proxy?.cut();
  await dropDatabase?.();
});

describe("PostgreSQL away", () => {
  it("keeps a kept-alive connection usable after a 500 given before the request body was read", async () => {
    // Signed up (and in) while PostgreSQL is there.
    const registered = await fetch(`${origin}/auth/register`, {
      method: "POST",
      body: new URLSearchParams({ email: `outage-${Date.now()}@example.com`, password: "a-good-password" }),
      headers: { Origin: origin },
      redirect: "manual",
    });
    expect(registered.status).toBe(302);
    const cookie = registered.headers.getSetCookie()[0].split(";")[0];

    await proxy.cut();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // A 2 MB upload: the guard cannot look the session up and the answer is a 500, given
      // before the body was read (docs/decisions/168).
      const { body, headers } = upload(2 * 1024 * 1024);
      const failed = await sendThrough(agent, origin, "POST", "/submit", body, { ...headers, Cookie: cookie });
      expect(failed.status).toBe(500);
      // The next request on that connection is answered, not reset after the keep-alive timeout.
      const health = await sendThrough(agent, origin, "GET", "/healthz");
      expect([health.reused, health.socket === failed.socket, health.status]).toEqual([true, true, 503]);
    } finally {
      agent.destroy();
      await proxy.open("forward");
    }
  }, 60_000);

  it("answers /healthz 503 and pages with the error page within 2 s, and recovers on the next request", async () => {
    expect((await timed("/healthz")).status).toBe(200);
    expect((await timed("/works?q=断线之前")).status).toBe(200);

    // Stopped: connections refused.
    await proxy.cut();
    for (let i = 0; i < 3; i++) {
      const health = await timed("/healthz");
      expect([health.status, health.body.split(":")[0]]).toEqual([503, "database unavailable"]);
      expect(health.ms).toBeLessThan(2000);
      const page = await timed(`/works?q=断线${i}`);
      expect(page.status).toBe(500);
      expect(page.body).toContain("出错了");
      expect(page.ms).toBeLessThan(2000);
    }

    // Started again: the very next request succeeds (no backoff grown meanwhile).
    await proxy.open("forward");
    const back = await timed("/healthz");
    expect([back.status, back.body]).toEqual([200, "ok"]);
    expect((await timed("/works?q=恢复之后")).status).toBe(200);

    // Gone without a word: connections taken and never answered.
    const pooled = [...connectionsTo(proxy.port).keys()];
    await proxy.cut(false);
    await proxy.open("hang");
    await waitFor("the pool to close the connections the proxy cut", () => pooled.every((p) => !OPEN_STATES.has(connectionsTo(proxy.port).get(p) ?? "")));
    const hung = await timed("/healthz");
    expect([hung.status, hung.body]).toEqual([503, "database unavailable: no answer within 1500 ms"]);
    expect(hung.ms).toBeLessThan(2000);
  }, 60_000);
});
