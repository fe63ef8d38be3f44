import { releaseDueChapters } from "~/server/studio/release.server";

/**
 * The scheduled-chapter release, run in every app process on a timer (no cron process):
 * started by server.js after the database opens, stopped before it closes. Runs never
 * overlap within a process; across processes the work-row claim in releaseDueChapters
 * keeps each chapter's publication to one (decision 081).
 */
export const RELEASE_EVERY_MS = 5_000;

interface Poller {
  timer: NodeJS.Timeout;
  running: Promise<unknown> | null;
}

const holder = globalThis as unknown as { __inkstoneReleasePoller?: Poller | null };

/** Starts the poller (once per process; a second call does nothing). */
export function startReleasePoller(everyMs = Number(process.env.CHAPTER_RELEASE_INTERVAL_MS) || RELEASE_EVERY_MS): void {
  if (holder.__inkstoneReleasePoller) return;
  const poller: Poller = {
    running: null,
    timer: setInterval(() => {
      if (poller.running) return;
      poller.running = releaseDueChapters()
        .catch((error) => console.error("releasing scheduled chapters failed", error))
        .finally(() => {
          poller.running = null;
        });
    }, everyMs),
  };
  poller.timer.unref();
  holder.__inkstoneReleasePoller = poller;
}

/** Stops the poller and waits for a run in progress, so the database can close after it. */
export async function stopReleasePoller(): Promise<void> {
  const poller = holder.__inkstoneReleasePoller;
  if (!poller) return;
  holder.__inkstoneReleasePoller = null;
  clearInterval(poller.timer);
  await poller.running;
}
