import { eq, sql, type SQL } from "drizzle-orm";
import { databaseKind, db, type Executor } from "~/db/client.server";
import { favorites, workPurchases } from "~/db/schema";
import { onShutdown } from "./lifecycle.server";
import { liveStreams } from "./metrics.server";

/**
 * Live updates (docs/product.md D9). Every app process LISTENs on one PostgreSQL channel and
 * hands each notification to the subscribers of its topic in this process; publishing
 * is a `pg_notify`, so an event raised by any process reaches the browsers connected to
 * every process. Inside a transaction the notification is delivered on commit (and never
 * on rollback). PGlite is one process with one connection: its own LISTEN/NOTIFY carries
 * the same events, so both backends run the same code.
 *
 * Topics:
 *   `user:<id>`  something of that user changed (balance, favourites, purchases)
 *   `work`       a work changed or was deleted (raised by a trigger on `works`, see
 *                drizzle/0004_work_events.sql, so every code path announces it)
 *   `site`       the site configuration changed (title, logo, hero, terms, privacy...)
 *   `comments:<chapterId>`  a chapter's comments changed (a post, a reply, a hide, a
 *                re-anchoring): readers of that chapter refresh its counts and threads
 *   `notifications-work`  a batch of a work's followers, user ids in (from, to], got a
 *                new-chapter notification (app/server/community/notifications.server.ts)
 * @internal
 */
export const EVENTS_CHANNEL = "inkstone_events";

export type UserEventKind = "balance" | "favorites" | "purchases" | "notifications" | "income";

export interface LiveEvent {
  topic: string;
  kind?: string;
  workId?: number;
  chapterId?: number;
  /** A comments event: the paragraph whose 段评 changed (null: 本章说 or several). */
  paragraph?: number | null;
  /** A `notifications-work` event: the followers told, user ids in (from, to] (decision 115). */
  from?: string;
  to?: string;
}

/** The topic of one chapter's comments (docs/decisions/101-live-comments.md). */
export function commentsTopic(chapterId: number): string {
  return `comments:${chapterId}`;
}

type Listener = (event: LiveEvent) => void;

interface Hub {
  listeners: Map<string, Set<Listener>>;
  /** What this process heard in the last RECENT_MS, oldest first (liveEventStream's `since`). */
  recent: { at: number; event: LiveEvent }[];
  started?: Promise<void>;
}

/**
 * How long a process remembers the events it heard, for pages whose stream opens after
 * their data was read (decision 145): the time between a page's loader and its stream's
 * subscription (loading and starting the scripts) is seconds at most.
 */
const RECENT_MS = 60_000;
const RECENT_MAX = 20_000;

// One hub per process, kept across dev-server module reloads like the database client.
const holder = globalThis as unknown as { __inkstoneEvents?: Hub };
const hub: Hub = (holder.__inkstoneEvents ??= { listeners: new Map(), recent: [] });
hub.recent ??= [];

function dispatch(payload: string) {
  let event: LiveEvent;
  try {
    event = JSON.parse(payload) as LiveEvent;
  } catch {
    return;
  }
  if (typeof event?.topic !== "string") return;
  const now = Date.now();
  hub.recent.push({ at: now, event });
  let stale = 0;
  while (stale < hub.recent.length && (hub.recent[stale].at < now - RECENT_MS || hub.recent.length - stale > RECENT_MAX)) stale++;
  if (stale > 0) hub.recent.splice(0, stale);
  for (const listener of hub.listeners.get(event.topic) ?? []) {
    try {
      listener(event);
    } catch (error) {
      console.error("live event listener failed", event.topic, error);
    }
  }
}

/**
 * Starts this process's LISTEN once. postgres.js runs `listen` on its own dedicated
 * connection (reconnecting and re-listening by itself) and closes it with the pool.
 */
function ensureListening(): Promise<void> {
  hub.started ??= (async () => {
    const client = (db as unknown as { $client: unknown }).$client;
    if (databaseKind === "postgres") {
      await (client as import("postgres").Sql).listen(EVENTS_CHANNEL, dispatch);
    } else {
      await (client as import("@electric-sql/pglite").PGlite).listen(EVENTS_CHANNEL, dispatch);
    }
  })().catch((error) => {
    hub.started = undefined;
    throw error;
  });
  return hub.started;
}

/**
 * Subscribes to a topic in this process. Resolves once the process is listening, so an
 * event published after the promise settles is delivered. Returns the unsubscribe.
 */
