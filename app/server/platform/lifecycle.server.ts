/**
 * The process's shutdown as the app sees it (docs/decisions/076-graceful-shutdown.md).
 * server.js, on SIGTERM or SIGINT, stops accepting connections and calls `beginShutdown`:
 *
 *   "draining"  live-update streams (/api/events) end now: the browser reconnects, to
 *               another process; background timers stop claiming work. Requests in
 *               flight (a TXT publish, a payment) finish.
 *   "deadline"  the grace period is nearly over: generation streams still running stop
 *               where they are, settle what was sent and send their usual `done` event.
 *
 * Then server.js closes the database and exits.
 */
export type ShutdownPhase = "draining" | "deadline";

type Listener = () => void;

interface Lifecycle {
  phase: ShutdownPhase | null;
  listeners: Record<ShutdownPhase, Set<Listener>>;
}

const holder = globalThis as unknown as { __inkstoneLifecycle?: Lifecycle };
const lifecycle: Lifecycle = (holder.__inkstoneLifecycle ??= {
  phase: null,
  listeners: { draining: new Set(), deadline: new Set() },
});

const ORDER: ShutdownPhase[] = ["draining", "deadline"];

/** Moves the process to `phase` (and every phase before it), calling their listeners once. */
export function beginShutdown(phase: ShutdownPhase = "draining"): void {
  const from = lifecycle.phase ? ORDER.indexOf(lifecycle.phase) + 1 : 0;
  const to = ORDER.indexOf(phase);
  for (let i = from; i <= to; i++) {
    lifecycle.phase = ORDER[i];
    const listeners = [...lifecycle.listeners[ORDER[i]]];
    lifecycle.listeners[ORDER[i]].clear();
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        console.error("shutdown listener failed", error);
      }
    }
  }
}

/**
 * Calls `listener` when the process reaches `phase` (at once if it already has).
 * Returns the unsubscribe, to call when the stream or timer ends by itself.
 */
export function onShutdown(phase: ShutdownPhase, listener: Listener): () => void {
  const reached = lifecycle.phase !== null && ORDER.indexOf(lifecycle.phase) >= ORDER.indexOf(phase);
  if (reached) {
    queueMicrotask(listener);
    return () => {};
  }
  lifecycle.listeners[phase].add(listener);
  return () => lifecycle.listeners[phase].delete(listener);
}
