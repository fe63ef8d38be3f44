import { periodicJob } from "~/server/platform/job-runner.server";
import { refreshChangedWorkStats, refreshWorkStats } from "~/server/catalog/work-stats.server";

/**
 * The rankings' counts (docs/decisions/122, 267), kept in the background: every process, at
 * start and every STATS_POLL_MS, recounts the whole table if it is due, else the works that
 * changed since the last refresh; the one that gets the row lock of stats_refreshes (FOR
 * UPDATE SKIP LOCKED) does it, the others skip (app/server/catalog/work-stats.server.ts). A
 * tick during a refresh in this process is skipped. Every second, so a follow, a purchase or
 * a read is in the counts within about a second (bench:scale measures it).
 */
const STATS_POLL_MS = 1_000;

export const statsJob = periodicJob({
  name: "stats",
  failure: "refreshing work statistics failed",
  everyMs: () => Number(process.env.STATS_POLL_INTERVAL_MS) || STATS_POLL_MS,
  run: async () => (await refreshWorkStats()) || (await refreshChangedWorkStats()),
  atStart: true,
  whenBusy: "skip",
});
