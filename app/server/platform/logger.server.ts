import { AsyncLocalStorage } from "node:async_hooks";
import { createRequire } from "node:module";
import { format } from "node:util";
import pino, { type DestinationStream, type Logger } from "pino";

/**
 * The process's structured log (docs/decisions/079-logs-and-metrics.md): JSON lines on
 * stdout through pino, at LOG_LEVEL (default info); readable lines through pino-pretty
 * when NODE_ENV is not production and pino-pretty is installed (a devDependency).
 *
 * Never in a log line: cookies, request bodies, query strings, query parameters. Errors
 * pass through `serializeError`, which keeps a failed query's SQL (cut short) but not its
 * parameters (a session id, 200 KB of chapter text).
 */

export interface RequestScope {
  /** The request id, also sent back as X-Request-Id. */
  id: string;
  /** What the app fills in while serving it, for the request's log line. */
  route?: string;
  userId?: string;
}

const SCOPE_KEY = Symbol.for("inkstone.requestScope");
const LOGGER_KEY = Symbol.for("inkstone.logger");
const shared = globalThis as unknown as Record<symbol, unknown>;

/** The request being served, for the log lines written while serving it (server.js opens it). */
export const requestScope: AsyncLocalStorage<RequestScope> = ((shared[SCOPE_KEY] as AsyncLocalStorage<RequestScope> | undefined) ??=
  new AsyncLocalStorage<RequestScope>());

const SQL_SHOWN = 300;
const SAFE_FIELDS = ["code", "severity", "routine", "constraint", "table", "column", "schema", "errno", "syscall", "status"] as const;

/**
 * An error as a log field: its class, message, code and stack, and its cause, the same
 * way. A drizzle query error's message and stack carry every parameter of the query:
 * they become the start of the SQL alone. Other enumerable fields (postgres.js's
 * `parameters` in debug mode, PGlite's `params`) are left out.
 * @internal
 */
export function serializeError(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error).slice(0, 500) };
  const e = error as Error & { query?: unknown; params?: unknown; cause?: unknown } & Record<string, unknown>;
  const failedQuery = typeof e.query === "string" && e.message.startsWith("Failed query:");
  // PostgreSQL's own messages may quote the value they refused (invalid input syntax for
  // type integer: "<the value>"): a database error's message loses its quoted end.
  const fromDatabase = typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code);
  const message = failedQuery
    ? `Failed query: ${(e.query as string).slice(0, SQL_SHOWN)}`
    : fromDatabase
      ? e.message.replace(/:\s*"[\s\S]*"\s*$/, ': "[redacted]"').slice(0, SQL_SHOWN)
      : e.message;
  const stackBody = e.stack ? e.stack.slice(e.stack.indexOf("\n    at ") >= 0 ? e.stack.indexOf("\n    at ") : e.stack.length) : "";
  const out: Record<string, unknown> = { type: e.name, message, stack: `${e.name}: ${message}${stackBody}` };
  for (const field of SAFE_FIELDS) if (e[field] !== undefined && typeof e[field] !== "object") out[field] = e[field];
  if (e.cause !== undefined && depth < 3) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

function prettyStream(): DestinationStream | undefined {
  if (process.env.NODE_ENV === "production" || process.env.LOG_FORMAT === "json") return undefined;
  try {
    const require = createRequire(import.meta.url);
    const pretty = require("pino-pretty") as (options: Record<string, unknown>) => DestinationStream;
    return pretty({ sync: true, colorize: process.stdout.isTTY, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" });
  } catch {
    return undefined; // not installed (a production install): JSON lines
  }
}

/** A logger writing to `destination` (stdout by default), as the process's one is made. @internal */
export function createLogger(destination?: DestinationStream): Logger {
  const level = process.env.LOG_LEVEL?.trim() || "info";
  return pino(
    {
      level: pino.levels.values[level] !== undefined ? level : "info",
      base: { pid: process.pid },
      serializers: { err: serializeError, error: serializeError },
      // The request a line was written for, when it was written while serving one.
      mixin: () => {
        const scope = requestScope.getStore();
        return scope ? { req_id: scope.id } : {};
      },
    },
    destination ?? prettyStream() ?? pino.destination(1),
  );
}

/** The process's logger, shared by server.js and the app (one per process). */
export const logger: Logger = ((shared[LOGGER_KEY] as Logger | undefined) ??= createLogger());

/**
 * Sends console.error/warn/info/log through the logger (server.js does this at start), so
 * the app's older console calls become JSON lines with the request id, and an error among
 * their arguments goes through serializeError instead of being printed with its parameters.
 */
export function routeConsoleToLogger(target: Logger = logger): void {
  const route = (level: "error" | "warn" | "info") => (...args: unknown[]) => {
    const err = args.find((a) => a instanceof Error);
    const rest = args.filter((a) => a !== err);
    const msg = format(...rest.map((a) => (typeof a === "object" && a !== null ? "[object]" : a)));
    if (err) target[level]({ err }, msg);
    else target[level](msg);
  };
  console.error = route("error");
  console.warn = route("warn");
  console.info = route("info");
  console.log = route("info");
}
