import { eq } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { works } from "~/db/schema";
import {
  EVENTS_CHANNEL,
  listenerCount,
  notifyUserChanged,
  publish,
  liveEventStream,
} from "~/server/platform/events.server";
import { setSiteConfigs } from "~/server/admin/site-settings.server";
import { setFavorite } from "~/server/reading/favorites.server";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import { createUserSession, getSessionUser } from "~/server/identity/session.server";
import { cookiePair, createUser } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { callThroughRoutes } from "./route-chain";
import { collector, sseReader } from "../fixtures/live-events";
import { quietFor, waitFor } from "../fixtures/wait";

/** Long enough for an event that should not come to have come (to another subscriber, after a rollback). */
const settle = () => quietFor(300);

describe("publish / subscribe", () => {
  it("delivers an event to every subscriber of its topic, and to nobody else", async () => {
    const a = await collector("user:a");
    const b = await collector("user:a");
    const c = await collector("user:c");
    await publish({ topic: "user:a", kind: "balance" });
    expect(await a.next()).toEqual({ topic: "user:a", kind: "balance" });
    expect(await b.next()).toEqual({ topic: "user:a", kind: "balance" });
    await settle();
    expect(c.seen).toEqual([]);
    for (const s of [a, b, c]) s.unsubscribe();
    expect(listenerCount("user:a")).toBe(0);
  });

  it("inside a transaction, delivers on commit and never on rollback", async () => {
    const sub = await collector("user:tx");
    await db
      .transaction(async (tx) => {
        await notifyUserChanged("tx", "balance", tx);
        throw new Error("rollback");
      })
      .catch(() => {});
    await db.transaction(async (tx) => {
      await notifyUserChanged("tx", "favorites", tx);
    });
    expect(await sub.next()).toEqual({ topic: "user:tx", kind: "favorites" });
    await settle();
    expect(sub.seen).toEqual([]);
    sub.unsubscribe();
  });

  it("announces every change to a work (a database trigger), including its deletion", async () => {
    const author = await createUser();
    const sub = await collector("work");
    try {
      // A new work: one event per statement, without an id (nobody follows it yet).
      const [id] = await insertWorks([{ userId: author.id, title: "会变的书" }]);
      expect(await sub.next()).toEqual({ topic: "work", kind: "work" });
      await db.update(works).set({ title: "改过名的书" }).where(eq(works.id, id));
      expect(await sub.next()).toEqual({ topic: "work", workId: id });
      await db.delete(works).where(eq(works.id, id));
      expect(await sub.next()).toEqual({ topic: "work", workId: id });
    } finally {
      sub.unsubscribe();
    }
  });

  it("a purchase tells the buyer's pages on commit", async () => {
    const author = await createUser();
    const buyer = await createUser();
    await db.transaction((tx) => credit(tx, buyer.id, 10, "测试充值"));
    const [id] = await insertWorks([{ userId: author.id, title: "付费", visibility: "public-vip", price: 4 }]);
    const sub = await collector(`user:${buyer.id}`);
    await purchaseWork(buyer.id, id);
    expect(await sub.next()).toMatchObject({ topic: `user:${buyer.id}` });
    sub.unsubscribe();
  });
});