export async function subscribe(topic: string, listener: Listener): Promise<() => void> {
  let set = hub.listeners.get(topic);
  if (!set) hub.listeners.set(topic, (set = new Set()));
  set.add(listener);
  const unsubscribe = () => {
    const current = hub.listeners.get(topic);
    current?.delete(listener);
    if (current && current.size === 0) hub.listeners.delete(topic);
  };
  try {
    await ensureListening();
  } catch (error) {
    unsubscribe();
    throw error;
  }
  return unsubscribe;
}

/**
 * Announces an event to every app process. Pass the transaction to announce it on
 * commit; without one it is sent at once (call it after your commit).
 */
export async function publish(event: LiveEvent, executor: Executor = db): Promise<void> {
  await executor.execute(publishStatement(event));
}

/** The statement `publish` runs, for a caller that sends it with others (sendInOrder). */
function publishStatement(event: LiveEvent): SQL {
  return sql`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify(event)})`;
}

/**
 * `notifyUserChanged` inside a transaction as a statement, for a caller that sends it with
 * others (sendInOrder); delivered on commit, and its failure fails the transaction as there.
 */
export function userChangedStatement(userId: string, kind: UserEventKind): SQL {
  return publishStatement({ topic: `user:${userId}`, kind });
}

/** The `notifyUserChanged` event's payload, for a statement that raises it itself (`select pg_notify(…) from …`). */
export function userChangedPayload(userId: string, kind: UserEventKind): { channel: string; payload: string } {
  return { channel: EVENTS_CHANNEL, payload: JSON.stringify({ topic: `user:${userId}`, kind }) };
}

/** The topic announcing each newly published chapter: `{ workId, chapterId }` (followers' notifications hook here). */
export const CHAPTER_PUBLISHED_TOPIC = "chapter-published";

/**
 * Announces chapters that have just become published, one `chapter-published` event per
 * chapter, on the caller's commit (app/server/studio/release.server.ts runs it once per
 * chapter). The reader pages hear the work's own `work` event instead.
 */
export async function announceChaptersPublished(tx: Executor, workId: number, chapterIds: number[]): Promise<void> {
  if (chapterIds.length === 0) return;
  await tx.execute(sql`
    select pg_notify(${EVENTS_CHANNEL}, json_build_object('topic', ${CHAPTER_PUBLISHED_TOPIC}::text, 'workId', ${workId}::bigint, 'chapterId', id)::text)
    from unnest(${`{${chapterIds.join(",")}}`}::bigint[]) as id`);
}

/**
 * Tells the user's open pages that their data changed (balance after a purchase, redeem,
 * payment or admin adjustment; favourites; purchases). Never throws: a lost live update
 * is corrected by the next page load, and must not fail the change that caused it.
 */
export async function notifyUserChanged(
  userId: string,
  kind: UserEventKind = "balance",
  executor: Executor = db,
): Promise<void> {
  try {
    await publish({ topic: `user:${userId}`, kind }, executor);
  } catch (error) {
    if (executor !== db) throw error; // inside a transaction the caller must see it
    console.error("notifyUserChanged failed", userId, error);
  }
}

/** The ids of the works on a user's /following and /purchased pages. */
async function libraryWorkIds(userId: string): Promise<Set<number>> {
  const rows = await db
    .select({ workId: favorites.workId })
    .from(favorites)
    .where(eq(favorites.userId, userId))
    .union(db.select({ workId: workPurchases.workId }).from(workPurchases).where(eq(workPurchases.userId, userId)));
  return new Set(rows.map((r) => Number(r.workId)));
}

/** The topic of a batch of followers told of new chapters (app/server/community/notifications.server.ts). */
export const NOTIFICATIONS_WORK_TOPIC = "notifications-work";

const HEARTBEAT_MS = 20_000;

export interface LiveStreamOptions {
  heartbeatMs?: number;
  /** A chapter the viewer is reading (already checked readable): its comments events too. */
  commentsOf?: number | null;
  /**
   * When the page's data was read (server time, ms): events this process heard after it,
   * before the stream subscribed, are sent once it has (decision 145).
   */
  since?: number | null;
}

/**
 * The `/api/events` stream: `site` events for everyone (branding, terms and privacy
 * refresh live, docs/product.md D9), and for a signed-in user also their own `user:<id>`
 * events and `work` events for works in their library (followed or purchased). Nothing
 * else: other users' events never reach this stream. Ends, and unsubscribes, when
 * `signal` aborts.
 */
