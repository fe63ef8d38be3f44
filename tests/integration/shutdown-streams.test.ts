import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { plotVersions } from "~/db/schema";
import { action } from "~/routes/api/generate";
import { loader as eventsLoader } from "~/routes/api/events";
import { countChars } from "~/utils/ai-tokens";
import { beginShutdown } from "~/server/platform/lifecycle.server";
import { sessionCookieFor, userRequest, createUser } from "../fixtures/accounts";
import type { FakeAiProvider } from "../fakes/ai-provider";
import { generateRequest, readEvents, readyProject, tokensOf, writer, type SseEvent } from "./ai-helpers";
import { callThroughRoutes } from "./route-chain";
import { waitFor } from "../fixtures/wait";
import { useFakeAiProvider } from "../fixtures/fake-ai";

/**
 * What the process's shutdown phases do to the streams it serves (docs/decisions/076):
 * "draining" ends live-update streams and leaves generations running; "deadline" stops
 * a generation where it is, which settles and sends its usual `done`. This file moves its
 * process into shutdown, so it holds nothing else.
 */
let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f), { timings: { retryBaseMs: 10, retryJitterMs: 5, idleMs: 5_000, firstByteMs: 5_000 }, reset: false });

describe("a shutting-down process", () => {
  it("ends live-update streams at once, lets a generation run on, then stops it with its final event", async () => {
    const user = await writer(50_000);
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ forever: true, chunks: ["无尽的故事，"], delayMs: 15 });
    const generation = (await callThroughRoutes(action, { request: generateRequest(user.cookie, { projectId, plotId }) })) as Response;
    const received: SseEvent[] = [];
    const readAll = readEvents(generation, (e) => received.push(e));

    const visitor = await sessionCookieFor((await createUser()).id);
    const live = (await callThroughRoutes(eventsLoader, { request: userRequest(visitor, "/api/events") })) as Response;
    const liveReader = live.body!.getReader();
    await liveReader.read(); // ": connected"

    const texts = () => received.filter((e) => e.event === "text").length;
    await waitFor("the generation's first text", () => texts() > 0, { interval: 10 });
    beginShutdown("draining");
    while (!(await liveReader.read()).done);

    // Draining: the generation goes on.
    const textsAtDrain = texts();
    await waitFor("more text after the drain began", () => texts() > textsAtDrain);
    expect(texts()).toBeGreaterThan(textsAtDrain);
    expect(received.some((e) => e.event === "done")).toBe(false);

    beginShutdown("deadline");
    const events = await readAll;
    const done = events.at(-1)!;
    expect(done.event).toBe("done");
    const summary = done.data as { reason: string; charged: number; outputChars: number; versionId: string; balance: number };
    expect(summary.reason).toBe("aborted");
    const sent = events.filter((e) => e.event === "text").map((e) => e.data as string).join("");
    expect(summary.outputChars).toBe(countChars(sent));
    const [version] = await db.select().from(plotVersions).where(eq(plotVersions.plotId, plotId));
    expect([version.id, version.content, version.endReason]).toEqual([summary.versionId, sent, "aborted"]);
    expect(await tokensOf(user.id)).toBe(summary.balance);
    expect(summary.balance).toBe(50_000 - summary.charged);
  });

  it("ends a live-update stream opened after the shutdown began at once", async () => {
    const live = (await callThroughRoutes(eventsLoader, { request: new Request("http://localhost/api/events") })) as Response;
    const text = await live.text();
    expect(text).toContain("retry: 5000");
  });
});
