import { pingDatabase, replicaStatus, type ReplicaStatus } from "~/db/client.server";
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

/** One line per read replica, from its last poll (docs/decisions/265). */
function replicaLine(r: ReplicaStatus): string {
  if (!r.up) return `replica ${r.name}: down (${r.problem ?? "unknown"})`;
  return `replica ${r.name}: up, lag ${r.lagMs ?? "?"} ms, ${r.inUse ? "in use" : "not in use (lag above DATABASE_REPLICA_MAX_LAG_MS)"}`;
}

/**
 * Load balancer health check: 200 "ok" once the database answers and the uploads can be
 * written; otherwise 503 naming what failed (docs/decisions/078-failing-fast.md). Each
 * read replica gets a line of its own after that; a replica down or behind never fails
 * the check: reads then go to the primary (docs/decisions/265).
 */
export async function loader() {
  const [database, storage] = await Promise.all([withinTime(pingDatabase()), withinTime(getStorage().probe?.() ?? Promise.resolve())]);
  const headers = { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" };
  const replicas = replicaStatus().map(replicaLine);
  if (!database && !storage) return new Response(["ok", ...replicas].join("\n"), { headers });
  const problems = [database && `database unavailable: ${database}`, storage && `storage unavailable: ${storage}`].filter(Boolean);
  console.error(`healthz: ${problems.join("; ")}`);
  return new Response([...problems, ...replicas].join("\n"), { status: 503, headers });
}
