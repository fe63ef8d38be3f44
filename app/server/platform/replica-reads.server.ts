import type { MiddlewareFunction } from "react-router";
import { hasReplicas, readScope, replicaMaxLagMs, writePosition } from "~/db/client.server";
import { parseLsn } from "~/db/replicas.server";
import { isSecureRequest, lastWriteCookie } from "./cookies.server";

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The cookie's value when a write's position could not be read: the primary until the cookie ends. */
const UNKNOWN = "unknown";

/**
 * On the root route, so every page, data request and resource route runs behind it
 * (docs/architecture.md#read-replicas, docs/decisions/265). With read replicas configured:
 * - a GET, HEAD or OPTIONS runs in a read scope: its replica-eligible reads (`readDb()`)
 *   go to a replica that has replayed the person's last write (the signed `inkstone_wrote`
 *   cookie), else to the primary;
 * - any other method runs without one (everything on the primary), and when it was a
 *   person's (a cookie came with it or is set by its answer) the primary's position after
 *   it is put in that cookie: read-your-writes. A position that cannot be read leaves the
 *   person on the primary for as long as a replica in use may lag.
 * A cookie that is missing, forged or unreadable counts as no write.
 * Without replicas (and always on PGlite) it does nothing.
 */
export const replicaReadsMiddleware: MiddlewareFunction<Response> = async ({ request }, next) => {
  if (!hasReplicas) return next();
  if (READS.has(request.method)) {
    const wrote = await lastWrite(request);
    return readScope.run({ after: wrote === UNKNOWN ? null : wrote, primary: wrote === UNKNOWN }, next);
  }
  const response = await next();
  if (!request.headers.get("Cookie") && !response.headers.has("Set-Cookie")) return response;
  const position = await writePosition();
  const cookie = await lastWriteCookie.serialize(position ?? UNKNOWN, {
    secure: isSecureRequest(request),
    // Past the cut-off (and a margin for the polls), every replica in use has replayed
    // the write: the cookie can go.
    maxAge: Math.ceil(replicaMaxLagMs / 1000) + 5,
  });
  return withSetCookie(response, cookie);
};

async function lastWrite(request: Request): Promise<bigint | typeof UNKNOWN | null> {
  const header = request.headers.get("Cookie");
  if (!header?.includes(`${lastWriteCookie.name}=`)) return null;
  const value: unknown = await lastWriteCookie.parse(header).catch(() => null);
  if (value === UNKNOWN) return UNKNOWN;
  if (typeof value !== "string") return null;
  try {
    return parseLsn(value);
  } catch {
    return null;
  }
}

/** The answer with one more Set-Cookie (a copy when its headers are immutable, as a redirect's may be). */
function withSetCookie(response: Response, cookie: string): Response {
  try {
    response.headers.append("Set-Cookie", cookie);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.append("Set-Cookie", cookie);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