export function liveEventStream(
  userId: string | null,
  signal: AbortSignal,
  { heartbeatMs = HEARTBEAT_MS, commentsOf = null, since = null }: LiveStreamOptions = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let closed = false;
      const unsubscribers: (() => void)[] = [];
      // This stream's handler of each topic, to replay what it missed (`since`).
      const handlers = new Map<string, Listener>();
      const listen = async (topic: string, handler: Listener) => {
        handlers.set(topic, handler);
        unsubscribers.push(await subscribe(topic, handler));
      };
      // The user's library, refreshed when their favourites or purchases change; work
      // events wait for a refresh in flight, so a just-followed work is not missed.
      let library: Promise<Set<number>> = Promise.resolve(new Set());
      const refreshLibrary = (id: string) => {
        const previous = library;
        library = libraryWorkIds(id).catch(() => previous);
      };
      // A first read of the library that fails ends the stream (below); an event that came
      // meanwhile is dropped, not left as a rejection no one handles (which ends the process).
      const ifInLibrary = (event: LiveEvent, then: () => void) => {
        const workId = Number(event.workId);
        void library.then(
          (ids) => ids.has(workId) && then(),
          () => {},
        );
      };
      const send = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      const sendEvent = (event: LiveEvent) =>
        send(`event: change\ndata: ${JSON.stringify({ kind: event.kind ?? event.topic, workId: event.workId })}\n\n`);
      const heartbeat = setInterval(() => send(`: ping ${Date.now()}\n\n`), heartbeatMs);
      // A process shutting down ends the stream; the browser reconnects (retry: below),
      // to another process or to this one's successor.
      const offShutdown = onShutdown("draining", () => cleanup());
      liveStreams.inc();
      cleanup = () => {
        if (closed) return;
        closed = true;
        liveStreams.dec();
        clearInterval(heartbeat);
        offShutdown();
        for (const unsubscribe of unsubscribers) unsubscribe();
        signal.removeEventListener("abort", cleanup);
        try {
          controller.close();
        } catch {
          // already closed by the reader
        }
      };
      if (signal.aborted) return cleanup();
      signal.addEventListener("abort", cleanup);

      // The first bytes go out at once, so proxies and the browser see an open stream.
      send(`retry: 5000\n: connected\n\n`);
      try {
        await listen("site", () => sendEvent({ topic: "site", kind: "site" }));
        if (commentsOf !== null) {
          // Its own event name: the page patches its counts and threads instead of reloading.
          await listen(commentsTopic(commentsOf), (event) =>
            send(`event: comments\ndata: ${JSON.stringify({ chapterId: commentsOf, paragraph: event.paragraph ?? null })}\n\n`),
          );
        }
        if (userId) {
          await listen(`user:${userId}`, (event) => {
            if (event.kind === "favorites" || event.kind === "purchases") refreshLibrary(userId);
            sendEvent(event);
          });
          // New-chapter notifications are delivered in batches of followers: only the
          // batch holding this user changes their bell (decision 115).
          await listen(NOTIFICATIONS_WORK_TOPIC, (event) => {
            if (!event.from || !event.to || !(userId > event.from && userId <= event.to)) return;
            ifInLibrary(event, () => sendEvent({ topic: NOTIFICATIONS_WORK_TOPIC, kind: "notifications" }));
          });
          await listen("work", (event) => ifInLibrary(event, () => sendEvent({ ...event, kind: "work" })));
          library = libraryWorkIds(userId);
          await library;
        }
        // What happened between the page's data and these subscriptions: heard by this
        // process already, sent now (the page reloads its data once for them all).
        if (since !== null) {
          for (const { event } of hub.recent.filter((r) => r.at > since)) {
            if (!closed) handlers.get(event.topic)?.(event);
          }
        }
        // Every subscription is in place: from here on no event of this stream is missed
        // (the page marks itself live; browser tests wait for it instead of sleeping).
        send(`event: ready\ndata: {}\n\n`);
      } catch (error) {
        console.error("live updates unavailable", error);
        cleanup();
      }
      if (closed) for (const unsubscribe of unsubscribers) unsubscribe();
    },
    cancel() {
      cleanup();
    },
  });
}

/** Used by tests: the number of listeners on a topic in this process. @internal */
export function listenerCount(topic: string): number {
  return hub.listeners.get(topic)?.size ?? 0;
}

/**
 * Calls `listener` whenever something a visitor's page shows may have changed: a work
 * (the `work` trigger: added, edited, priced, hidden, deleted) or the site settings.
 * server.js drops its cached visitor pages on it. Resolves once listening.
 */
export async function onPublicContentChange(listener: () => void): Promise<() => void> {
  const offWork = await subscribe("work", listener);
  try {
    const offSite = await subscribe("site", listener);
    return () => {
      offWork();
      offSite();
    };
  } catch (error) {
    offWork();
    throw error;
  }
}
