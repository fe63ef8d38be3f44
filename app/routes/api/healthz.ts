import { pingDatabase } from "~/db/client.server";
import { getStorage } from "~/server/platform/storage.server";

/** Each check gets this long: a load balancer must hear back within 2 s, even while the database is unreachable. */
const CHECK_MS = 1_500;

/** A failure in a word: the first error code down the cause chain (ECONNREFUSED, ENOSPC), never a query or its parameters. */
function reasonOf(error: unknown): string {
  let e = error as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; e && i < 5; i++) {
    if (typeof e.code === "string" && e.code) return e.code;
    e = e.cause as typeof e;
  }
  return error instanceof Error ? error.name : "unknown";
}

function withinTime(check: Promise<unknown>): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`no answer within ${CHECK_MS} ms`), CHECK_MS)));
  return Promise.race([
    check.then(
      () => null,
      (error: unknown) => reasonOf(error),
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}

/**
 * Load balancer health check: 200 "ok" once the database answers and the uploads can be
 * written; otherwise 503 naming what failed (docs/decisions/078-failing-fast.md).
 */
export async function loader() {
  const [database, storage] = await Promise.all([withinTime(pingDatabase()), withinTime(getStorage().probe?.() ?? Promise.resolve())]);
  const headers = { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" };
  if (!database && !storage) return new Response("ok", { headers });
  const problems = [database && `database unavailable: ${database}`, storage && `storage unavailable: ${storage}`].filter(Boolean);
  console.error(`healthz: ${problems.join("; ")}`);
  return new Response(problems.join("\n"), { status: 503, headers });
}
