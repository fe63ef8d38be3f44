import { afterEach, describe, expect, it, vi } from "vitest";
import { periodicJob, settleTriggeredJobs, triggeredJob } from "~/server/platform/job-runner.server";
import { jobRuns } from "~/server/platform/metrics.server";
import { publish } from "~/server/platform/events.server";
import { collector } from "../fixtures/live-events";
import { quietFor } from "../fixtures/wait";

/**
 * The one job runner (docs/decisions/179): a job's runs never overlap in a process, a
 * trigger or wake-up during a run runs it once more after, a tick during a run of a
 * `skip` job is dropped, `stop` waits for the run in progress, and every run is counted
 * and a failure logged with the job's own line.
 */

/** A run that lasts until released. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

async function runsOf(job: string, outcome: "ok" | "failed"): Promise<number> {
  const metric = await jobRuns.get();
  return metric.values.find((v) => v.labels.job === job && v.labels.outcome === outcome)?.value ?? 0;
}

const until = (check: () => boolean) => vi.waitFor(() => expect(check()).toBe(true), { timeout: 5_000, interval: 5 });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("triggered jobs", () => {
  it("run one key at a time, once more after triggers during a run, keys side by side; settle waits for them all", async () => {
    const seen: number[] = [];
    let running = 0;
    let most = 0;
    const gates = new Map<number, ReturnType<typeof gate>>();
    const job = triggeredJob<number>("test-trigger", "test trigger failed", async (key) => {
      running++;
      most = Math.max(most, running);
      seen.push(key);
      await gates.get(key)?.opened;
      running--;
    });
    gates.set(1, gate());
    job.trigger(1);
    job.trigger(1);
    job.trigger(1);
    job.trigger(2);
    let settled = false;
    const settling = job.settle().then(() => (settled = true));
    await until(() => seen.length === 2);
    expect(seen).toEqual([1, 2]);
    expect(settled).toBe(false);
    gates.get(1)!.open();
    await settling;
    // The two triggers during key 1's run made one run more, not two.
    expect(seen).toEqual([1, 2, 1]);
    expect(most).toBe(2);
    expect(await runsOf("test-trigger", "ok")).toBe(3);
  });

  it("logs a failed run with the job's line and its key, counts it, and never rejects", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const job = triggeredJob<number>("test-failing", "test failing job failed", async () => {
      throw new Error("boom");
    });
    job.trigger(7);
    await settleTriggeredJobs();
    expect(logged).toHaveBeenCalledWith("test failing job failed", 7, expect.objectContaining({ message: "boom" }));
    expect(await runsOf("test-failing", "failed")).toBe(1);
  });
});

describe("periodic jobs", () => {
  it("skip a tick during a run, or run once more after a wake-up; stop waits for the run in progress, even called twice", async () => {
    let runs = 0;
    let current = gate();
    const job = periodicJob({
      name: "test-periodic",
      failure: "test periodic failed",
      everyMs: () => 10,
      atStart: true,
      wakeOn: "test-periodic-topic",
      whenBusy: "skip",
      run: async () => {
        runs++;
        await current.opened;
      },
    });
    job.start();
    job.start(); // once per process
    expect(runs).toBe(1);
    // Ticks every 10 ms while the first run waits: skipped.
    await quietFor(100);
    expect(runs).toBe(1);
    // A wake-up during the run is kept: one more run after it. The job's listener was
    // there first, so once this one hears the wake-up, the job has too.
    const heard = await collector("test-periodic-topic");
    await publish({ topic: "test-periodic-topic" });
    await heard.next();
    heard.unsubscribe();
    const first = current;
    current = gate();
    first.open();
    await until(() => runs === 2);

    let stopped = false;
    void job.stop();
    const second = job.stop().then(() => (stopped = true));
    await quietFor(50); // time in which it would have stopped, had it not waited for the run
    expect(stopped).toBe(false);
    current.open();
    await second;
    const after = runs;
    await quietFor(50); // five ticks' time: no run after the stop
    expect(runs).toBe(after);
    expect(await runsOf("test-periodic", "ok")).toBe(after);
  });

  it("with whenBusy again, a tick during a run runs it once more after", async () => {
    let runs = 0;
    const first = gate();
    const job = periodicJob({
      name: "test-again",
      failure: "test again failed",
      everyMs: () => 10,
      atStart: true,
      whenBusy: "again",
      run: async () => {
        runs++;
        if (runs === 1) await first.opened;
      },
    });
    job.start();
    await quietFor(60); // ticks during the first run: none runs beside it
    expect(runs).toBe(1);
    first.open();
    await until(() => runs >= 2);
    await job.stop();
  });
});
