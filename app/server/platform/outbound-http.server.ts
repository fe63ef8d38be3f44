import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { DomainError } from "./errors.server";

/**
 * Outgoing HTTP for the administrator's connectivity tests: the URL is typed by an
 * administrator, so the request must not become a way into the cloud metadata service
 * or other link-local addresses. Loopback and private networks stay allowed on purpose:
 * a self-hosted Ollama or vLLM (docs/product.md D7) usually lives there.
 *
 * The address is checked when the socket connects (a custom DNS lookup), so a name that
 * resolves to a forbidden address, or changes between check and use, is refused too.
 * Redirects are not followed. The whole exchange has a deadline.
 */
const OUTBOUND_TIMEOUT_MS = 15_000;
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * A request to an address the administrator entered that was refused or failed: 400 for
 * the address itself, 502 or 504 for what the other end did.
 */
export class OutboundError extends DomainError {
  constructor(
    message: string,
    readonly reason: "invalid-url" | "forbidden-address" | "timeout" | "network" | "too-large",
  ) {
    super(message, reason === "timeout" ? 504 : reason === "network" || reason === "too-large" ? 502 : 400);
    this.name = "OutboundError";
  }
}

function ipv4Parts(address: string): number[] | null {
  if (!net.isIPv4(address)) return null;
  return address.split(".").map(Number);
}

/** Addresses no connectivity test may reach: link-local (cloud metadata), unspecified, multicast, broadcast. @internal */
export function isForbiddenAddress(address: string): boolean {
  let a = address.toLowerCase();
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) a = mapped[1];
  const v4 = ipv4Parts(a);
  if (v4) {
    const [x, y] = v4;
    if (x === 169 && y === 254) return true; // link-local, 169.254.169.254 metadata
    if (x === 0) return true; // "this network"
    if (x >= 224) return true; // multicast, reserved, broadcast
    if (x === 100 && y === 100 && v4[2] === 100 && v4[3] === 200) return true; // Alibaba Cloud metadata
    return false;
  }
  if (net.isIPv6(a)) {
    if (a === "::" || a === "::0") return true;
    if (/^fe[89ab][0-9a-f]:/.test(a)) return true; // fe80::/10 link-local
    if (a.startsWith("ff")) return true; // multicast
    if (a === "fd00:ec2::254") return true; // AWS metadata over IPv6
    return false;
  }
  return true; // not an IP address at all: refuse rather than guess
}

/** Parses an administrator-typed URL: http or https only, no credentials in it. */
export function parseOutboundUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new OutboundError("接口地址无效，请输入以http或https开头的地址", "invalid-url");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundError("接口地址无效，请输入以http或https开头的地址", "invalid-url");
  }
  if (url.username || url.password) throw new OutboundError("接口地址不能包含用户名或密码", "invalid-url");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) && isForbiddenAddress(host)) {
    throw new OutboundError("不允许访问该地址（链路本地或元数据地址）", "forbidden-address");
  }
  if (host === "metadata.google.internal" || host.endsWith(".metadata.google.internal")) {
    throw new OutboundError("不允许访问该地址（链路本地或元数据地址）", "forbidden-address");
  }
  return url;
}

const guardedLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 4);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isForbiddenAddress(a.address));
    if (bad || list.length === 0) {
      const refused = new OutboundError("不允许访问该地址（链路本地或元数据地址）", "forbidden-address");
      return callback(refused as NodeJS.ErrnoException, "", 4);
    }
    if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One HTTP request with the guards above; resolves with the status and body text. */
export function outboundRequest(
  rawUrl: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number },
): Promise<OutboundResponse> {
  const url = parseOutboundUrl(rawUrl);
  const timeoutMs = init.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
  const client = url.protocol === "https:" ? https : http;
  const body = init.body === undefined ? undefined : Buffer.from(init.body, "utf8");
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      fn();
    };
    const request = client.request(
      url,
      {
        method: init.method ?? "GET",
        headers: { ...init.headers, ...(body ? { "Content-Length": String(body.byteLength) } : {}) },
        lookup: guardedLookup,
        // A literal IP in the URL skips the lookup: it was checked in parseOutboundUrl.
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > MAX_RESPONSE_BYTES) {
            request.destroy();
            finish(() => reject(new OutboundError("接口响应过大", "too-large")));
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          finish(() => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8") })),
        );
        response.on("error", (error) => finish(() => reject(new OutboundError(connectionProblem(error), "network"))));
      },
    );
    const deadline = setTimeout(() => {
      request.destroy();
      finish(() => reject(new OutboundError(`请求超时（${Math.round(timeoutMs / 1000)}秒）`, "timeout")));
    }, timeoutMs);
    request.on("error", (error) =>
      finish(() => reject(error instanceof OutboundError ? error : new OutboundError(connectionProblem(error), "network"))),
    );
    if (body) request.write(body);
    request.end();
  });
}

/** The error code of a failed connection (Node puts it on the error or on its cause). */
function errorCode(error: unknown): string {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return "";
}

/**
 * What went wrong with a connection, in Chinese, for the user and the administrator alike
 * (never Node's English such as "connect ECONNREFUSED").
 */
export function connectionProblem(error: unknown): string {
  const code = errorCode(error);
  if (code === "ECONNREFUSED") return "无法连接（连接被拒绝），请检查接口地址和端口";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "无法连接（域名无法解析），请检查接口地址";
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return "无法连接（网络不可达）";
  if (code === "ETIMEDOUT") return "连接超时";
  if (code.includes("CERT") || code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL")) return "无法建立安全连接（证书或TLS错误）";
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET") return "连接被对方中断";
  return "连接失败";
}
