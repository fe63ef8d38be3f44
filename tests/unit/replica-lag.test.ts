import { describe, expect, it } from "vitest";
import { parseLsn, PrimaryPositions } from "~/db/replicas.server";

/** A read replica's lag, measured from WAL positions (docs/decisions/265). */
describe("replica lag", () => {
  it("reads WAL positions as numbers that compare, and refuses anything else", () => {
    expect(parseLsn("0/3000000")).toBe(0x3000000n);
    expect(parseLsn("16/B374D848")).toBe((0x16n << 32n) | 0xb374d848n);
    expect(parseLsn("1/0") > parseLsn("0/FFFFFFFF")).toBe(true);
    for (const bad of ["", "0", "x/1", "0/123456789", "1/2/3"]) expect(() => parseLsn(bad)).toThrow();
  });

  it("is nothing while the replica has replayed every position seen, however long the primary was idle", () => {
    const primary = new PrimaryPositions(10_000);
    primary.record(100n, 0);
    // An idle primary: the last replayed transaction is a minute old, but nothing is missing.
    expect(primary.lagMs(100n, 60_000)).toBe(0);
    expect(primary.lagMs(150n, 60_000)).toBe(0);
  });

  it("is the age of the oldest position the replica has not replayed", () => {
    const primary = new PrimaryPositions(10_000);
    primary.record(100n, 1_000);
    primary.record(200n, 2_000);
    primary.record(200n, 2_500); // no change: not a new sample
    primary.record(300n, 3_000);
    expect(primary.lagMs(100n, 3_500)).toBe(1_500);
    expect(primary.lagMs(250n, 3_500)).toBe(500);
    expect(primary.lagMs(99n, 3_500)).toBe(2_500);
  });

  it("keeps samples only as long as they can show a lag above the cut-off, and still counts from the oldest kept", () => {
    const primary = new PrimaryPositions(5_000);
    for (let t = 0; t <= 20_000; t += 1_000) primary.record(BigInt(t + 1), t);
    // Behind everything: at least as old as the oldest sample kept, which is past the cut-off.
    expect(primary.lagMs(0n, 20_000)).toBeGreaterThanOrEqual(5_000);
    expect(primary.lagMs(0n, 20_000)).toBeLessThanOrEqual(6_000);
  });
});
