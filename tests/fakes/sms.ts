import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fake SMS provider speaking the one shape the site sends (docs/protocols.md#sms,
 * app/server/platform/sms.server.ts): `POST` with `Content-Type: application/json` and
 * `{"phone": "...", "text": "..."}`, optionally `Authorization: Bearer <token>`. It answers
 * 200 `{"ok":true}`, 400 to a body of another shape, 401 to a wrong token, and 500 while
 * `failing` is set, and keeps what it accepted.
 */
interface ReceivedSms {
  phone: string;
  text: string;
  authorization: string | null;
}

export interface FakeSms {
  /** http://127.0.0.1:<port>/send, for SMS_URL. */
  url: string;
  messages: ReceivedSms[];
  /** Answer 500 to every message while true. */
  failing: boolean;
  close(): Promise<void>;
}

export async function startFakeSms(opts: { token?: string } = {}): Promise<FakeSms> {
  const fake: FakeSms = { url: "", messages: [], failing: false, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const answer = (status: number, body: object) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.method !== "POST" || req.url !== "/send") return answer(404, { error: "not found" });
      if (!req.headers["content-type"]?.startsWith("application/json")) return answer(400, { error: "JSON only" });
      const authorization = req.headers.authorization ?? null;
      if (opts.token && authorization !== `Bearer ${opts.token}`) return answer(401, { error: "bad token" });
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return answer(400, { error: "not JSON" });
      }
      const { phone, text } = (body ?? {}) as { phone?: unknown; text?: unknown };
      if (typeof phone !== "string" || typeof text !== "string" || Object.keys(body as object).length !== 2) {
        return answer(400, { error: "expected {phone, text}" });
      }
      if (fake.failing) return answer(500, { error: "provider down" });
      fake.messages.push({ phone, text, authorization });
      answer(200, { ok: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`;
  fake.close = () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return fake;
}
