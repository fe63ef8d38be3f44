/**
 * Time limits and the retry schedule of provider calls (docs/product.md D7). One object per
 * process, read at each call: the environment sets it for a server, tests shorten it.
 */
export interface AiTimings {
  /** No byte of the answer within this time: give up (60 s). */
  firstByteMs: number;
  /** Silence in the middle of a stream for this long: stop (30 s). */
  idleMs: number;
  /** A non-streamed call (analysis) must finish within this time. */
  completeMs: number;
  /** Attempts in all, counting the first (3). */
  attempts: number;
  /** Backoff before attempt n+1: base * 2^(n-1) plus up to `jitterMs`, at most `capMs`. */
  retryBaseMs: number;
  retryJitterMs: number;
  retryCapMs: number;
}

function envMs(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

export const aiTimings: AiTimings = {
  firstByteMs: envMs("AI_FIRST_BYTE_TIMEOUT_MS", 60_000),
  idleMs: envMs("AI_IDLE_TIMEOUT_MS", 30_000),
  completeMs: envMs("AI_COMPLETE_TIMEOUT_MS", 180_000),
  attempts: 3,
  retryBaseMs: envMs("AI_RETRY_BASE_MS", 1_000),
  retryJitterMs: envMs("AI_RETRY_JITTER_MS", 1_000),
  retryCapMs: 10_000,
};

/** The wait before the attempt after `attempt` (1-based): 1 s, 2 s, 4 s ... plus jitter, capped. */
export function backoffMs(attempt: number, timings: AiTimings = aiTimings, random = Math.random): number {
  const exponential = timings.retryBaseMs * 2 ** (attempt - 1);
  return Math.min(timings.retryCapMs, exponential + random() * timings.retryJitterMs);
}
