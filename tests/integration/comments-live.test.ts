import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapterComments, commentMutes } from "~/db/schema";
import {
  COMMENT_MESSAGES,
  commentCounts,
  listMutedUsers,
  postComment,
  setHidden,
  setMuted,
  settleReanchors,
  unmuteUser,
} from "~/server/community/comments.server";
import { commentsTopic, listenerCount } from "~/server/platform/events.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { collector, sseReader } from "../fixtures/live-events";
import { requireBuild, startServerProcesses, stopServerProcesses, type ServerProcess } from "../fixtures/processes";
import { childDatabase } from "../fixtures/server-database";
import { addChapter, insertWorks } from "../fixtures/works";
import { quietFor } from "../fixtures/wait";
import { callThroughRoutes } from "./route-chain";

/**
 * Live comments (decision 101), the author's muted list (decision 102) and the routes
 * they add: events on the chapter's topic, the counts resource route, the comments
 * stream on /api/events, the thread's answers to the dialog, /works/:id/comment-mutes.
 */

type U = { id: string; showR18: boolean; showAi: boolean };
const viewer = (id: string): U => ({ id, showR18: false, showAi: true });
const TEXT = ["第一段，茶馆里灯还亮着。", "第二段，掌柜的抬起头。", "第三段，玉佩落在柜台上。"];

const f = {} as { owner: U; reader: U; other: U; free: number; paid: number; freeChapter: number; paidChapter: number };

/** A handler's answer, thrown (redirects, route errors) or returned. */
async function settled<T>(run: Promise<T>): Promise<unknown> {
  try {
    return await run;
  } catch (thrown) {
    return thrown;
  }
}

beforeAll(async () => {
  const [owner, reader, other] = [await createUser(), await createUser(), await createUser()];
  Object.assign(f, { owner: viewer(owner.id), reader: viewer(reader.id), other: viewer(other.id) });
  [f.free, f.paid] = await insertWorks([
    { userId: owner.id, title: "实时茶馆" },
    { userId: owner.id, title: "付费实时茶馆", visibility: "public-vip", price: 10 },
  ]);
  f.freeChapter = await addChapter(f.free, TEXT.join("\n"));
  f.paidChapter = await addChapter(f.paid, TEXT.join("\n"));
});

describe("comments events", () => {
  it("tells the chapter's readers of a post, a reply, a hide and a re-anchoring, on commit; a refused post tells nobody", async () => {
    const sub = await collector(commentsTopic(f.freeChapter));
    const top = await postComment(f.reader, { workId: f.free, order: 1, paragraph: 1, parentId: null, body: "掌柜的认出来了" });
    expect(await sub.next()).toEqual({ topic: commentsTopic(f.freeChapter), kind: "comments", chapterId: f.freeChapter, paragraph: 1 });
    await postComment(f.other, { workId: f.free, order: 1, paragraph: null, parentId: top.id, body: "我也觉得" });
    expect(await sub.next()).toMatchObject({ chapterId: f.freeChapter, paragraph: 1 });
    await setHidden(f.owner, top.id, true);
    expect(await sub.next()).toMatchObject({ chapterId: f.freeChapter, paragraph: 1 });

    await domainError(postComment(f.reader, { workId: f.free, order: 1, paragraph: null, parentId: null, body: "  " }));
    await quietFor(300); // time for the event a post would raise
    expect(sub.seen).toEqual([]);

    await setHidden(f.owner, top.id, false);
    await sub.next();
    await saveChapter(f.owner.id, f.free, f.freeChapter, { kind: "save", content: ["楔子。", ...TEXT].join("\n") });
    await settleReanchors();
    expect(await sub.next()).toMatchObject({ chapterId: f.freeChapter, paragraph: null });
    expect((await commentCounts(f.freeChapter)).paragraphs).toEqual({ 2: 1 });
    // Only the paragraphs asked for (the reader's batch), and always 本章说.
    expect(await commentCounts(f.freeChapter, { from: 0, to: 2 })).toEqual({ paragraphs: {}, chapter: 0 });
    sub.unsubscribe();
  });
});

