import { chapterPublishedPoller } from "./chapter-published-poller.server";
import { runSummaryJobs } from "~/server/studio/summary-jobs.server";

/**
 * AI summaries after publication (docs/decisions/128), run in every app process at each
 * publication and on a timer, which also picks up retries coming due
 * (chapter-published-poller.server.ts); across processes the jobs are shared by their
 * claim (FOR UPDATE SKIP LOCKED and a lease).
 */
export const SUMMARY_EVERY_MS = 30_000;

const poller = chapterPublishedPoller("summary jobs", runSummaryJobs);

/** Starts the summary runner (once per process; a second call does nothing). */
export function startSummaryJobs(everyMs = Number(process.env.SUMMARY_JOB_INTERVAL_MS) || SUMMARY_EVERY_MS): void {
  poller.start(everyMs);
}

/** Stops the runner and waits for a run in progress, so the database can close after it. */
export const stopSummaryJobs = (): Promise<void> => poller.stop();
