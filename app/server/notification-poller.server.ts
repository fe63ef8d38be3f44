import { CHAPTER_PUBLISHED_TOPIC, subscribe } from "./events.server";
import { deliverNotifications } from "./notifications.server";

/**
 * The delivery of new-chapter notifications (decision 115), run in every app process:
 * at once when any process publishes a chapter (the `chapter-published` event), and on a
 * timer in case an event was missed (a restart, a lost connection). Runs never overlap
 * within a process; across processes the jobs are shared by `FOR UPDATE SKIP LOCKED`.
 */
export const DELIVERY_EVERY_MS = 10_000;

interface Poller {
  timer: NodeJS.Timeout;
  running: Promise<unknown> | null;
  again: boolean;
  off: (() => void) | null;
  stopped: boolean;
}

const holder = globalThis as unknown as { __inkstoneNotificationPoller?: Poller | null };

function run(poller: Poller) {
  if (poller.stopped) return;
  if (poller.running) {
    poller.again = true;
    return;
  }
  poller.running = deliverNotifications()
    .catch((error) => console.error("delivering notifications failed", error))
    .finally(() => {
      poller.running = null;
      if (poller.again) {
        poller.again = false;
        run(poller);
      }
    });
}

/** Starts the delivery (once per process; a second call does nothing). */
export function startNotificationDelivery(everyMs = Number(process.env.NOTIFICATION_DELIVERY_INTERVAL_MS) || DELIVERY_EVERY_MS): void {
  if (holder.__inkstoneNotificationPoller) return;
  const poller: Poller = { running: null, again: false, off: null, stopped: false, timer: setInterval(() => run(poller), everyMs) };
  poller.timer.unref();
  holder.__inkstoneNotificationPoller = poller;
  subscribe(CHAPTER_PUBLISHED_TOPIC, () => run(poller))
    .then((off) => {
      if (poller.stopped) off();
      else poller.off = off;
    })
    .catch((error) => console.error("notification delivery cannot listen", error));
  run(poller);
}

/** Stops the delivery and waits for a run in progress, so the database can close after it. */
export async function stopNotificationDelivery(): Promise<void> {
  const poller = holder.__inkstoneNotificationPoller;
  if (!poller) return;
  holder.__inkstoneNotificationPoller = null;
  poller.stopped = true;
  clearInterval(poller.timer);
  poller.off?.();
  await poller.running;
}
