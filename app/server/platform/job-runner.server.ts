import { subscribe } from "./events.server";
import { onShutdown } from "./lifecycle.server";
import { jobDuration, jobRuns } from "./metrics.server";

/**
 * The one way background work runs in an app process (docs/decisions/179-one-job-runner.md):
 * every job is declared here with `periodicJob` or `triggeredJob`, and this module alone
 * holds its timer, its run in progress, its error log line and its metrics
 * (`inkstone_job_runs_total`, `inkstone_job_duration_seconds`). What must happen once
 * across processes is the job's own claim in the database (a row lock with
 * `FOR UPDATE SKIP LOCKED`, a lease, a per-chapter lock): the runner only keeps a job's
 * runs from overlapping within a process. app/server/jobs/registry.server.ts lists the
 * jobs server.js starts and stops.
 *
 * It lives in platform, not in jobs/, because it imports no domain and domains use it: a
 * domain declares its own triggered job (comment re-anchoring in
 * community/comments.server.ts), which a domain could not import from jobs/; jobs/
 * declares the periodic ones.
 */

export interface PeriodicJobOptions {
  /** The job's name: its metrics label and its key in the process's job table. */
  name: string;
  /** The log line of a failed run (the error follows). */
  failure: string;
  /** The interval used when the job is started without one (read when it starts: env settings). */
  everyMs: () => number;
  run: () => Promise<unknown>;
  /** Run once at start too, not only after the first interval. */
  atStart?: boolean;
  /**
   * A live-event topic (events.server.ts) that runs the job at once, in every process,
   * besides the timer that catches what an event missed.
   */
  wakeOn?: string;
  /**
   * What a tick or an event does while a run is in progress: "skip" it, or run "again"
   * once after (the wake-ups during a run collapse into one more run).
   */
  whenBusy: "skip" | "again";
}

export interface PeriodicJob {
  readonly name: string;
  /** Starts the job in this process (a second call does nothing until it is stopped). */
  start(everyMs?: number): void;
  /** Stops it and waits for a run in progress, so the database can close after it. */
  stop(): Promise<void>;
}

export interface TriggeredJob<K> {
  readonly name: string;
  /**
   * Runs the job for `key` now, without making the caller wait. A trigger while a run for
   * the same key is in progress runs it once more after (the last trigger's state wins).
   */
  trigger(key: K): void;
  /** Waits for every run of this job triggered so far (tests; the shutdown). */
  settle(): Promise<void>;
}

interface Running {
  timer: NodeJS.Timeout;
  off: (() => void) | null;
  stopped: boolean;
  busy: Promise<void> | null;
  again: boolean;
  offShutdown: () => void;
}

interface Runner {
  /** The periodic jobs started in this process, by name. */
  running: Map<string, Running>;
  /** The last run of each periodic job stopped while it was running, by name. */
  stopping: Map<string, Promise<void>>;
  /** Triggered runs in progress, by job name and key. */
  triggered: Map<string, Map<unknown, { busy: Promise<void>; again: boolean }>>;
}

// One table per process, kept across dev-server and test module reloads (like the event hub):
// a job started by one copy of this module is stopped by another.
const holder = globalThis as unknown as { __inkstoneJobs?: Runner };
const runner: Runner = (holder.__inkstoneJobs ??= { running: new Map(), stopping: new Map(), triggered: new Map() });

/** One run of a job: timed, counted, and logged when it fails; never rejects. */
async function measured(name: string, failure: string, work: () => Promise<unknown>, ...detail: unknown[]): Promise<void> {
  const end = jobDuration.startTimer({ job: name });
  try {
    await work();
    jobRuns.inc({ job: name, outcome: "ok" });
  } catch (error) {
    jobRuns.inc({ job: name, outcome: "failed" });
    console.error(failure, ...detail, error);
  } finally {
    end();
  }
}

/** Declares a job run on a timer (and on a live event, if it has one) in every process that starts it. */
export function periodicJob(options: PeriodicJobOptions): PeriodicJob {
  const { name, failure, run, whenBusy } = options;
  const go = (state: Running, woken: boolean) => {
    if (state.stopped) return;
    if (state.busy) {
      if (woken || whenBusy === "again") state.again = true;
      return;
    }
    state.busy = measured(name, failure, run).finally(() => {
      state.busy = null;
      if (state.again) {
        state.again = false;
        go(state, false);
      }
    });
  };
  const job: PeriodicJob = {
    name,
    start(everyMs = options.everyMs()) {
      if (runner.running.has(name)) return;
      const state: Running = {
        busy: null,
        again: false,
        off: null,
        stopped: false,
        timer: setInterval(() => go(state, false), everyMs),
        // A stopping process claims no more work (docs/decisions/076); server.js then waits.
        offShutdown: onShutdown("draining", () => void job.stop()),
      };
      state.timer.unref();
      runner.running.set(name, state);
      if (options.wakeOn) {
        subscribe(options.wakeOn, () => go(state, true))
          .then((off) => {
            if (state.stopped) off();
            else state.off = off;
          })
          .catch((error) => console.error(`${name} cannot listen`, error));
      }
      if (options.atStart) go(state, false);
    },
    async stop() {
      const state = runner.running.get(name);
      // Stopped already (the shutdown's draining step stops every job): wait for its last run.
      if (!state) return runner.stopping.get(name);
      runner.running.delete(name);
      state.stopped = true;
      clearInterval(state.timer);
      state.off?.();
      state.offShutdown();
      const last: Promise<void> = (state.busy ?? Promise.resolve()).then(() => {
        if (runner.stopping.get(name) === last) runner.stopping.delete(name);
      });
      runner.stopping.set(name, last);
      await last;
    },
  };
  return job;
}

/** Declares a job run on demand for a key (a chapter id), outside the request that asked for it. */
export function triggeredJob<K>(name: string, failure: string, run: (key: K) => Promise<unknown>): TriggeredJob<K> {
  const runs = () => {
    let map = runner.triggered.get(name);
    if (!map) runner.triggered.set(name, (map = new Map()));
    return map;
  };
  const go = (key: K) => {
    const map = runs();
    const current = map.get(key);
    if (current) {
      current.again = true;
      return;
    }
    const entry = { again: false, busy: Promise.resolve() };
    entry.busy = (async () => {
      do {
        entry.again = false;
        await measured(name, failure, () => run(key), key);
      } while (entry.again);
      map.delete(key);
    })();
    map.set(key, entry);
  };
  return {
    name,
    trigger: go,
    async settle() {
      await settleTriggeredJobs(name);
    },
  };
}

/**
 * Waits until no triggered run (of `name`, or of any job) is in progress, runs triggered
 * while waiting included: the shutdown calls it once the requests in flight are done.
 */
export async function settleTriggeredJobs(name?: string): Promise<void> {
  for (;;) {
    const busy = [...runner.triggered]
      .filter(([job]) => name === undefined || job === name)
      .flatMap(([, map]) => [...map.values()].map((entry) => entry.busy));
    if (busy.length === 0) return;
    await Promise.all(busy);
  }
}
