import { CHAPTER_PUBLISHED_TOPIC } from "~/server/platform/events.server";
import { periodicJob } from "~/server/platform/job-runner.server";
import { runSummaryJobs } from "~/server/studio/summary-jobs.server";

/**
 * AI summaries after publication (docs/decisions/128), run in every app process at each
 * publication (the `chapter-published` event) and on a timer, which also picks up retries
 * coming due. A wake-up during a run runs it once more after; across processes the jobs
 * are shared by their claim (FOR UPDATE SKIP LOCKED and a lease).
 */
const SUMMARY_EVERY_MS = 30_000;

export const summaryJob = periodicJob({
  name: "summaries",
  failure: "summary jobs failed",
  everyMs: () => Number(process.env.SUMMARY_JOB_INTERVAL_MS) || SUMMARY_EVERY_MS,
  run: () => runSummaryJobs(),
  atStart: true,
  wakeOn: CHAPTER_PUBLISHED_TOPIC,
  whenBusy: "again",
});

/** Starts the summary runner (once per process; a second call does nothing). For tests; server.js runs it through jobs/registry. @internal */
export function startSummaryJobs(everyMs?: number): void {
  summaryJob.start(everyMs);
}

/** Stops the runner and waits for a run in progress, so the database can close after it. For tests; server.js runs it through jobs/registry. @internal */
export const stopSummaryJobs = (): Promise<void> => summaryJob.stop();