describe("routes", () => {
  it("/works/:id/comment-counts answers the counts where the chapter may be read, else a Chinese refusal", async () => {
    const { loader } = await import("~/routes/shell/reader/comment-counts");
    const get = async (cookie: string, query: string, work = f.free) =>
      (await callThroughRoutes(loader, { request: userRequest(cookie, `/works/${work}/comment-counts?${query}`) })) as Response;
    const reader = await sessionCookieFor(f.reader.id);
    const ok = await get(reader, `chapterId=${f.freeChapter}&from=0&to=50`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual(await commentCounts(f.freeChapter));
    const locked = await get(reader, `chapterId=${f.paidChapter}`, f.paid);
    expect([locked.status, (await locked.json()).error]).toEqual([403, COMMENT_MESSAGES.locked]);
    // Another work's chapter, a made-up id, no id at all.
    for (const query of [`chapterId=${f.paidChapter}`, "chapterId=99999999", "chapterId=abc", ""]) {
      const answer = await get(reader, query);
      expect([answer.status, (await answer.json()).error]).toEqual([404, COMMENT_MESSAGES.chapterMissing]);
    }
  });

  it("/api/events carries a chapter's comments to whoever may read it, and to nobody else", async () => {
    const { loader } = await import("~/routes/api/events");
    const open = async (userId: string | null, work: number, chapterId: number | string) => {
      const controller = new AbortController();
      const headers: Record<string, string> = userId ? { Cookie: await sessionCookieFor(userId) } : {};
      const request = new Request(`http://localhost/api/events?work=${work}&chapterId=${chapterId}`, { headers, signal: controller.signal });
      const response = (await callThroughRoutes(loader, { request })) as Response;
      const sse = sseReader(response.body!);
      expect(await sse.next()).toContain(": connected");
      return { sse, controller, request };
    };
    const topic = commentsTopic(f.paidChapter);
    const refused = await open(f.reader.id, f.paid, f.paidChapter);
    const wrongWork = await open(f.owner.id, f.free, f.paidChapter);
    const junk = await open(null, f.free, "1;drop");
    // Each stream says `ready` once its subscriptions are in place.
    for (const s of [refused, wrongWork, junk]) await s.sse.ready();
    expect(listenerCount(topic)).toBe(0);

    const owner = await open(f.owner.id, f.paid, f.paidChapter);
    await owner.sse.ready();
    expect(listenerCount(topic)).toBe(1);
    await postComment(f.owner, { workId: f.paid, order: 1, paragraph: 2, parentId: null, body: "作者来了" });
    const message = await owner.sse.next();
    expect(message).toBe(`event: comments\ndata: ${JSON.stringify({ chapterId: f.paidChapter, paragraph: 2 })}`);

    for (const s of [refused, wrongWork, junk, owner]) s.controller.abort();
    expect(await owner.sse.done()).toBe(true);
    expect(listenerCount(topic)).toBe(0);
  });

  it("the thread answers the dialog's posts with data, and its refusals as data too", async () => {
    const { action, loader } = await import("~/routes/shell/reader/comments");
    const cookie = await sessionCookieFor(f.other.id);
    const here = `/works/${f.free}/comments?chapter=1&p=1&dialog=1`;
    const posted = (await callThroughRoutes(action, { request: userRequest(cookie, here, { intent: "post", enhanced: "1", body: "对话框里写的" }) })) as {
      data: { ok: boolean; intent: string; comment: number };
    };
    expect(posted.data).toMatchObject({ ok: true, intent: "post" });
    const [row] = await db.select().from(chapterComments).where(eq(chapterComments.id, posted.data.comment));
    expect(row.body).toBe("对话框里写的");

    const before = await db.$count(chapterComments);
    const empty = (await callThroughRoutes(action, { request: userRequest(cookie, here, { intent: "post", enhanced: "1", body: "" }) })) as {
      data: { error: string };
      init: ResponseInit;
    };
    expect([empty.init.status, empty.data.error]).toEqual([400, COMMENT_MESSAGES.empty]);
    expect(await db.$count(chapterComments)).toBe(before);

    // A paragraph that is gone: the dialog shows the message instead of breaking the page.
    const gone = (await callThroughRoutes(loader, { request: userRequest(cookie, `/works/${f.free}/comments?chapter=1&p=99&dialog=1`) })) as {
      data: { dialogError: string };
      init: ResponseInit;
    };
    expect([gone.init.status, gone.data.dialogError]).toEqual([404, COMMENT_MESSAGES.paragraphMissing]);
    // The page itself still answers a 404 page.
    const page = (await settled(callThroughRoutes(loader, { request: userRequest(cookie, `/works/${f.free}/comments?chapter=1&p=99`) }))) as {
      init: ResponseInit;
    };
    expect(page.init.status).toBe(404);
  });
});

describe("the author's muted list", () => {
  it("lists the muted commenters of the author's own work and lifts a mute; others get 404 and nothing changes", async () => {
    const noisy = viewer((await createUser()).id);
    const c = await postComment(noisy, { workId: f.free, order: 1, paragraph: null, parentId: null, body: "刷屏" });
    await setMuted(f.owner, c.id, true);
    expect((await listMutedUsers(f.owner.id, f.free)).map((m) => m.userId)).toEqual([noisy.id]);
    expect((await domainError(listMutedUsers(f.reader.id, f.free))).status).toBe(404);
    expect((await domainError(unmuteUser(f.reader.id, f.free, noisy.id))).status).toBe(404);
    expect((await domainError(unmuteUser(f.owner.id, f.free, "not-a-uuid"))).message).toBe(COMMENT_MESSAGES.notMuted);
    expect((await domainError(unmuteUser(f.owner.id, f.free, f.reader.id))).message).toBe(COMMENT_MESSAGES.notMuted);
    expect((await domainError(unmuteUser(f.owner.id, f.paid, noisy.id))).status).toBe(404);
    expect(await db.$count(commentMutes, and(eq(commentMutes.workId, f.free), eq(commentMutes.userId, noisy.id)))).toBe(1);

    await unmuteUser(f.owner.id, f.free, noisy.id);
    expect(await listMutedUsers(f.owner.id, f.free)).toEqual([]);
    await postComment(noisy, { workId: f.free, order: 1, paragraph: null, parentId: null, body: "我又能说话了" });
  });

  it("/works/:id/comment-mutes: owner only, plain forms, Chinese messages for bad input", async () => {
    const { action, loader } = await import("~/routes/shell/studio/comment-mutes");
    const muted = viewer((await createUser()).id);
    const c = await postComment(muted, { workId: f.free, order: 1, paragraph: null, parentId: null, body: "广告" });
    await setMuted(f.owner, c.id, true);
    const owner = await sessionCookieFor(f.owner.id);
    const reader = await sessionCookieFor(f.reader.id);
    const at = `/works/${f.free}/comment-mutes`;

    const page = (await callThroughRoutes(loader, { request: userRequest(owner, at) })) as { data: { muted: { userId: string }[] } };
    expect(page.data.muted.map((m) => m.userId)).toContain(muted.id);
    // A visitor goes to the login; someone else's work is a 404, to read or to post.
    const visitor = (await settled(callThroughRoutes(loader, { request: new Request(`http://localhost${at}`) }))) as Response;
    expect(visitor.headers.get("Location")).toContain("auth=login");
    expect(((await settled(callThroughRoutes(loader, { request: userRequest(reader, at) }))) as { init: ResponseInit }).init.status).toBe(404);
    const foreign = (await callThroughRoutes(action, { request: userRequest(reader, at, { intent: "unmute", userId: muted.id }) })) as {
      init: ResponseInit;
    };
    expect(foreign.init.status).toBe(404);
    const bad = (await callThroughRoutes(action, { request: userRequest(owner, at, { intent: "unmute", userId: "x" }) })) as {
      data: { error: string };
      init: ResponseInit;
    };
    expect([bad.init.status, bad.data.error]).toEqual([404, COMMENT_MESSAGES.notMuted]);
    const unknown = (await callThroughRoutes(action, { request: userRequest(owner, at, { intent: "mute", userId: muted.id }) })) as {
      init: ResponseInit;
    };
    expect(unknown.init.status).toBe(400);
    expect(await db.$count(commentMutes, and(eq(commentMutes.workId, f.free), eq(commentMutes.userId, muted.id)))).toBe(1);

    const done = (await callThroughRoutes(action, { request: userRequest(owner, at, { intent: "unmute", userId: muted.id }) })) as Response;
    expect([done.status, done.headers.get("Location")]).toEqual([302, at]);
    expect(await db.$count(commentMutes, and(eq(commentMutes.workId, f.free), eq(commentMutes.userId, muted.id)))).toBe(0);
  });
});

// Two app processes on one PostgreSQL database: a reader's stream on one sees the comment
// posted through the other (decision 101). PGlite is one process: the PostgreSQL pass only.
if (process.env.DATABASE_URL) {
  describe("across two app processes", () => {
    const servers: ServerProcess[] = [];

    beforeAll(async () => {
      requireBuild();
      const env: NodeJS.ProcessEnv = { ...childDatabase({ ...process.env }).env };
      delete env.NODE_ENV;
      await startServerProcesses(env, 2, servers);
    }, 60_000);

    afterAll(async () => {
      await stopServerProcesses(servers);
    });

    it("a reader's stream on one process gets the 段评 posted through the other, and its counts then show it", async () => {
      const [a, b] = servers;
      const readerCookie = await sessionCookieFor(f.reader.id);
      const controller = new AbortController();
      const stream = await fetch(`${a.origin}/api/events?work=${f.free}&chapterId=${f.freeChapter}`, {
        headers: { Cookie: readerCookie },
        signal: controller.signal,
      });
      const sse = sseReader(stream.body!);
      expect(await sse.next()).toContain(": connected");
      // The stream subscribes right after its first bytes, and then says `ready`.
      await sse.ready();

      const writer = await sessionCookieFor(f.other.id);
      const post = await fetch(`${b.origin}/works/${f.free}/comments?chapter=1&p=0`, {
        method: "POST",
        headers: { Cookie: writer, Origin: b.origin, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "post", body: "从另一个进程发来的段评" }),
        redirect: "manual",
      });
      expect(post.status).toBe(302);
      let message = await sse.next(10_000);
      while (message.startsWith(":")) message = await sse.next(10_000);
      expect(message).toBe(`event: comments\ndata: ${JSON.stringify({ chapterId: f.freeChapter, paragraph: 0 })}`);

      const counts = await fetch(`${a.origin}/works/${f.free}/comment-counts?chapterId=${f.freeChapter}&from=0&to=50`, { headers: { Cookie: readerCookie } });
      expect((await counts.json()).paragraphs[0]).toBe(1);
      controller.abort();
    });
  });
}
