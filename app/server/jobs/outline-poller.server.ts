import { periodicJob } from "~/server/platform/job-runner.server";
import { runOutlineJobs } from "~/server/studio/outline-jobs.server";
import { OUTLINE_QUEUED_TOPIC } from "~/server/studio/outlines.server";

/**
 * AI 细纲 drafting in batches (docs/decisions/255), run in every app process when a job is
 * queued (the `outline-queued` event) and on a timer, which also picks up retries coming
 * due and jobs whose process died mid-batch (their lease ran out). Across processes the
 * jobs are shared by their claim (FOR UPDATE SKIP LOCKED and a lease).
 */
const OUTLINE_EVERY_MS = 30_000;

export const outlineJob = periodicJob({
  name: "outlines",
  failure: "outline jobs failed",
  everyMs: () => Number(process.env.OUTLINE_JOB_INTERVAL_MS) || OUTLINE_EVERY_MS,
  run: () => runOutlineJobs(),
  atStart: true,
  wakeOn: OUTLINE_QUEUED_TOPIC,
  whenBusy: "again",
});
