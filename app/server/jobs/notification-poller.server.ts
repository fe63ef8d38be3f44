import { chapterPublishedPoller } from "./chapter-published-poller.server";
import { deliverNotifications } from "~/server/community/notifications.server";

/**
 * The delivery of new-chapter notifications (decision 115), run in every app process at
 * each publication and on a timer (chapter-published-poller.server.ts); across processes
 * the jobs are shared by `FOR UPDATE SKIP LOCKED`.
 */
export const DELIVERY_EVERY_MS = 10_000;

const poller = chapterPublishedPoller("notification delivery", deliverNotifications);

/** Starts the delivery (once per process; a second call does nothing). */
export function startNotificationDelivery(everyMs = Number(process.env.NOTIFICATION_DELIVERY_INTERVAL_MS) || DELIVERY_EVERY_MS): void {
  poller.start(everyMs);
}

/** Stops the delivery and waits for a run in progress, so the database can close after it. */
export const stopNotificationDelivery = (): Promise<void> => poller.stop();
