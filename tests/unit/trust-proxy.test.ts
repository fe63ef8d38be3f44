import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { applyTrustProxy, forwardedHost, trustProxySetting } from "../../server/trust-proxy.js";

/** What an Express app with TRUST_PROXY=`value` takes as the client and host, for one request from 127.0.0.1. */
async function seen(value: string | undefined, headers: Record<string, string>): Promise<{ ip: string; host: string | null }> {
  const app = express();
  applyTrustProxy(app, value);
  app.get("/", (req, res) => {
    res.json({ ip: req.ip, host: forwardedHost(req) });
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: "/", headers }, (response) => {
          let body = "";
          response.on("data", (chunk) => (body += chunk));
          response.on("end", () => resolve(JSON.parse(body)));
        })
        .on("error", reject);
    });
  } finally {
    server.close();
  }
}

describe("TRUST_PROXY (docs/decisions/165)", () => {
  it("is off unset or 0, a count of proxies, or a list of their addresses; true is refused", () => {
    expect([undefined, "", " 0 ", "false"].map(trustProxySetting)).toEqual([false, false, false, false]);
    expect(trustProxySetting("1")).toBe(1);
    expect(trustProxySetting("2")).toBe(2);
    expect(trustProxySetting("10.0.0.5, loopback ,10.1.0.0/16")).toEqual(["10.0.0.5", "loopback", "10.1.0.0/16"]);
    expect(() => trustProxySetting("true")).toThrow(/TRUST_PROXY=true/);
    expect(() => applyTrustProxy(express(), "not-an-address")).toThrow(/TRUST_PROXY is neither/);
  });

  it("takes the address the trusted proxies appended, never one the client wrote", async () => {
    const spoofed = { "X-Forwarded-For": "203.0.113.7, 198.51.100.2", "X-Forwarded-Host": "evil.example, books.example" };
    // Unset: the socket's address, forwarded headers ignored.
    expect(await seen(undefined, spoofed)).toEqual({ ip: "127.0.0.1", host: null });
    // One proxy (the peer): the right-most entry is what it appended; so is the host it wrote.
    expect(await seen("1", spoofed)).toEqual({ ip: "198.51.100.2", host: "books.example" });
    // Two proxies: the entry the outer one appended.
    expect(await seen("2", spoofed)).toEqual({ ip: "203.0.113.7", host: "books.example" });
    // By address: the peer (loopback) is trusted, 198.51.100.2 is not a proxy of ours.
    expect(await seen("loopback", spoofed)).toEqual({ ip: "198.51.100.2", host: "books.example" });
    // A peer that is not in the list: nothing forwarded is believed.
    expect(await seen("10.0.0.5", spoofed)).toEqual({ ip: "127.0.0.1", host: null });
  });
});
