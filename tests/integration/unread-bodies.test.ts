import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendThrough, upload } from "../fixtures/keep-alive";
import { startChildServer } from "../fixtures/server-database";

/**
 * A POST answered before its body was read (docs/decisions/168-unread-request-bodies.md):
 * a visitor's 2 MB upload that the sign-in guard redirects at once. The next request on
 * that keep-alive connection used to wait behind the unread body until the keep-alive
 * timeout reset the connection. A real `node server.js` and real sockets.
 */
let origin: string;
let stop = async () => {};

beforeAll(async () => {
  ({ origin, stop } = await startChildServer());
}, 90_000);

afterAll(() => stop());

const send = (agent: http.Agent, method: string, to: string, body?: Buffer, headers: http.OutgoingHttpHeaders = {}) =>
  sendThrough(agent, origin, method, to, body, headers);

describe("an answer given before the request body was read", () => {
  it("leaves the keep-alive connection usable: the next request on it is answered", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const { body, headers } = upload(2 * 1024 * 1024);
      // Signed out: the shell's guard sends the visitor to sign in, reading nothing of the body.
      const refused = await send(agent, "POST", "/submit", body, headers);
      expect([refused.status, refused.headers.location]).toEqual([302, expect.stringContaining("auth=login")]);
      expect(refused.headers.connection).toBe("keep-alive");

      // The same connection (one socket in the agent, kept alive), answered, not reset.
      const next = await send(agent, "GET", "/healthz");
      expect([next.reused, next.socket === refused.socket, next.status, next.body]).toEqual([true, true, 200, "ok"]);
    } finally {
      agent.destroy();
    }
  }, 60_000);

  it("keeps an idle connection open 65 s and says so, not Node's 5 s that a pausing client raced (ECONNRESET)", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await send(agent, "GET", "/healthz");
      expect([first.status, first.headers.connection, first.headers["keep-alive"]]).toEqual([200, "keep-alive", "timeout=65"]);
    } finally {
      agent.destroy();
    }
  });

  it("closes the connection instead when the body is too long to read and throw away", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // 100 MB announced, 1 MB sent: the answer says the connection ends, and it ends.
      const { body, headers } = upload(1024 * 1024);
      let answered = false;
      const answer = await new Promise<{ status: number; connection?: string; closed: Promise<void> }>((resolve, reject) => {
        const request = http.request(
          new URL("/submit", origin),
          { method: "POST", agent, headers: { Origin: origin, ...headers, "Content-Length": 100 * 1024 * 1024 } },
          (response) => {
            answered = true;
            response.resume();
            response.on("end", () => resolve({ status: response.statusCode!, connection: response.headers.connection, closed }));
          },
        );
        // Once it has answered, the server cuts the upload: the write may fail then, and the
        // answer stands. A failure before the answer fails the test.
        request.on("error", (error: NodeJS.ErrnoException) => {
          if (!answered || !["ECONNRESET", "EPIPE"].includes(error.code ?? "")) reject(error);
        });
        const closed = new Promise<void>((done) => request.once("socket", (socket) => socket.once("close", () => done())));
        request.write(body);
      });
      expect([answer.status, answer.connection]).toEqual([302, "close"]);
      await answer.closed;

      // The client's next request goes out on a new connection and is answered.
      const next = await send(agent, "GET", "/healthz");
      expect([next.reused, next.status]).toEqual([false, 200]);
    } finally {
      agent.destroy();
    }
  }, 60_000);
});