describe("/api/events", () => {
  async function open(userId: string | null, query = "") {
    const { loader } = await import("~/routes/api/events");
    const controller = new AbortController();
    const headers: Record<string, string> = {};
    if (userId) headers.Cookie = cookiePair(await createUserSession(new Request("http://localhost/"), userId));
    const request = new Request(`http://localhost/api/events${query}`, { headers, signal: controller.signal });
    const response = await callThroughRoutes(loader, { request });
    // The caller keeps `request` until it aborts: Node's Request follows the controller's
    // signal through a weak reference, so a Request already collected by the GC would
    // never see the abort (as on a server, where the socket's close cancels the stream).
    return { response, controller, request };
  }

  it("gives a visitor changes to the site's configuration, and nothing of any user", async () => {
    const someone = await createUser();
    const { response, controller, request } = await open(null);
    expect(response.status).toBe(200);
    const sse = sseReader(response.body!);
    expect(await sse.next()).toContain(": connected");
    // `ready` comes once the stream has subscribed: no waiting by the clock.
    await sse.ready();
    expect(listenerCount("site")).toBeGreaterThan(0);
    expect(listenerCount(`user:${someone.id}`)).toBe(0);

    await notifyUserChanged(someone.id, "balance");
    await setSiteConfigs({ terms_content: "<p>新的用户协议</p>" });
    expect(await sse.nextChange()).toEqual({ kind: "site" });

    controller.abort();
    expect(request.signal.aborted).toBe(true);
    expect(await sse.done()).toBe(true);
    expect(listenerCount("site")).toBe(0);
  });

  it("streams the user's own events and changes to works in their library, nothing else", async () => {
    const author = await createUser();
    const reader = await createUser();
    const stranger = await createUser();
    const [followedWork, unrelated] = await insertWorks([
      { userId: author.id, title: "关注的书" },
      { userId: author.id, title: "无关的书" },
    ]);
    const { response, controller, request } = await open(reader.id);
    expect(response.headers.get("Content-Type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("Cache-Control")).toContain("no-cache");
    const sse = sseReader(response.body!);
    expect(await sse.next()).toContain(": connected");
    // `ready`: the stream has subscribed to everything it carries, its library read.
    await sse.ready();
    expect(listenerCount("work")).toBeGreaterThan(0);
    expect(listenerCount(`user:${reader.id}`)).toBe(1);

    await notifyUserChanged(stranger.id, "balance");
    await notifyUserChanged(reader.id, "balance");
    expect(await sse.nextChange()).toEqual({ kind: "balance" });

    const viewer = await getSessionUser(
      new Request("http://localhost/", {
        headers: { Cookie: cookiePair(await createUserSession(new Request("http://localhost/"), reader.id)) },
      }),
    );
    await setFavorite(viewer!, followedWork, true);
    expect(await sse.nextChange()).toEqual({ kind: "favorites" });

    await db.update(works).set({ title: "无关的书（改）" }).where(eq(works.id, unrelated));
    await db.update(works).set({ visibility: "private" }).where(eq(works.id, followedWork));
    expect(await sse.nextChange()).toEqual({ kind: "work", workId: followedWork });

    controller.abort();
    expect(request.signal.aborted).toBe(true);
    expect(await sse.done()).toBe(true);
    expect(listenerCount(`user:${reader.id}`)).toBe(0);
    expect(listenerCount("work")).toBe(0);
  });

  it("sends what changed after the page's data was read (since) once subscribed, and nothing older", async () => {
    const reader = await createUser();
    // This process is listening (as a server is from its start) and hears the change.
    const heard = await collector(`user:${reader.id}`);
    const before = Date.now() - 1;
    await notifyUserChanged(reader.id, "balance");
    expect(await heard.next()).toEqual({ topic: `user:${reader.id}`, kind: "balance" });
    heard.unsubscribe();

    // A page read before the change: its stream, opened after, gets it once subscribed.
    const late = await open(reader.id, `?since=${before}`);
    const lateSse = sseReader(late.response.body!);
    expect(await lateSse.next()).toContain(": connected");
    expect(await lateSse.nextChange()).toEqual({ kind: "balance" });
    late.controller.abort();

    // A page read after it, and a nonsense `since`: nothing to catch up on.
    for (const query of [`?since=${Date.now() + 1}`, "?since=abc"]) {
      const fresh = await open(reader.id, query);
      const sse = sseReader(fresh.response.body!);
      expect(await sse.next()).toContain(": connected");
      // Its `ready` comes and goes; no change follows.
      await expect(sse.nextChange(1000)).rejects.toThrow("no SSE message");
      fresh.controller.abort();
    }
  });

  it("sends heartbeats on an idle stream", async () => {
    const user = await createUser();
    const controller = new AbortController();
    const stream = liveEventStream(user.id, controller.signal, { heartbeatMs: 50 });
    const sse = sseReader(stream);
    expect(await sse.next()).toContain(": connected");
    expect(await sse.next(2000)).toMatch(/^: ping \d+$/);
    controller.abort();
  });
});

// Several app processes share events through PostgreSQL: a second, separate connection
// stands in for another process. Only the PostgreSQL pass of the suite defines it: PGlite
// is one process with one connection, so there is no second connection to test.
if (process.env.DATABASE_URL) describe("across PostgreSQL connections", () => {
  it("an event published by one connection reaches listeners on another, both ways", async () => {
    const other = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    try {
      const received: string[] = [];
      await other.listen(EVENTS_CHANNEL, (payload) => received.push(payload));
      await publish({ topic: "user:cross", kind: "balance" });
      await waitFor("the other connection to hear the event", () => received.length > 0, { timeout: 2000 });
      expect(received.map((p) => JSON.parse(p))).toEqual([{ topic: "user:cross", kind: "balance" }]);

      const sub = await collector("user:from-other");
      await other`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify({ topic: "user:from-other", kind: "purchases" })})`;
      expect(await sub.next()).toEqual({ topic: "user:from-other", kind: "purchases" });
      sub.unsubscribe();
    } finally {
      await other.end({ timeout: 1 });
    }
  });
});
