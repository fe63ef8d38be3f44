import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricValue, type ServerProcess } from "../fixtures/processes";
import { serversOnOwnDatabase } from "../fixtures/server-database";
import { quietFor, waitFor } from "../fixtures/wait";

/**
 * Scheduled chapters released by two real app processes (docs/decisions/081, issue 15):
 * two `node server.js` on one PostgreSQL database, each running its release poller, and
 * 1,000 chapters (100 works × 10) coming due at the same moment. Each chapter is published
 * once and its "on publish" effect runs once: exactly one `chapter-published` event
 * (pg_notify, raised in the publishing transaction) per chapter, and the works' counts.
 * Several processes means PostgreSQL: like database-outage.test.ts it uses the run's
 * PostgreSQL server, or 127.0.0.1:5432 when the run is on PGlite.
 */
const WORKS = 100;
const PER_WORK = 10;
const METRICS_TOKEN = "release-test-metrics";

let sql: postgres.Sql;
let servers: ServerProcess[] = [];
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ sql, servers, stop } = await serversOnOwnDatabase("inkstone_release", 2, {
    CHAPTER_RELEASE_INTERVAL_MS: "50",
    METRICS_TOKEN,
  }));
}, 60_000);

afterAll(async () => {
  await stop?.();
});

/** The process's count of chapters it released, from its /metrics. */
async function releasedBy(origin: string): Promise<number> {
  return metricValue(origin, METRICS_TOKEN, "inkstone_chapters_released_total");
}

describe("scheduled release with two app processes", () => {
  it("publishes 1,000 chapters due at the same moment once each, with one on-publish event each", async () => {
    const events = new Map<number, number>();
    const listener = await sql.listen("inkstone_events", (payload) => {
      const event = JSON.parse(payload) as { topic?: string; chapterId?: number };
      if (event.topic === "chapter-published") events.set(Number(event.chapterId), (events.get(Number(event.chapterId)) ?? 0) + 1);
    });

    const [author] = await sql<{ id: string }[]>`
      insert into users (email, password_hash) values (${`release-${randomBytes(4).toString("hex")}@example.com`}, 'not-a-login') returning id`;
    const works = await sql<{ id: string }[]>`
      insert into works (user_id, title, description, type, status, visibility)
      select ${author.id}, '定时连载' || g, '简介', 'series', 'ongoing', 'public' from generate_series(1, ${WORKS}) g
      returning id`;
    // All due at one moment a little ahead, so that both pollers are waiting for it.
    const chapterIds = (
      await sql<{ id: string }[]>`
        insert into chapters (work_id, title, content, position, word_count, state, publish_at)
        select w.id, '第' || g || '章', '定时发布的正文', g * 65536, 7, 'scheduled', now() + interval '1 second'
        from works w cross join generate_series(1, ${PER_WORK}) g
        where w.user_id = ${author.id}
        returning id`
    ).map((r) => Number(r.id));
    expect(chapterIds).toHaveLength(WORKS * PER_WORK);

    // Until nothing is left scheduled and every event has arrived; the timeout only bounds
    // a failure (a loaded machine releases more slowly). Then a moment in which a second
    // event for any chapter would arrive too.
    const total = () => [...events.values()].reduce((a, b) => a + b, 0);
    await waitFor(
      "every chapter released and announced",
      async () => {
        const [{ left }] = await sql<{ left: number }[]>`select count(*)::int as left from chapters where state = 'scheduled'`;
        return left === 0 && total() >= chapterIds.length;
      },
      { timeout: 60_000, interval: 150 },
    );
    await quietFor(150);
    await listener.unlisten();

    const [{ published }] = await sql<{ published: number }[]>`
      select count(*)::int as published from chapters where work_id in ${sql(works.map((w) => w.id))} and state = 'published'`;
    expect(published).toBe(WORKS * PER_WORK);
    // The on-publish effect: one event per chapter, none twice, none missing.
    expect(events.size).toBe(chapterIds.length);
    expect([...events.values()].every((n) => n === 1)).toBe(true);
    expect(chapterIds.every((id) => events.get(id) === 1)).toBe(true);
    // And each work's counts, kept by the same effect.
    const counts = await sql<{ chapter_count: number; word_count: number }[]>`
      select chapter_count, word_count from works where user_id = ${author.id}`;
    expect(counts.every((w) => w.chapter_count === PER_WORK && w.word_count === PER_WORK * 7)).toBe(true);

    // Both processes took part, and between them released each chapter once.
    const byProcess = await Promise.all(servers.map((s) => releasedBy(s.origin)));
    expect(byProcess.reduce((a, b) => a + b, 0)).toBe(WORKS * PER_WORK);
    expect(byProcess.every((n) => n > 0), `released per process: ${byProcess.join(", ")}`).toBe(true);
    // Neither poller failed along the way (a deadlock or a lost claim would be logged).
    for (const { child } of servers) expect(child.output()).not.toContain("releasing scheduled chapters failed");
  }, 90_000);
});
