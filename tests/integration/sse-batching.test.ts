import { describe, expect, it } from "vitest";
import { serverSentEvents } from "~/server/ai/generation-stream.server";

/**
 * The Node writer server/request-handler.js hands a streaming endpoint's response to
 * (app/server/ai/generation-stream.server.ts, docs/decisions/275): the `start` event and the
 * first text leave at once, text after that goes out in batches every few milliseconds, and
 * the last events leave when the task ends; nothing is lost or reordered.
 */

/** A stand-in for Node's ServerResponse that records each write and when it came. */
function recordingResponse() {
  const writes: { text: string; at: number }[] = [];
  const closeListeners: (() => void)[] = [];
  let ended = false;
  const started = performance.now();
  const res = {
    write: (chunk: string) => writes.push({ text: chunk, at: performance.now() - started }),
    end: () => {
      ended = true;
    },
    once: (_event: "close", listener: () => void) => closeListeners.push(listener),
    get writableFinished() {
      return ended;
    },
    destroyed: false,
  };
  return { res, writes, isEnded: () => ended, close: () => closeListeners.forEach((l) => l()) };
}

const nodeWriter = (response: Response) => (response as unknown as Record<symbol, (res: unknown) => boolean>)[Symbol.for("inkstone.nodeBody")];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the streaming endpoints' Node writer", () => {
  it("sends the start and the first text at once, batches the rest, and loses nothing", async () => {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const response = serverSentEvents({
      abort: () => {},
      run: async (send) => {
        send("start", { model: "m" });
        await sleep(5); // the writer is attached by now, as server/request-handler.js attaches it
        send("text", "第一");
        for (let i = 0; i < 50; i++) send("text", `字${i}`);
        await sleep(40);
        send("text", "最后");
        send("done", { reason: "complete" });
        finish();
      },
    });
    const recorded = recordingResponse();
    expect(nodeWriter(response)(recorded.res)).toBe(true);
    await sleep(8);
    // Before the batch's timer: the start and the first text, each in its own write.
    expect(recorded.writes.map((w) => w.text)).toEqual(['event: start\ndata: {"model":"m"}\n\n', 'event: text\ndata: "第一"\n\n']);
    await done;
    await sleep(0);
    const texts = recorded.writes.map((w) => w.text);
    // The fifty came in one write, a timer later; the last text with the done event at the end.
    expect(texts).toHaveLength(4);
    expect(texts[2]).toBe(Array.from({ length: 50 }, (_, i) => `event: text\ndata: "字${i}"\n\n`).join(""));
    expect(texts[3]).toBe('event: text\ndata: "最后"\n\nevent: done\ndata: {"reason":"complete"}\n\n');
    expect(recorded.writes[2].at).toBeGreaterThanOrEqual(10);
    expect(recorded.isEnded()).toBe(true);
  });

  it("writes nothing more once the client has gone away, and stops the task", async () => {
    let aborted = false;
    let sendLater!: (name: string, data: unknown) => void;
    const response = serverSentEvents({
      abort: () => {
        aborted = true;
      },
      run: async (send) => {
        send("start", {});
        await sleep(5);
        send("text", "一");
        send("text", "二");
        sendLater = send;
        await new Promise<void>(() => {});
      },
    });
    const recorded = recordingResponse();
    nodeWriter(response)(recorded.res);
    await sleep(10);
    expect(recorded.writes.map((w) => w.text).join("")).toContain("一");
    // The client goes away while 二 waits for its batch.
    recorded.res.destroyed = true;
    recorded.close();
    expect(aborted).toBe(true);
    sendLater("text", "三");
    await sleep(40);
    expect(recorded.writes.map((w) => w.text).join("")).not.toMatch(/二|三/);
  });
});
