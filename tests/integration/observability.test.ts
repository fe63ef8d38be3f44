import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { createLogger, requestScope, serializeError } from "~/server/platform/logger.server";
import { freePort } from "../../bench/lib-server";
import { startServerProcess, type Child, requireBuild } from "../fixtures/processes";
import { childDatabase } from "../fixtures/server-database";
import { signUpAt } from "../fixtures/accounts";
import { waitFor } from "../fixtures/wait";

/**
 * Logs and metrics an operator can use (docs/decisions/079): `node server.js` writes one
 * JSON line per request and serves /metrics to the METRICS_TOKEN bearer only.
 */
const TOKEN = "metrics-token-for-the-test";
let server: Child;
let origin: string;
let remove = () => {};

beforeAll(async () => {
  requireBuild();
  const database = childDatabase({ ...process.env, METRICS_TOKEN: TOKEN, LOG_LEVEL: "info" });
  remove = database.remove;
  const env = { ...database.env };
  delete env.NODE_ENV;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  server = await startServerProcess(env, port);
}, 90_000);

afterAll(async () => {
  if (server && server.process.exitCode === null) {
    server.process.kill("SIGTERM");
    await server.exited;
  }
  remove();
});

type Line = Record<string, unknown>;
const lines = (): Line[] =>
  server
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);

async function waitForLine(match: (line: Line) => boolean): Promise<Line> {
  return waitFor("the log line", () => lines().find(match), { timeout: 5000, interval: 50 }).catch((error: Error) => {
    throw new Error(`no such log line in:\n${server.output()}`, { cause: error });
  });
}

describe("the request log", () => {
  it("writes one JSON line per request: method, route pattern, status, duration, user; no query string or cookie", async () => {
    const email = `log-${Date.now()}@example.com`;
    const cookie = await signUpAt(origin, { email, password: "a-secret-password" });

    const response = await fetch(`${origin}/works/999999?from=secret-query-value`, { headers: { Cookie: cookie } });
    const id = response.headers.get("X-Request-Id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await response.text();
    const line = await waitForLine((l) => l.req_id === id && l.msg === "request");
    expect(line).toMatchObject({ level: 30, method: "GET", route: "/works/:id", status: 404 });
    expect(typeof line.ms).toBe("number");
    expect(line.user).toMatch(/^[0-9a-f-]{36}$/);

    const output = server.output();
    expect(output).not.toContain("secret-query-value");
    expect(output).not.toContain(cookie.split("=")[1]);
    expect(output).not.toContain("a-secret-password");
    expect(output).not.toContain(email);
    // Startup messages are JSON lines too.
    expect(lines().some((l) => String(l.msg).includes("listening on"))).toBe(true);
  });
});

describe("/metrics", () => {
  it("answers only the METRICS_TOKEN bearer, with request counts by route, streams and pool use", async () => {
    expect((await fetch(`${origin}/metrics`)).status).toBe(401);
    expect((await fetch(`${origin}/metrics`, { headers: { Authorization: "Bearer wrong" } })).status).toBe(401);

    await (await fetch(`${origin}/works`)).text();
    const events = await fetch(`${origin}/api/events`);
    const reader = events.body!.getReader();
    await reader.read();

    const metrics = await fetch(`${origin}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("Content-Type")).toMatch(/^text\/plain;.*version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toMatch(/^inkstone_http_requests_total\{method="GET",route="\/works",status="200"\} \d+$/m);
    expect(text).toMatch(/^inkstone_http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/works"\} \d+$/m);
    expect(text).toMatch(/^inkstone_sse_connections 1$/m);
    expect(text).toMatch(/^inkstone_generation_streams 0$/m);
    expect(text).toMatch(/^inkstone_db_pool_size \d+$/m);
    expect(text).toMatch(/^inkstone_db_transactions_open \d+$/m);
    expect(text).toMatch(/^inkstone_process_resident_memory_bytes \d+/m);
    await reader.cancel();
  });
});

describe("errors in the log", () => {
  it("keep a failed query's SQL but never its parameters, and carry the request id", async () => {
    const secret = "第一章的全文：不该出现在日志里";
    const failure = await db.execute(sql`select ${secret}::int as n`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(String((failure as Error).message)).toContain(secret); // what drizzle puts in its message
    const chunks: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        chunks.push(String(chunk));
        callback();
      },
    });
    const logger = createLogger(sink);
    requestScope.run({ id: "request-id-123" }, () => logger.error({ err: failure }, "unexpected error: POST /submit"));
    const line = JSON.parse(chunks.join("")) as { req_id: string; err: { message: string; stack: string; cause?: { code?: string; message?: string } } };
    expect(line.req_id).toBe("request-id-123");
    expect(line.err.message).toMatch(/^Failed query: select \$1::int as n/);
    expect(line.err.cause).toMatchObject({ code: "22P02", message: 'invalid input syntax for type integer: "[redacted]"' });
    expect(JSON.stringify(line)).not.toContain(secret);
    expect(serializeError(new Error("plain")).message).toBe("plain");
  });
});
