import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "~/server/platform/password.server";
import type { ServerProcess } from "../fixtures/processes";
import { serversOnOwnDatabase } from "../fixtures/server-database";

/**
 * The review queue drained by reviewers on two real app processes (先审后发,
 * docs/product.md#review, decision 196): `node server.js` twice on one PostgreSQL
 * database, eight 审核员 each claiming (领取下一篇, `FOR UPDATE SKIP LOCKED`) and approving
 * until the queue is empty, their requests spread over both processes. No item is claimed
 * by two reviewers, every chapter is released once, every decision audited once.
 */
const ITEMS = 40;
const REVIEWERS = 8;
const PASSWORD = "review-password-123";

let sql: postgres.Sql;
let servers: ServerProcess[] = [];
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ sql, servers, stop } = await serversOnOwnDatabase("inkstone_review", 2, {}));
}, 120_000);

afterAll(async () => {
  await stop?.();
});

/** Signs in at the process's /xbbadmin; the inkstone_admin cookie. */
async function signIn(origin: string, email: string): Promise<string> {
  const response = await fetch(`${origin}/xbbadmin`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: origin, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password: PASSWORD }),
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (response.status !== 302 || !cookie?.startsWith("inkstone_admin=")) throw new Error(`login of ${email}: ${response.status}`);
  return cookie;
}

async function post(origin: string, path: string, cookie: string, fields: Record<string, string>): Promise<{ status: number; location: string }> {
  const response = await fetch(`${origin}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: origin, Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  await response.body?.cancel();
  return { status: response.status, location: response.headers.get("location") ?? "" };
}

describe("the review queue with two app processes", () => {
  it("gives no item to two reviewers and releases each chapter once", async () => {
    const tag = randomBytes(4).toString("hex");
    const [author] = await sql<{ id: string }[]>`
      insert into users (email, password_hash) values (${`review-author-${tag}@example.com`}, 'not-a-login') returning id`;
    await sql`insert into profiles (id, email, nickname) values (${author.id}, ${`review-author-${tag}@example.com`}, '待审作者')`;
    const [work] = await sql<{ id: string }[]>`
      insert into works (user_id, title, description, type, status, visibility)
      values (${author.id}, '待审连载', '简介', 'series', 'ongoing', 'public') returning id`;
    const chapterIds = (
      await sql<{ id: string }[]>`
        insert into chapters (work_id, title, content, position, word_count, state)
        select ${work.id}, '第' || g || '章', '待审的正文' || g, g * 65536, 6, 'review' from generate_series(1, ${ITEMS}) g
        returning id`
    ).map((r) => Number(r.id));
    await sql`
      insert into review_items (chapter_id, work_id, author_id, content_hash, revision, reason, submitted_at)
      select c.id, c.work_id, ${author.id}, encode(sha256(convert_to(c.title || E'\\n' || c.content, 'UTF8')), 'hex'), c.revision, '新作者', now() - make_interval(secs => c.position / 65536)
      from chapters c where c.work_id = ${work.id}`;

    const hash = await hashPassword(PASSWORD);
    const emails = Array.from({ length: REVIEWERS }, (_, i) => `reviewer-${i}-${tag}@example.com`);
    for (const email of emails) await sql`insert into admins (email, password_hash, role) values (${email}, ${hash}, 'reviewer')`;
    const cookies = await Promise.all(emails.map((email, i) => signIn(servers[i % 2].origin, email)));

    // Each reviewer claims and approves until the queue is empty, alternating processes.
    const claimedBy = new Map<number, number[]>();
    await Promise.all(
      cookies.map(async (cookie, r) => {
        const mine: number[] = [];
        claimedBy.set(r, mine);
        for (let turn = 0; ; turn++) {
          const origin = servers[(r + turn) % 2].origin;
          const claim = await post(origin, "/admin/review", cookie, { intent: "claim-next" });
          expect(claim.status).toBe(302);
          if (claim.location === "/admin/review?notice=review-empty") return;
          const id = Number(/^\/admin\/review\/(\d+)\?/.exec(claim.location)?.[1]);
          mine.push(id);
          const decided = await post(servers[(r + turn + 1) % 2].origin, `/admin/review/${id}`, cookie, { intent: "decide", decision: "approve", note: "" });
          expect([decided.status, decided.location]).toEqual([302, "/admin/review?notice=review-approved"]);
        }
      }),
    );

    const all = [...claimedBy.values()].flat();
    expect(all).toHaveLength(ITEMS);
    expect(new Set(all).size).toBe(ITEMS);
    // Both processes and several reviewers did the work.
    expect([...claimedBy.values()].filter((ids) => ids.length > 0).length).toBeGreaterThan(1);

    const [{ published }] = await sql<{ published: number }[]>`
      select count(*)::int as published from chapters where work_id = ${work.id} and state = 'published'`;
    expect(published).toBe(ITEMS);
    const decisions = await sql<{ target_id: string; n: number }[]>`
      select target_id, count(*)::int as n from admin_audit_log where action = 'review.approve' group by target_id`;
    expect(decisions.map((d) => Number(d.target_id)).sort((a, b) => a - b)).toEqual([...chapterIds].sort((a, b) => a - b));
    expect(decisions.every((d) => d.n === 1)).toBe(true);
    const [{ count }] = await sql<{ count: number }[]>`select chapter_count::int as count from works where id = ${work.id}`;
    expect(count).toBe(ITEMS);
  }, 120_000);
});
