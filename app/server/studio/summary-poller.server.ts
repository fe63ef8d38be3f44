import { CHAPTER_PUBLISHED_TOPIC, subscribe } from "../events.server";
import { runSummaryJobs } from "./summary-jobs.server";

/**
 * AI summaries after publication (docs/decisions/128), run in every app process: when any
 * process publishes a chapter (the `chapter-published` event) and on a timer, which also
 * picks up retries coming due. Runs never overlap within a process; across processes the
 * jobs are shared by their claim (FOR UPDATE SKIP LOCKED and a lease).
 */
export const SUMMARY_EVERY_MS = 30_000;

interface Poller {
  timer: NodeJS.Timeout;
  running: Promise<unknown> | null;
  again: boolean;
  off: (() => void) | null;
  stopped: boolean;
}

const holder = globalThis as unknown as { __inkstoneSummaryPoller?: Poller | null };

function run(poller: Poller) {
  if (poller.stopped) return;
  if (poller.running) {
    poller.again = true;
    return;
  }
  poller.running = runSummaryJobs()
    .catch((error) => console.error("running summary jobs failed", error))
    .finally(() => {
      poller.running = null;
      if (poller.again) {
        poller.again = false;
        run(poller);
      }
    });
}

export function startSummaryJobs(everyMs = Number(process.env.SUMMARY_JOB_INTERVAL_MS) || SUMMARY_EVERY_MS): void {
  if (holder.__inkstoneSummaryPoller) return;
  const poller: Poller = { running: null, again: false, off: null, stopped: false, timer: setInterval(() => run(poller), everyMs) };
  poller.timer.unref();
  holder.__inkstoneSummaryPoller = poller;
  subscribe(CHAPTER_PUBLISHED_TOPIC, () => run(poller))
    .then((off) => {
      if (poller.stopped) off();
      else poller.off = off;
    })
    .catch((error) => console.error("summary jobs cannot listen", error));
  run(poller);
}

export async function stopSummaryJobs(): Promise<void> {
  const poller = holder.__inkstoneSummaryPoller;
  if (!poller) return;
  holder.__inkstoneSummaryPoller = null;
  poller.stopped = true;
  clearInterval(poller.timer);
  poller.off?.();
  await poller.running;
}
