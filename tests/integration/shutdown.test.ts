import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../bench/lib-server";
import { startServerProcess, type Child, requireBuild } from "../fixtures/processes";
import { signUpAt } from "../fixtures/accounts";
import { childDatabase } from "../fixtures/server-database";
import { quietFor } from "../fixtures/wait";

/**
 * A restart does not cut requests (docs/decisions/076): `node server.js` gets SIGTERM
 * while a TXT-sized publish is still uploading and a live-update stream is open.
 */
const servers: Child[] = [];
const removals: (() => void)[] = [];

async function start(extra: NodeJS.ProcessEnv): Promise<{ server: Child; origin: string }> {
  const database = childDatabase({ ...process.env, ...extra });
  removals.push(database.remove);
  const env = { ...database.env };
  delete env.NODE_ENV;
  const port = await freePort();
  const server = await startServerProcess(env, port);
  servers.push(server);
  return { server, origin: `http://127.0.0.1:${port}` };
}

/**
 * A POST whose body is sent in two parts. `inFlight` resolves once the server has taken
 * the request (it answers `Expect: 100-continue` when it hands the request to the app) and
 * the first part is sent; `finish()` sends the rest and resolves with the answer.
 */
function slowPost(origin: string, to: string, body: string, cookie: string) {
  const url = new URL(to, origin);
  const bytes = Buffer.from(body);
  let started: http.ClientRequest | undefined;
  let taken!: () => void;
  const inFlight = new Promise<void>((resolve) => (taken = resolve));
  const answer = new Promise<{ status: number; location?: string; connection?: string }>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "POST",
        headers: { Origin: origin, Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded", "Content-Length": bytes.length, Expect: "100-continue" },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode!, location: response.headers.location, connection: response.headers.connection }));
      },
    );
    request.on("error", reject);
    request.on("continue", () => request.write(bytes.subarray(0, bytes.length >> 1), () => taken()));
    request.flushHeaders();
    started = request;
  });
  return {
    answer,
    inFlight,
    finish: () => {
      started!.end(bytes.subarray(bytes.length >> 1));
      return answer;
    },
  };
}

beforeAll(() => {
  requireBuild();
});

afterAll(async () => {
  for (const server of servers) {
    if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill("SIGKILL");
    await server.exited;
  }
  for (const remove of removals) remove();
});

describe("SIGTERM", () => {
  it("stops accepting, ends live streams, lets a publish in flight commit and answer, then exits 0", async () => {
    const { server, origin } = await start({ SHUTDOWN_GRACE_MS: "15000" });
    const cookie = await signUpAt(origin);

    // A live-update stream, open and past its first bytes.
    const events = await fetch(`${origin}/api/events`, { headers: { Cookie: cookie } });
    const reader = events.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(": connected");

    // A publish whose body is still on its way: 600,000 characters of text.
    const content = "雨落在青石板上，巷子深处传来一声悠长的吆喝。\n".repeat(25_000);
    const fields = { status: "completed", type: "single_chapter", title: "关机时发布", description: "简介", rating: "all_ages", visibility: "public", content };
    const publish = slowPost(origin, "/submit", new URLSearchParams(fields).toString(), cookie);
    await publish.inFlight;

    server.process.kill("SIGTERM");
    // The live stream ends (the browser reconnects elsewhere) ...
    const ended = await Promise.race([
      (async () => {
        while (!(await reader.read()).done);
        return "ended";
      })(),
      new Promise((r) => setTimeout(() => r("still open"), 5000)),
    ]);
    expect(ended).toBe("ended");
    // ... no new connection is accepted ...
    await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
    expect(server.process.exitCode).toBeNull();
    // ... and the publish in flight finishes: the author sees where the work went.
    expect(await publish.finish()).toEqual({ status: 302, location: "/my-works?tab=free", connection: "close" });
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain("SIGTERM: shutting down");
    expect(server.output()).not.toContain("still running");
  }, 120_000);

  it("exits at once on a second signal, and after the grace period with a request that never ends", async () => {
    const [patient, impatient] = await Promise.all([start({ SHUTDOWN_GRACE_MS: "2000" }), start({ SHUTDOWN_GRACE_MS: "60000" })]);
    // Requests whose bodies never finish arriving.
    const hanging = [patient, impatient].map(({ origin }) => slowPost(origin, "/auth/login", "email=a%40example.com&password=xxxxxxxx", ""));
    for (const request of hanging) request.answer.catch(() => {});
    await Promise.all(hanging.map((request) => request.inFlight));

    const stoppedAt = Date.now();
    patient.server.process.kill("SIGTERM");
    impatient.server.process.kill("SIGTERM");
    await quietFor(1000); // time in which it would have exited, had it not waited
    expect(impatient.server.process.exitCode).toBeNull(); // waiting for its request
    impatient.server.process.kill("SIGTERM");
    expect(await impatient.server.exited).toBe(1);
    expect(impatient.server.output()).toContain("SIGTERM again: exiting now, 1 requests cut");

    expect(await patient.server.exited).toBe(0);
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(1900);
    expect(patient.server.output()).toContain("1 requests still running after 2000 ms");
  }, 120_000);
});
