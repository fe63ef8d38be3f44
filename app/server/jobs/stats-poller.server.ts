import { periodicJob } from "~/server/platform/job-runner.server";
import { refreshWorkStats } from "~/server/catalog/work-stats.server";

/**
 * The rankings' counts (docs/decisions/122), recomputed in the background: every process
 * asks at start and every STATS_POLL_MS whether they are due, and the one that gets the
 * row lock of stats_refreshes (FOR UPDATE SKIP LOCKED) recomputes them; the others skip
 * (refreshWorkStats in app/server/catalog/work-stats.server.ts). A tick during a refresh
 * in this process is skipped.
 */
const STATS_POLL_MS = 30_000;

export const statsJob = periodicJob({
  name: "stats",
  failure: "refreshing work statistics failed",
  everyMs: () => Number(process.env.STATS_POLL_INTERVAL_MS) || STATS_POLL_MS,
  run: () => refreshWorkStats(),
  atStart: true,
  whenBusy: "skip",
});
