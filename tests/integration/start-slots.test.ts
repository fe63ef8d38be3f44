import { describe, expect, it } from "vitest";
import { takeStartSlot } from "~/server/ai/generation.server";

/**
 * Generations started at once prepare a few at a time, in the order they came, each until
 * its provider request is sent (docs/decisions/269-first-bytes.md).
 */
describe("start slots", () => {
  it("lets three prepare at once and the rest in the order they came, each release passing one slot on", async () => {
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const waiting = Array.from({ length: 6 }, (_, i) =>
      takeStartSlot().then((release) => {
        order.push(i);
        releases[i] = release;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([0, 1, 2]);
    // Released twice (the start's `sent` and its `finally`): still one slot.
    releases[1]();
    releases[1]();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([0, 1, 2, 3]);
    releases[0]();
    releases[2]();
    await Promise.all(waiting);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    for (const i of [3, 4, 5]) releases[i]();
    // All free again: three more get in at once.
    const again = await Promise.all([takeStartSlot(), takeStartSlot(), takeStartSlot()]);
    for (const release of again) release();
  });
});
