import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../bench/lib-server";
import { startFakeSmtp, type FakeSmtp } from "../fakes/smtp";
import { requireBuild, startServerProcess, type Child } from "../fixtures/processes";
import { childDatabase } from "../fixtures/server-database";
import { uniqueEmail } from "../fixtures/accounts";
import { quietFor } from "../fixtures/wait";

/**
 * `node server.js` behind a real proxy, as deployed with TRUST_PROXY=1 (docs/decisions/165),
 * without SITE_URL (docs/decisions/166) and without METRICS_TOKEN. The proxy is a tiny
 * Node HTTP proxy that appends the address it received each request from to
 * X-Forwarded-For, as nginx's $proxy_add_x_forwarded_for does. Clients connect from
 * different loopback addresses (127.0.0.2, 127.0.0.3 ...), so each has an address of its
 * own.
 */
let server: Child;
let serverPort: number;
let proxy: http.Server;
let proxyPort: number;
let smtp: FakeSmtp;
let removeDatabase = () => {};

beforeAll(async () => {
  requireBuild();
  smtp = await startFakeSmtp();
  serverPort = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, TRUST_PROXY: "1", SMTP_URL: smtp.url, LOGIN_LOCK_AFTER: "10" };
  for (const name of ["SITE_URL", "METRICS_TOKEN", "NODE_ENV", "LOGIN_ADDRESS_LIMIT", "RATE_LIMIT_PER_ADDRESS"]) delete env[name];
  const database = childDatabase(env);
  removeDatabase = database.remove;
  server = await startServerProcess(database.env, serverPort);

  proxy = http.createServer((req, res) => {
    const from = (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
    const prior = req.headers["x-forwarded-for"];
    const headers = { ...req.headers, "x-forwarded-for": prior ? `${prior}, ${from}` : from };
    const upstream = http.request({ host: "127.0.0.1", port: serverPort, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
}, 90_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  if (server && server.process.exitCode === null) {
    server.process.kill("SIGTERM");
    await server.exited;
  }
  await smtp?.close();
  removeDatabase();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request from `from` (a loopback address) to `port` (the proxy unless told). */
function send(path: string, opts: { from: string; method?: string; headers?: Record<string, string>; form?: Record<string, string>; port?: number }): Promise<Answer> {
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  const port = opts.port ?? proxyPort;
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        localAddress: opts.from,
        method: opts.method ?? (body ? "POST" : "GET"),
        path,
        headers: {
          Origin: `http://127.0.0.1:${port}`,
          ...(body ? { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(Buffer.byteLength(body)) } : {}),
          ...opts.headers,
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

describe("TRUST_PROXY=1 behind a proxy that appends to X-Forwarded-For", () => {
  it("takes the address the proxy appended: a client writing someone's address locks only itself", async () => {
    const victim = { email: uniqueEmail("victim"), password: "victim-password-1" };
    expect((await send("/auth/register", { from: "127.0.0.3", form: victim })).status).toBe(302);

    // The attacker (127.0.0.2) claims to be the victim's address (127.0.0.3).
    for (let i = 0; i < 10; i++) {
      const wrong = await send("/auth/login", { from: "127.0.0.2", headers: { "X-Forwarded-For": "127.0.0.3" }, form: { email: victim.email, password: `wrong-password-${i}` } });
      expect(wrong.status).toBe(400);
    }
    // The lock falls on the attacker's own address ...
    const locked = await send("/auth/login", { from: "127.0.0.2", headers: { "X-Forwarded-For": "127.0.0.3" }, form: victim });
    expect(locked.status).toBe(429);
    // ... and the victim signs in from theirs.
    const signedIn = await send("/auth/login", { from: "127.0.0.3", form: victim });
    expect(signedIn.status).toBe(302);
    expect(String(signedIn.headers["set-cookie"])).toMatch(/inkstone_session=/);
  });
});

describe("SITE_URL unset", () => {
  it("sends no mail, whatever Host the request names, and says so at start and on the page", async () => {
    expect(server.output()).toContain("SITE_URL is not set: password reset mails are not sent");
    const email = uniqueEmail("reset");
    expect((await send("/auth/register", { from: "127.0.0.4", form: { email, password: "reset-password-1" } })).status).toBe(302);

    const page = await send("/auth/forgot-password", { from: "127.0.0.4" });
    expect(page.status).toBe(200);
    expect(page.body).toContain("本站尚未设置网站地址，暂时无法发送重置邮件，请联系网站管理员");

    // The forged request of the report: Host and Origin of another site.
    const forged = await send("/auth/forgot-password", {
      from: "127.0.0.4",
      port: serverPort,
      headers: { Host: "evil.example", Origin: "http://evil.example" },
      form: { email },
    });
    expect(forged.status).toBe(503);
    expect(forged.body).toContain("本站尚未设置网站地址");
    // Were a mail sent, it would have arrived by now.
    await quietFor(500);
    expect(smtp.messages.filter((m) => m.to.includes(email))).toEqual([]);
  });
});

describe("/metrics without METRICS_TOKEN", () => {
  it("is not found, for any method, with or without a bearer", async () => {
    for (const headers of [{}, { Authorization: "Bearer anything" }] as Record<string, string>[]) {
      const answer = await send("/metrics", { from: "127.0.0.5", port: serverPort, headers });
      expect([answer.status, answer.headers.location]).toEqual([404, undefined]);
    }
    expect((await send("/metrics", { from: "127.0.0.5", port: serverPort, method: "POST" })).status).toBe(404);
  });
});
