import { CHAPTER_PUBLISHED_TOPIC } from "~/server/platform/events.server";
import { periodicJob } from "~/server/platform/job-runner.server";
import { deliverNotifications } from "~/server/community/notifications.server";

/**
 * The delivery of new-chapter notifications (decision 115), run in every app process at
 * once when any process publishes a chapter (the `chapter-published` event) and on a
 * timer, in case an event was missed (a restart, a lost connection). A wake-up during a
 * run runs it once more after; across processes the jobs are shared by
 * `FOR UPDATE SKIP LOCKED`.
 */
const DELIVERY_EVERY_MS = 10_000;

export const notificationJob = periodicJob({
  name: "notifications",
  failure: "notification delivery failed",
  everyMs: () => Number(process.env.NOTIFICATION_DELIVERY_INTERVAL_MS) || DELIVERY_EVERY_MS,
  run: deliverNotifications,
  atStart: true,
  wakeOn: CHAPTER_PUBLISHED_TOPIC,
  whenBusy: "again",
});
