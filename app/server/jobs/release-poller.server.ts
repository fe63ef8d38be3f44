import { periodicJob } from "~/server/platform/job-runner.server";
import { releaseDueChapters } from "~/server/studio/scheduled-release.server";

/**
 * The scheduled-chapter release, run in every app process on a timer (no cron process):
 * started by server.js after the database opens (registry.server.ts), stopped before it
 * closes. Runs never overlap within a process (a tick during a run is skipped); across
 * processes the work-row claim in releaseDueChapters keeps each chapter's publication to
 * one (decision 081).
 */
const RELEASE_EVERY_MS = 5_000;

export const releaseJob = periodicJob({
  name: "release",
  failure: "releasing scheduled chapters failed",
  everyMs: () => Number(process.env.CHAPTER_RELEASE_INTERVAL_MS) || RELEASE_EVERY_MS,
  run: releaseDueChapters,
  whenBusy: "skip",
});

/** Starts the poller (once per process; a second call does nothing). For tests; server.js runs it through jobs/registry. @internal */
export function startReleasePoller(everyMs?: number): void {
  releaseJob.start(everyMs);
}

/** Stops the poller and waits for a run in progress, so the database can close after it. For tests; server.js runs it through jobs/registry. @internal */
export const stopReleasePoller = (): Promise<void> => releaseJob.stop();
