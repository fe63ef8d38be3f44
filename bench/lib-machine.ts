// What the benchmarks ran on, and how busy it was: other processes on a 2-core machine
// change latencies more than most code changes do, so every report carries this.
import os from "node:os";

/** Milliseconds for a fixed CPU-bound loop (about IDLE_CALIBRATION_MS on an idle core). */
function cpuCalibrationMs(): number {
  const t0 = performance.now();
  let x = 0;
  for (let i = 0; i < 50_000_000; i++) x = (x + i * 7) % 1_000_003;
  const ms = performance.now() - t0;
  if (x < 0) console.log(x); // keep the loop
  return ms;
}

export interface Busy {
  load1: number;
  calibrationMs: number;
}

export function busy(): Busy {
  return { load1: os.loadavg()[0], calibrationMs: cpuCalibrationMs() };
}

export function describeMachine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model ?? "?"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}`;
}

export function describeBusy(before: Busy, after: Busy): string {
  const worst = Math.max(before.load1, after.load1);
  return (
    `1-minute load average ${before.load1.toFixed(1)} before / ${after.load1.toFixed(1)} after on ${os.cpus().length} CPUs; ` +
    `CPU calibration loop ${before.calibrationMs.toFixed(0)} / ${after.calibrationMs.toFixed(0)} ms (idle: ~${IDLE_CALIBRATION_MS} ms)` +
    (worst > os.cpus().length * 0.75 || Math.max(before.calibrationMs, after.calibrationMs) > IDLE_CALIBRATION_MS * 1.5
      ? ". **Other processes were competing for the CPUs during this run: latencies are inflated.**"
      : ".")
  );
}

/**
 * Measured on an idle machine of this kind (2026-11-22 06:57 UTC, load average 2.5 and
 * falling, nothing else running: 181-185 ms). Sessions 1 and 2 printed 60 ms, an
 * estimate made on a busy machine that was wrong.
 */
const IDLE_CALIBRATION_MS = 180;
