import { CHAPTER_PUBLISHED_TOPIC, subscribe } from "~/server/platform/events.server";

/**
 * Background work woken by publications, run in every app process: at once when any
 * process publishes a chapter (the `chapter-published` event) and on a timer, in case an
 * event was missed (a restart, a lost connection) or a retry came due. Runs never overlap
 * within a process (a wake-up during a run runs it once more after); across processes the
 * work is shared by the job's own claim (FOR UPDATE SKIP LOCKED). Used by the new-chapter
 * notifications (decision 115) and the AI summaries (decision 128).
 */
interface Poller {
  timer: NodeJS.Timeout;
  running: Promise<unknown> | null;
  again: boolean;
  off: (() => void) | null;
  stopped: boolean;
}

export interface ChapterPublishedPoller {
  /** Starts it (once per process; a second call does nothing). */
  start(everyMs: number): void;
  /** Stops it and waits for a run in progress, so the database can close after it. */
  stop(): Promise<void>;
}

/** `name` keys the process-wide instance (it survives module reloads in tests) and the logs. */
export function chapterPublishedPoller(name: string, work: () => Promise<unknown>): ChapterPublishedPoller {
  const holder = globalThis as unknown as Record<string, Poller | null | undefined>;
  const key = `__inkstonePoller:${name}`;
  const run = (poller: Poller) => {
    if (poller.stopped) return;
    if (poller.running) {
      poller.again = true;
      return;
    }
    poller.running = work()
      .catch((error) => console.error(`${name} failed`, error))
      .finally(() => {
        poller.running = null;
        if (poller.again) {
          poller.again = false;
          run(poller);
        }
      });
  };
  return {
    start(everyMs) {
      if (holder[key]) return;
      const poller: Poller = { running: null, again: false, off: null, stopped: false, timer: setInterval(() => run(poller), everyMs) };
      poller.timer.unref();
      holder[key] = poller;
      subscribe(CHAPTER_PUBLISHED_TOPIC, () => run(poller))
        .then((off) => {
          if (poller.stopped) off();
          else poller.off = off;
        })
        .catch((error) => console.error(`${name} cannot listen`, error));
      run(poller);
    },
    async stop() {
      const poller = holder[key];
      if (!poller) return;
      holder[key] = null;
      poller.stopped = true;
      clearInterval(poller.timer);
      poller.off?.();
      await poller.running;
    },
  };
}
