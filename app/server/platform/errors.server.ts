import { data } from "react-router";
import { logger } from "./logger.server";

/**
 * A failure the user should read, with the HTTP status it deserves: the one family every
 * error a user can cause (or an upstream service's refusal the user must be told about)
 * extends (docs/architecture.md#forms-and-errors). Anything else is unexpected and goes
 * to entry.server's handleError.
 */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503 | 504 = 400,
    readonly field?: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/** What a user reads when a write fails for lack of space: an upload, or the database's own files. @internal */
export const STORAGE_FULL_MESSAGE = "存储空间不足，请稍后再试或联系管理员";

export class StorageFullError extends DomainError {
  constructor() {
    super(STORAGE_FULL_MESSAGE, 503);
    this.name = "StorageFullError";
  }
}

/** PostgreSQL's (and PGlite's) SQLSTATE for a write refused for lack of space (`could not extend file`). */
const DISK_FULL_SQLSTATE = "53100";

/**
 * A failure for lack of space, down the cause chain (drizzle wraps a query's error): a
 * full or over-quota file system (ENOSPC, EDQUOT), the database's disk_full, an S3 507
 * (docs/decisions/078 and 169).
 */
export function isOutOfSpace(error: unknown): boolean {
  return outOfSpaceCause(error) !== null;
}

/** The error down the cause chain that says space ran out, or null. */
function outOfSpaceCause(error: unknown): unknown {
  for (let at = error, depth = 0; at && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT" || code === DISK_FULL_SQLSTATE) return at;
    if (at instanceof Error && /HTTP 507\b/.test(at.message)) return at;
  }
  return null;
}

/**
 * The DomainError a user should read for `error`: itself, 存储空间不足 for a write refused
 * for lack of space (an upload or a database write), else null (unexpected). Every place
 * that turns errors into a user's message asks this.
 *
 * With `unexpected` (购买失败，请重试, 生成失败，请重试, ...), the unexpected too becomes
 * that message with 500, logged here as handleError would log it: the one exception to
 * "the unexpected goes to handleError", for the few answers that must stay where the user
 * is (a purchase dialog, the credits forms, a generation's JSON answer or stream event;
 * docs/decisions/182).
 */
export function domainErrorOf(error: unknown): DomainError | null;
export function domainErrorOf(error: unknown, unexpected: string): DomainError;
export function domainErrorOf(error: unknown, unexpected?: string): DomainError | null {
  if (error instanceof DomainError) return error;
  const cause = outOfSpaceCause(error);
  if (cause) {
    // The failing part's own words (`could not extend file "base/5/16384": No space left
    // on device`), never the query around it and its parameters.
    console.error(`storage full: ${cause instanceof Error ? cause.message : String(cause)}`);
    return new StorageFullError();
  }
  if (unexpected === undefined) return null;
  logger.error({ err: error }, `unexpected error, answered with ${unexpected}`);
  return new DomainError(unexpected, 500);
}

/** For loaders: turn a DomainError into a thrown response the error boundary renders. */
export function asRouteError(error: unknown): never {
  const known = domainErrorOf(error);
  if (known) throw data(known.message, { status: known.status });
  throw error;
}

/** A loader's work, with a DomainError it throws rendered as its 4xx page (asRouteError). */
export async function orRouteError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    asRouteError(error);
  }
}

/**
 * The one place an action turns a DomainError into its answer: what `work` returns, or,
 * for a DomainError it throws, `reply(error)` with the error's status (a form reply the
 * page shows by its fields); a write refused for lack of space is a StorageFullError
 * (domainErrorOf). Anything else propagates to entry.server's handleError: a route does
 * not catch what it cannot explain.
 */
export async function replyOnDomainError<T, R>(work: () => Promise<T>, reply: (error: DomainError) => R | Promise<R>) {
  try {
    return await work();
  } catch (error) {
    const known = domainErrorOf(error);
    if (known) return data(await reply(known), { status: known.status });
    throw error;
  }
}

/**
 * A resource route's answer to what its work threw (docs/architecture.md#forms-and-errors):
 * a DomainError, or a write refused for lack of space (domainErrorOf), as its message and
 * status, in plain text or as JSON `{ error }`; anything else propagates to entry.server's
 * handleError. The one place a resource route turns an error into a response.
 */
export function toResponse(error: unknown, format: "text" | "json" = "text", headers: Record<string, string> = {}): Response {
  const known = domainErrorOf(error);
  if (!known) throw error;
  if (format === "json") return Response.json({ error: known.message }, { status: known.status, headers });
  return new Response(known.message, {
    status: known.status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

/** A DomainError as a Conform reply's errors: on its field when it names one, else the form's. */
export function formErrorsOf(error: DomainError): { formErrors?: string[]; fieldErrors?: Record<string, string[]> } {
  return error.field ? { fieldErrors: { [error.field]: [error.message] } } : { formErrors: [error.message] };
}
