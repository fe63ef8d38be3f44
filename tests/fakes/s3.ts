import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A tiny S3-compatible server for tests: path-style PUT, GET, HEAD and DELETE of
 * objects kept in memory, with every request's AWS Signature Version 4 verified
 * (Authorization header, credential scope, signed headers, payload hash), as a real
 * store would. Requests that fail the check get S3's 403 XML error.
 */
export interface FakeS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  objects: Map<string, { body: Buffer; contentType: string }>;
  /** Each request seen: method, path and whether its signature verified. */
  requests: { method: string; path: string; authorized: boolean }[];
  close(): Promise<void>;
}

const sha256Hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/** RFC 3986 encoding of one path segment, as SigV4 canonical URIs for S3 use. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function errorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

function verifySignature(
  req: http.IncomingMessage,
  body: Buffer,
  url: URL,
  creds: { accessKeyId: string; secretAccessKey: string; region: string },
): string | null {
  const auth = req.headers.authorization;
  if (!auth) return "missing Authorization header";
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!match) return "malformed Authorization header";
  const [, keyId, date, region, signedHeaders, signature] = match;
  if (keyId !== creds.accessKeyId) return "unknown access key";
  if (region !== creds.region) return "wrong region";
  const amzDate = req.headers["x-amz-date"];
  if (typeof amzDate !== "string" || !amzDate.startsWith(date)) return "missing or inconsistent x-amz-date";
  const payloadHash = req.headers["x-amz-content-sha256"];
  if (typeof payloadHash !== "string") return "missing x-amz-content-sha256";
  if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256Hex(body)) return "payload hash mismatch";
  const names = signedHeaders.split(";");
  if (!names.includes("host") || !names.includes("x-amz-date")) return "host and x-amz-date must be signed";

  const canonicalUri = url.pathname
    .split("/")
    .map((s) => encodeSegment(decodeURIComponent(s)))
    .join("/");
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => [encodeSegment(k), encodeSegment(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const canonicalHeaders = names
    .map((name) => {
      const value = req.headers[name];
      const text = Array.isArray(value) ? value.join(",") : (value ?? "");
      return `${name}:${text.trim().replace(/\s+/g, " ")}\n`;
    })
    .join("");
  const canonicalRequest = [req.method, canonicalUri, query, canonicalHeaders, signedHeaders, payloadHash].join("\n");
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, date), region), "s3"), "aws4_request");
  const expected = createHmac("sha256", signingKey).update(stringToSign).digest();
  const given = Buffer.from(signature, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : "signature does not match";
}

export async function startFakeS3(
  options: { bucket?: string; accessKeyId?: string; secretAccessKey?: string; region?: string } = {},
): Promise<FakeS3> {
  const bucket = options.bucket ?? "inkstone-test";
  const creds = {
    accessKeyId: options.accessKeyId ?? "AKIDFAKES3TEST",
    secretAccessKey: options.secretAccessKey ?? "fake-s3-secret-key",
    region: options.region ?? "us-east-1",
  };
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const requests: FakeS3["requests"] = [];

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", "http://localhost");
    const problem = verifySignature(req, body, url, creds);
    requests.push({ method: req.method ?? "", path: url.pathname, authorized: problem === null });

    const send = (status: number, text = "", headers: Record<string, string> = {}) => {
      res.writeHead(status, text ? { "Content-Type": "application/xml", ...headers } : headers);
      res.end(text);
    };
    if (problem) return send(403, errorXml("SignatureDoesNotMatch", problem));

    const [, bucketName, ...rest] = url.pathname.split("/");
    if (bucketName !== bucket) return send(404, errorXml("NoSuchBucket", "The specified bucket does not exist"));
    const key = rest.map(decodeURIComponent).join("/");
    if (!key) return send(400, errorXml("InvalidRequest", "object key required"));

    switch (req.method) {
      case "PUT": {
        objects.set(key, { body, contentType: req.headers["content-type"] ?? "binary/octet-stream" });
        return send(200, "", { ETag: `"${createHash("md5").update(body).digest("hex")}"` });
      }
      case "GET":
      case "HEAD": {
        const object = objects.get(key);
        if (!object) return send(404, errorXml("NoSuchKey", "The specified key does not exist."));
        res.writeHead(200, { "Content-Type": object.contentType, "Content-Length": String(object.body.length) });
        return res.end(req.method === "GET" ? object.body : undefined);
      }
      case "DELETE":
        objects.delete(key);
        return send(204);
      default:
        return send(405, errorXml("MethodNotAllowed", "method not allowed"));
    }
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    ...creds,
    objects,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
