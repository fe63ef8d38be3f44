import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricValue, type ServerProcess } from "../fixtures/processes";
import { serversOnOwnDatabase } from "../fixtures/server-database";
import { waitFor } from "../fixtures/wait";

/**
 * New-chapter notifications delivered by two real app processes (docs/decisions/115):
 * two `node server.js` on one PostgreSQL database. 12 works with 1,500 followers each get
 * a scheduled chapter due at one moment; whichever process releases a chapter writes one
 * job, and both processes deliver the jobs in batches of 400 followers, claimed with
 * `FOR UPDATE SKIP LOCKED`. Every follower gets exactly one line per work, with one
 * chapter, and both processes took part. Uses the run's PostgreSQL server, or
 * 127.0.0.1:5432 when the run is on PGlite (as studio-release-processes.test.ts does).
 */
const WORKS = 12;
const FOLLOWERS = 1_500;
const METRICS_TOKEN = "notify-test-metrics";

let sql: postgres.Sql;
let servers: ServerProcess[] = [];
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ sql, servers, stop } = await serversOnOwnDatabase("inkstone_notify", 2, {
    CHAPTER_RELEASE_INTERVAL_MS: "50",
    NOTIFICATION_DELIVERY_INTERVAL_MS: "100",
    NOTIFICATION_BATCH_SIZE: "400",
    METRICS_TOKEN,
  }));
}, 60_000);

afterAll(async () => {
  await stop?.();
});

async function notifiedBy(origin: string): Promise<number> {
  return metricValue(origin, METRICS_TOKEN, "inkstone_followers_notified_total");
}

describe("new-chapter notifications with two app processes", () => {
  it("tell every follower of every work exactly once, the processes sharing the batches", async () => {
    const tag = randomBytes(4).toString("hex");
    const [author] = await sql<{ id: string }[]>`
      insert into users (email, password_hash) values (${`author-${tag}@example.com`}, 'not-a-login') returning id`;
    await sql`insert into profiles (id, email, nickname) values (${author.id}, ${`author-${tag}@example.com`}, '作者')`;
    const works = await sql<{ id: string }[]>`
      insert into works (user_id, title, description, type, status, visibility)
      select ${author.id}, '连载' || g, '简介', 'series', 'ongoing', 'public' from generate_series(1, ${WORKS}) g
      returning id`;
    await sql`
      with u as (
        insert into users (email, password_hash)
        select 'f-' || ${tag} || '-' || g || '@example.com', 'not-a-login' from generate_series(1, ${FOLLOWERS}) g
        returning id, email
      ), p as (insert into profiles (id, email, nickname) select id, email, '读者' from u returning id)
      insert into favorites (user_id, work_id) select p.id, w.id from p cross join works w where w.user_id = ${author.id}`;
    await sql`
      insert into chapters (work_id, title, content, position, word_count, state, publish_at)
      select w.id, '新的一章', '正文', 65536, 2, 'scheduled', now() + interval '1 second'
      from works w where w.user_id = ${author.id}`;

    const expected = WORKS * FOLLOWERS;
    await waitFor(
      "every chapter released and every job delivered",
      async () => {
        const [{ lines, jobs, scheduled }] = await sql<{ lines: number; jobs: number; scheduled: number }[]>`
          select (select count(*)::int from notifications) as lines,
                 (select count(*)::int from notification_jobs) as jobs,
                 (select count(*)::int from chapters where state = 'scheduled') as scheduled`;
        return lines >= expected && jobs === 0 && scheduled === 0;
      },
      { timeout: 30_000, interval: 200 },
    );

    const [totals] = await sql<{ lines: number; pairs: number; max_count: number; min_count: number; jobs: number }[]>`
      select count(*)::int as lines, count(distinct (user_id, work_id))::int as pairs,
             max(count)::int as max_count, min(count)::int as min_count,
             (select count(*)::int from notification_jobs) as jobs
      from notifications where kind = 'chapters'`;
    expect(totals).toEqual({ lines: expected, pairs: expected, max_count: 1, min_count: 1, jobs: 0 });
    expect(works).toHaveLength(WORKS);

    const byProcess = await Promise.all(servers.map((s) => notifiedBy(s.origin)));
    expect(byProcess.reduce((a, b) => a + b, 0)).toBe(expected);
    expect(byProcess.every((n) => n > 0), `followers told per process: ${byProcess.join(", ")}`).toBe(true);
    for (const { child } of servers) expect(child.output()).not.toContain("delivering notifications failed");
  }, 60_000);
});
