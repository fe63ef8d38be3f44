import { AsyncLocalStorage } from "node:async_hooks";
import client from "prom-client";
import type postgres from "postgres";

/**
 * Read replicas (docs/architecture.md#read-replicas, docs/decisions/265): which replica
 * may answer a read, from each replica's replay position polled a few times a second, and
 * the read scope a request runs in. Here, not in platform: the db layer imports nothing
 * above it.
 */

/** A WAL position (`16/B374D848`) as a number that compares. */
export function parseLsn(text: string): bigint {
  const parts = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text);
  if (!parts) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${parts[1]}`) << 32n) | BigInt(`0x${parts[2]}`);
}

function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * The primary's WAL positions as they were seen, oldest first, one sample per change.
 * A replica's lag is how long ago the primary first stood past the point the replica has
 * replayed: nothing when it has replayed everything seen (an idle primary gives no lag,
 * however old the last replayed transaction), else the age of the oldest position it is
 * missing. It errs low by at most one poll interval.
 */
export class PrimaryPositions {
  private samples: { at: number; lsn: bigint }[] = [];
  constructor(private readonly keepMs: number) {}

  record(lsn: bigint, at: number): void {
    const last = this.samples.at(-1);
    if (!last || lsn > last.lsn) this.samples.push({ at, lsn });
    // Older samples matter only while they can still show a lag above the cut-off; the
    // newest is always kept.
    while (this.samples.length > 1 && this.samples[1].at < at - this.keepMs) this.samples.shift();
  }

  lagMs(replayed: bigint, now: number): number {
    const missing = this.samples.find((s) => s.lsn > replayed);
    return missing ? Math.max(0, now - missing.at) : 0;
  }
}

export interface ReplicaStatus {
  /** host:port/database, never the password. */
  name: string;
  up: boolean;
  /** Why it is down, in a word (ECONNREFUSED, "not a standby", a timeout). */
  problem: string | null;
  /** null until known (down, or not yet polled). */
  lagMs: number | null;
  replayed: string | null;
  /** Up and within DATABASE_REPLICA_MAX_LAG_MS: reads may go to it. */
  inUse: boolean;
}

interface Replica<Db> {
  name: string;
  db: Db;
  poller: postgres.Sql;
  /** When the poll in flight started; null when none is. */
  pollingSince: number | null;
  up: boolean;
  problem: string | null;
  replayed: bigint | null;
  lagMs: number | null;
}

/** The name a replica is shown by in /healthz and /metrics: no user, no password. */
export function replicaName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "replica";
  }
}

const gauge = (name: string, help: string) =>
  (client.register.getSingleMetric(name) as client.Gauge | undefined) ?? new client.Gauge({ name, help, labelNames: ["replica"] });
const replicaLag = gauge("inkstone_db_replica_lag_seconds", "How far each read replica's replay is behind the primary (docs/decisions/265); absent while unknown.");
const replicaUp = gauge("inkstone_db_replica_up", "1 while the read replica answers as a standby, else 0.");
const replicaInUse = gauge("inkstone_db_replica_in_use", "1 while reads may go to the replica (up, lag within DATABASE_REPLICA_MAX_LAG_MS).");
const readsRouted =
  (client.register.getSingleMetric("inkstone_db_replica_reads_total") as client.Counter | undefined) ??
  new client.Counter({ name: "inkstone_db_replica_reads_total", help: "Requests whose replica-eligible reads went to each target (a replica's name, or primary).", labelNames: ["target"] });

/** How long a poll may take before the replica counts as down. */
const POLL_TIMEOUT_MS = 1_000;

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && code ? code : error instanceof Error ? error.message.slice(0, 80) : "unknown";
}


/**
 * The replicas of one process: each polled every `pollMs` on a connection of its own
 * (`pg_last_wal_replay_lsn()`), the primary's position beside them
 * (`pg_current_wal_flush_lsn()`, what a standby can receive).
 */
export class ReplicaSet<Db> {
  private readonly replicas: Replica<Db>[];
  private readonly positions: PrimaryPositions;
  private timer: NodeJS.Timeout | undefined;
  private primaryPolling = false;

  constructor(
    private readonly primary: postgres.Sql,
    replicas: { name: string; db: Db; poller: postgres.Sql }[],
    readonly maxLagMs: number,
    private readonly pollMs: number,
  ) {
    this.replicas = replicas.map((r) => ({ ...r, pollingSince: null, up: false, problem: "not yet polled", replayed: null, lagMs: null }));
    this.positions = new PrimaryPositions(maxLagMs + 10 * pollMs);
  }

  /** Polls once now, then every pollMs; resolves after the first poll (or POLL_TIMEOUT_MS: a hung replica does not hold up the start). */
  async start(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.poll(), new Promise((resolve) => (timer = setTimeout(resolve, POLL_TIMEOUT_MS)))]);
    clearTimeout(timer);
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One round: the primary's position first, so that a replica level with it has no lag. */
  async poll(): Promise<void> {
    if (!this.primaryPolling) {
      this.primaryPolling = true;
      try {
        const [row] = await this.primary<{ lsn: string }[]>`select pg_current_wal_flush_lsn()::text as lsn`;
        this.positions.record(parseLsn(row.lsn), Date.now());
      } catch {
        // The primary's trouble shows in /healthz; the replicas' lag is measured against
        // the last position seen meanwhile.
      } finally {
        this.primaryPolling = false;
      }
    }
    await Promise.all(this.replicas.map((replica) => this.pollReplica(replica)));
  }

  private async pollReplica(replica: Replica<Db>): Promise<void> {
    // One poll at a time per replica (its connection would queue the next ones behind a
    // hung one); one unanswered for POLL_TIMEOUT_MS counts as down meanwhile.
    if (replica.pollingSince !== null) {
      if (Date.now() - replica.pollingSince > POLL_TIMEOUT_MS && replica.up) {
        Object.assign(replica, { up: false, problem: `no answer within ${POLL_TIMEOUT_MS} ms`, lagMs: null });
        this.observe(replica);
      }
      return;
    }
    replica.pollingSince = Date.now();
    try {
      const [row] = await replica.poller<{ standby: boolean; replayed: string | null }[]>`select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replayed`;
      // A promoted replica, or a server that is no physical standby, has no replay position
      // to compare with: it is not read from.
      if (!row.standby || !row.replayed) throw Object.assign(new Error("not a standby"), { code: "not a standby" });
      replica.replayed = parseLsn(row.replayed);
      replica.lagMs = this.positions.lagMs(replica.replayed, Date.now());
      replica.up = true;
      replica.problem = null;
    } catch (error) {
      replica.up = false;
      replica.problem = reasonOf(error);
      replica.lagMs = null;
    } finally {
      replica.pollingSince = null;
      this.observe(replica);
    }
  }

  private usable(replica: Replica<Db>): boolean {
    return replica.up && replica.lagMs !== null && replica.lagMs <= this.maxLagMs;
  }

  private observe(replica: Replica<Db>): void {
    if (replica.lagMs === null) replicaLag.remove({ replica: replica.name });
    else replicaLag.set({ replica: replica.name }, replica.lagMs / 1000);
    replicaUp.set({ replica: replica.name }, replica.up ? 1 : 0);
    replicaInUse.set({ replica: replica.name }, this.usable(replica) ? 1 : 0);
  }

  /**
   * A replica that is up, within the lag cut-off and has replayed `after` (the reader's
   * last write), picked at random among such; null: read the primary.
   */
  choose(after: bigint | null): { name: string; db: Db } | null {
    const fit = this.replicas.filter((r) => this.usable(r) && (after === null || (r.replayed !== null && r.replayed >= after)));
    return fit.length ? fit[Math.floor(Math.random() * fit.length)] : null;
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({
      name: r.name,
      up: r.up,
      problem: r.problem,
      lagMs: r.lagMs,
      replayed: r.replayed === null ? null : formatLsn(r.replayed),
      inUse: this.usable(r),
    }));
  }

  async close(): Promise<void> {
    this.stop();
    await Promise.all(this.replicas.map((r) => r.poller.end({ timeout: 1 })));
    for (const r of this.replicas) {
      replicaLag.remove({ replica: r.name });
      replicaUp.remove({ replica: r.name });
      replicaInUse.remove({ replica: r.name });
    }
  }
}

/**
 * What a request may read from: the position a replica must have replayed (the person's
 * last write, from their cookie), or `primary` for a request that must see the primary
 * (a write, or a write whose position is unknown). The first replica-eligible read of the
 * request picks the target; the request's later reads keep it.
 */
export interface ReadScope {
  after: bigint | null;
  primary: boolean;
  target?: unknown;
}

const SCOPE_KEY = Symbol.for("inkstone.readScope");
const shared = globalThis as unknown as Record<symbol, AsyncLocalStorage<ReadScope> | undefined>;
export const readScope: AsyncLocalStorage<ReadScope> = (shared[SCOPE_KEY] ??= new AsyncLocalStorage<ReadScope>());

/**
 * Whether the current request is a person's shortly after their own write (a read scope
 * with a position to wait for, or one held on the primary): answers shared between
 * requests may predate that write.
 */
export function afterOwnWrite(): boolean {
  const scope = readScope.getStore();
  return scope !== undefined && (scope.after !== null || scope.primary);
}

/** The target of the current request's replica-eligible reads (see readDb in client.server.ts). */
export function chooseTarget<Db>(set: ReplicaSet<Db> | null, primary: Db): Db {
  const scope = readScope.getStore();
  if (!set || !scope || scope.primary) return primary;
  if (scope.target === undefined) {
    const replica = set.choose(scope.after);
    readsRouted.inc({ target: replica?.name ?? "primary" });
    scope.target = replica ? replica.db : primary;
  }
  return scope.target as Db;
}
