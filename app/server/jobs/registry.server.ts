import { settleTriggeredJobs, type PeriodicJob } from "~/server/platform/job-runner.server";
import { accountDeletionJob } from "./account-deletion.server";
import { attendanceJob } from "./attendance-poller.server";
import { cleanupJob } from "./cleanup.server";
import { outlineJob } from "./outline-poller.server";
import { notificationJob } from "./notification-poller.server";
import { releaseJob } from "./release-poller.server";
import { statsJob } from "./stats-poller.server";
import { summaryJob } from "./summary-poller.server";

/**
 * Every background job an app process runs (docs/decisions/179-one-job-runner.md), each on
 * its timer in every process, the database deciding which process does each piece of work:
 *
 *   cleanup        hourly: old TXT imports, form tokens, reset links, reading statistics (146)
 *   release        every 5 s (CHAPTER_RELEASE_INTERVAL_MS): scheduled chapters whose time came (081)
 *   stats          every 1 s (STATS_POLL_INTERVAL_MS): the changed works' counts; all of them hourly (122, 267)
 *   notifications  every 10 s (NOTIFICATION_DELIVERY_INTERVAL_MS) and at each publication (115)
 *   summaries      every 30 s (SUMMARY_JOB_INTERVAL_MS) and at each publication (128)
 *   outlines       every 30 s (OUTLINE_JOB_INTERVAL_MS) and when a 细纲 draft is queued (255)
 *   attendance     hourly (ATTENDANCE_POLL_INTERVAL_MS): 全勤奖 of the month just ended (236)
 *   account-deletion  hourly: 注销 requests whose 15-day cool-off ran out, each erased once (231)
 *
 * and, triggered rather than timed, `reanchor`: a chapter's 段评 moved to their paragraphs
 * after a save of its text (app/server/community/comments.server.ts, decision 090).
 */
const PERIODIC_JOBS: readonly PeriodicJob[] = [cleanupJob, releaseJob, statsJob, notificationJob, summaryJob, outlineJob, attendanceJob, accountDeletionJob];

/** What server.js starts after the database opens and stops before it closes. */
export const backgroundJobs = {
  /** Starts every periodic job in this process, each at its interval. */
  start(): void {
    for (const job of PERIODIC_JOBS) job.start();
  },
  /**
   * Stops the timers at once and waits for the runs in progress, periodic and triggered.
   * server.js calls it when the shutdown begins and once more after the requests in
   * flight ended, for the re-anchoring their saves triggered.
   */
  async stop(): Promise<void> {
    await Promise.all(PERIODIC_JOBS.map((job) => job.stop()));
    await settleTriggeredJobs();
  },
};
