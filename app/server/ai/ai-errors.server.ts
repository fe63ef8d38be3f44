import { DomainError } from "~/server/platform/errors.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { connectionProblem } from "~/server/platform/outbound-http.server";

export type AiErrorKind =
  | "auth"
  | "rate-limit"
  | "server"
  | "status"
  | "unreadable"
  | "network"
  | "first-byte-timeout"
  | "idle-timeout"
  | "blocked"
  | "empty"
  /** The site's AI configuration is missing or wrong: not the user's fault, nor the provider's. */
  | "config";

/**
 * A failed call to the AI provider, with the message the user reads (docs/product.md) and the
 * HTTP status our own route answers with (a gateway error: the fault is upstream).
 */
export class AiError extends DomainError {
  constructor(
    message: string,
    readonly kind: AiErrorKind,
    readonly upstreamStatus?: number,
    readonly detail?: string,
  ) {
    super(message, kind === "config" ? 503 : kind === "first-byte-timeout" || kind === "idle-timeout" ? 504 : 502);
    this.name = "AiError";
  }
}

/** The upstream error text (OpenAI `error.message`, Gemini `error.message`/`status`), for logs. */
function upstreamDetail(body: string): string {
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown; status?: unknown } | string };
    if (typeof json.error === "string") return json.error.slice(0, 300);
    const message = json.error?.message;
    if (typeof message === "string") return message.slice(0, 300);
  } catch {
    // not JSON
  }
  return body.slice(0, 300);
}

/**
 * Maps a non-2xx provider answer to docs/product.md's messages. Gemini answers a bad key with
 * 400 API_KEY_INVALID (docs/protocols.md), which is the invalid-key message too.
 */
export function errorForStatus(status: number, body = ""): AiError {
  const detail = upstreamDetail(body);
  if (status === 401 || (status === 400 && body.includes("API_KEY_INVALID"))) {
    return new AiError(AI_MESSAGES.invalidKey, "auth", status, detail);
  }
  if (status === 429) return new AiError(AI_MESSAGES.rateLimited, "rate-limit", status, detail);
  if (status === 500) return new AiError(AI_MESSAGES.serverError, "server", status, detail);
  return new AiError(AI_MESSAGES.requestFailed(status), "status", status, detail);
}

/**
 * An `error` object inside a 200 body or an SSE event (some OpenAI-compatible servers
 * report mid-stream failures this way). Its code, when numeric, picks the message.
 */
export function errorFromPayload(error: unknown): AiError {
  const e = (typeof error === "object" && error ? error : {}) as { code?: unknown; status?: unknown; message?: unknown };
  const code = typeof e.code === "number" ? e.code : Number(e.code);
  const text = JSON.stringify({ error });
  if (Number.isInteger(code) && code >= 400 && code < 600) return errorForStatus(code, text);
  if (e.status === "UNAUTHENTICATED" || text.includes("API_KEY_INVALID") || e.code === "invalid_api_key") {
    return new AiError(AI_MESSAGES.invalidKey, "auth", undefined, upstreamDetail(text));
  }
  if (e.status === "RESOURCE_EXHAUSTED" || e.code === "rate_limit_exceeded" || e.code === "insufficient_quota") {
    return new AiError(AI_MESSAGES.rateLimited, "rate-limit", undefined, upstreamDetail(text));
  }
  return new AiError(AI_MESSAGES.serviceFailed, "server", undefined, upstreamDetail(text));
}

export function unreadable(detail?: string): AiError {
  return new AiError(AI_MESSAGES.unreadable, "unreadable", undefined, detail);
}

/** A connection failure of a provider call: 服务调用失败 and which failure it was. */
export function networkError(error: unknown): AiError {
  const detail = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : String(error);
  return new AiError(`${AI_MESSAGES.serviceFailed}：${connectionProblem(error)}`, "network", undefined, detail.trim());
}
