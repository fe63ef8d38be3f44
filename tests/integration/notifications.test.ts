import { and, eq, sql } from "drizzle-orm";
import { SaxesParser } from "saxes";
import { describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { chapterComments, chapters, notificationJobs, notifications, profiles, works } from "~/db/schema";
import { postComment } from "~/server/community/comments.server";
import { liveEventStream } from "~/server/platform/events.server";
import { setFavorite } from "~/server/reading/favorites.server";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import {
  deliverNotifications,
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  pendingNotificationJobs,
  sendAdminMessage,
  setWorkMuted,
  unreadNotificationCount,
} from "~/server/community/notifications.server";
import { deleteChapter, insertChapter, moveChapter } from "~/server/studio/chapters.server";
import { inboxLineText } from "~/components/notifications/inbox-line-text";
import { purchaseAllChapters, purchaseChapter } from "~/server/economy/chapter-sales.server";
import { createWork } from "~/server/catalog/works.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { sseReader } from "../fixtures/live-events";
import { insertWorks, serialByChapter, setViewerPrefs } from "../fixtures/works";
import { adminCookieFor, callAction, createAdmin, firstError, request } from "./admin-fixtures";
import { bodyOf, callThroughRoutes, statusOf } from "./route-chain";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

async function viewer(id: string) {
  const [p] = await db.select({ showR18: profiles.showR18, showAi: profiles.showAi }).from(profiles).where(eq(profiles.id, id));
  return { id, ...p };
}

function series(userId: string, title = "连载", extra: Partial<typeof base> = {}) {
  return createWork(userId, { ...base, ...extra, title, type: "series", status: "ongoing" }, [{ title: "第一章", content: "一二三" }], null);
}

function publishNow(ownerId: string, workId: number, title: string) {
  return insertChapter(ownerId, workId, { title, content: `${title}的正文`, release: { mode: "now" } }, "end");
}

async function linesOf(userId: string) {
  return db.select().from(notifications).where(eq(notifications.userId, userId));
}

/** `count` followers made in one statement (users and profiles), each following `workId`. */
async function manyFollowers(workId: number, count: number, tag: string): Promise<string[]> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      with u as (
        insert into users (email, password_hash)
        select ${tag} || '-' || g || '@example.com', 'not-a-login' from generate_series(1, ${count}) g
        returning id, email
      ), p as (
        insert into profiles (id, email, nickname) select id, email, '读者' from u returning id
      )
      insert into favorites (user_id, work_id) select id, ${workId} from p returning user_id as id`),
  );
  return rows.map((r) => r.id);
}

describe("new chapters of followed works", () => {
  it("are one job in the author's transaction, then one line per follower, work and day", async () => {
    const author = await createUser();
    const reader = await createUser();
    const muted = await createUser();
    const work = await series(author.id);
    await setFavorite(await viewer(reader.id), work.id, true);
    await setFavorite(await viewer(muted.id), work.id, true);
    await setWorkMuted(muted.id, String(work.id), true);

    await publishNow(author.id, work.id, "第二章");
    // The author's request wrote one job and no line.
    expect(await pendingNotificationJobs()).toBe(1);
    expect(await linesOf(reader.id)).toHaveLength(0);

    expect(await deliverNotifications()).toBeGreaterThan(0);
    expect(await pendingNotificationJobs()).toBe(0);
    expect(await linesOf(reader.id)).toMatchObject([{ kind: "chapters", workId: work.id, count: 1, readAt: null }]);
    expect(await linesOf(muted.id)).toHaveLength(0);
    expect(await unreadNotificationCount(reader.id)).toBe(1);

    // Read, then two more chapters the same day: the same line, unread again, count 3.
    await markAllNotificationsRead(reader.id);
    expect(await unreadNotificationCount(reader.id)).toBe(0);
    await publishNow(author.id, work.id, "第三章");
    await publishNow(author.id, work.id, "第四章");
    await deliverNotifications();
    const [line] = await linesOf(reader.id);
    expect(line).toMatchObject({ count: 3, readAt: null });
    const inbox = await listNotifications(reader.id, 1);
    expect(inbox.unread).toBe(1);
    // The line leads to the first of its new chapters (its title carries its own number).
    expect(inbox.lines).toMatchObject([
      { kind: "chapters", count: 3, workTitle: "连载", chapterTitle: "第二章", href: `/works/${work.id}?chapter=2`, unread: true },
    ]);
  });

  it("count only the chapters still published and lead to the first of them, numbered once", async () => {
    const author = await createUser();
    const reader = await createUser();
    const work = await series(author.id, "删改连载");
    await setFavorite(await viewer(reader.id), work.id, true);
    const rain = await publishNow(author.id, work.id, "雨夜");
    await publishNow(author.id, work.id, "定时之潮");
    await publishNow(author.id, work.id, "第7章 归途");
    await deliverNotifications();
    let [line] = (await listNotifications(reader.id, 1)).lines;
    expect(line).toMatchObject({ count: 3, chapterTitle: "第2章 雨夜", href: `/works/${work.id}?chapter=2` });
    expect(inboxLineText(line)).toBe("《删改连载》更新了 3 章：第2章 雨夜");

    // The first new chapter is deleted: two remain, the line leads to 定时之潮, now chapter 2.
    await deleteChapter(author.id, work.id, rain);
    [line] = (await listNotifications(reader.id, 1)).lines;
    expect(line).toMatchObject({ count: 2, chapterTitle: "第2章 定时之潮", href: `/works/${work.id}?chapter=2` });
    expect(inboxLineText(line)).toBe("《删改连载》更新了 2 章：第2章 定时之潮");
  });

  it("tell nobody of a private work, and only those whose settings show an R-18 or AI work", async () => {
    const author = await createUser();
    const [r18On, r18Off, aiOff] = [await createUser(), await createUser(), await createUser()];
    await setViewerPrefs(r18On.id, { showR18: true });
    const adult = await series(author.id, "成人", { rating: "r18" } as never);
    const ai = await series(author.id, "AI 连载", { isAiGenerated: true } as never);
    const hidden = await series(author.id, "将下架");
    for (const u of [r18On, r18Off]) await setFavorite({ id: u.id, showR18: true, showAi: true }, adult.id, true);
    await setFavorite(await viewer(aiOff.id), ai.id, true);
    await setFavorite(await viewer(r18Off.id), hidden.id, true);
    await setViewerPrefs(aiOff.id, { showAi: false });
    await db.update(works).set({ visibility: "private" }).where(eq(works.id, hidden.id));

    await publishNow(author.id, adult.id, "第二章");
    await publishNow(author.id, ai.id, "第二章");
    await publishNow(author.id, hidden.id, "第二章");
    await deliverNotifications();
    expect((await linesOf(r18On.id)).map((l) => l.workId)).toEqual([adult.id]);
    expect(await linesOf(r18Off.id)).toHaveLength(0);
    expect(await linesOf(aiOff.id)).toHaveLength(0);
    expect(await pendingNotificationJobs()).toBe(0);
  });

  it("reach every follower exactly once when several deliverers share the batches", async () => {
    const author = await createUser();
    const [first, second] = [await series(author.id, "甲"), await series(author.id, "乙")];
    const followersA = await manyFollowers(first.id, 1_500, `a-${first.id}`);
    const followersB = await manyFollowers(second.id, 700, `b-${second.id}`);
    await publishNow(author.id, first.id, "第二章");
    await publishNow(author.id, second.id, "第二章");
    await publishNow(author.id, first.id, "第三章");
    expect(await pendingNotificationJobs()).toBe(3);

    // Four deliverers at once, 100 followers a batch: on PostgreSQL each runs on its own
    // pool connection, claiming jobs with FOR UPDATE SKIP LOCKED.
    const batches = await Promise.all([1, 2, 3, 4].map(() => deliverNotifications(100)));
    expect(batches.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(15 + 7 + 15);
    if (databaseKind === "postgres") expect(batches.filter((n) => n > 0).length).toBeGreaterThan(1);
    expect(await pendingNotificationJobs()).toBe(0);

    const rows = rowsOf<{ work_id: string | number; lines: number; users: number; counts: number[] }>(
      await db.execute(sql`
        select work_id, count(*)::int as lines, count(distinct user_id)::int as users, array_agg(distinct count) as counts
        from notifications where work_id in (${first.id}, ${second.id}) group by work_id order by work_id`),
    );
    expect(rows.map((r) => [Number(r.work_id), r.lines, r.users, r.counts.map(Number)])).toEqual([
      [first.id, followersA.length, followersA.length, [2]],
      [second.id, followersB.length, followersB.length, [1]],
    ]);
  }, 60_000);
});

describe("purchases, replies and administrators' messages", () => {
  it("tell the author of a purchase of their work, unless they muted it", async () => {
    const author = await createUser();
    const buyer = await createUser();
    const work = await series(author.id, "付费连载");
    await db.update(works).set({ visibility: "public-vip", price: 5 }).where(eq(works.id, work.id));
    await db.transaction((tx) => credit(tx, buyer.id, 20, "测试充值"));
    await purchaseWork(buyer.id, work.id);
    // Buying again charges nothing and tells nobody twice.
    await purchaseWork(buyer.id, work.id);
    const inbox = await listNotifications(author.id, 1);
    expect(inbox.lines).toMatchObject([{ kind: "purchase", workTitle: "付费连载", href: `/works/${work.id}/stats`, unread: true }]);
    expect(inbox.lines[0].actorNickname).toBeTruthy();

    await setWorkMuted(author.id, String(work.id), true);
    const other = await createUser();
    await db.transaction((tx) => credit(tx, other.id, 20, "测试充值"));
    await purchaseWork(other.id, work.id);
    expect(await linesOf(author.id)).toHaveLength(1);
    // Muting also read the work's lines; the muted work is listed for 取消静音.
    expect((await listNotifications(author.id, 1)).muted).toEqual([{ workId: work.id, title: "付费连载" }]);
    expect(await unreadNotificationCount(author.id)).toBe(0);
  });

  it("say what was bought: one chapter, N chapters by 购买全部, or the whole work", async () => {
    const author = await createUser();
    const [one, all, whole] = await Promise.all([createUser(), createUser(), createUser()]);
    // Chapters 3-6 are VIP; chapter 3's title carries its own number.
    const serial = await serialByChapter(author.id, { count: 6, vipFrom: 3, title: "定时之潮", titleOf: (i) => (i === 3 ? "第三章 潮起" : `章${i}`) });
    for (const u of [one, all, whole]) await db.transaction((tx) => credit(tx, u.id, 200, "测试充值"));
    await purchaseChapter(one.id, serial.workId, serial.chapterIds[2]);
    expect(await purchaseAllChapters(all.id, serial.workId)).toMatchObject({ status: "purchased", count: 4 });
    const [book] = await insertWorks([{ userId: author.id, title: "全本书", visibility: "public-vip", price: 5 }]);
    await purchaseWork(whole.id, book);

    const { lines } = await listNotifications(author.id, 1);
    const nick = async (id: string) => (await db.select({ n: profiles.nickname }).from(profiles).where(eq(profiles.id, id)))[0].n;
    expect(lines.map(inboxLineText)).toEqual([
      `${await nick(whole.id)} 购买了《全本书》全本`,
      `${await nick(all.id)} 购买了《定时之潮》的 4 章`,
      `${await nick(one.id)} 购买了《定时之潮》的第三章 潮起`,
    ]);
    expect(lines.map((l) => l.href)).toEqual([`/works/${book}/stats`, `/works/${serial.workId}/stats`, `/works/${serial.workId}/stats`]);
  });

  it("tell a commenter of a reply by someone else, linking to the thread", async () => {
    const author = await createUser();
    const commenter = await createUser();
    const replier = await createUser();
    const work = await series(author.id, "有评论");
    const top = await postComment(await viewer(commenter.id), { workId: work.id, order: 1, paragraph: 0, parentId: null, body: "好看" });
    await postComment(await viewer(commenter.id), { workId: work.id, order: 1, paragraph: null, parentId: top.id, body: "自己回复" });
    expect(await linesOf(commenter.id)).toHaveLength(0);
    await postComment(await viewer(replier.id), { workId: work.id, order: 1, paragraph: null, parentId: top.id, body: "同意" });
    const inbox = await listNotifications(commenter.id, 1);
    expect(inbox.lines).toMatchObject([{ kind: "reply", href: `/works/${work.id}/comments?chapter=1&p=0`, workTitle: "有评论" }]);
    const [parent] = await db.select().from(chapterComments).where(eq(chapterComments.id, top.id));
    expect(parent.replyCount).toBe(2);
  });

  it("deliver an administrator's message, refusing an empty or too long one", async () => {
    const user = await createUser();
    await sendAdminMessage(user.id, "  你的作品已通过审核  ");
    expect((await listNotifications(user.id, 1)).lines).toMatchObject([{ kind: "admin", body: "你的作品已通过审核", href: null }]);
    expect(await domainError(sendAdminMessage(user.id, "   "))).toMatchObject({ status: 400, message: "请填写消息内容" });
    expect(await domainError(sendAdminMessage(user.id, "长".repeat(2001)))).toMatchObject({ status: 400 });
    expect(await domainError(sendAdminMessage("00000000-0000-0000-0000-000000000000", "你好"))).toMatchObject({ status: 404 });
    expect(await linesOf(user.id)).toHaveLength(1);
  });
});

describe("the back office's 发送消息", () => {
  it("sends a message from the user page, refusing an empty or too long one with its message", async () => {
    const admin = await createAdmin();
    const cookie = await adminCookieFor(admin.id);
    const user = await createUser();
    const edit = await import("~/routes/admin/user-edit");
    const post = (fields: Record<string, string>) => callAction(edit, request(`/admin/users/${user.id}`, { cookie }, fields), { id: user.id });
    let r = await post({ intent: "message", body: "   " });
    expect(r.status).toBe(400);
    expect(firstError(r.data.result)).toBe("请填写消息内容");
    r = await post({ intent: "message", body: "长".repeat(2001) });
    expect(r.status).toBe(400);
    expect(firstError(r.data.result)).toBe("消息不能超过 2000 字");
    expect(await linesOf(user.id)).toHaveLength(0);
    r = await post({ intent: "message", body: "请补充作品简介" });
    expect(r.location).toBe(`/admin/users/${user.id}?notice=message-sent`);
    expect(await linesOf(user.id)).toMatchObject([{ kind: "admin", body: "请补充作品简介" }]);
    // Without an administrator's session nothing is sent.
    const refused = await callAction(edit, request(`/admin/users/${user.id}`, {}, { intent: "message", body: "伪造" }), { id: user.id });
    expect(refused.status).toBe(401);
    expect(await linesOf(user.id)).toHaveLength(1);
  });
});

describe("/notifications", () => {
  it("lists, marks one read (only one's own), all read, mutes and unmutes through its action", async () => {
    const user = await createUser();
    const stranger = await createUser();
    const author = await createUser();
    const work = await series(author.id, "被关注");
    await setFavorite(await viewer(user.id), work.id, true);
    await publishNow(author.id, work.id, "第二章");
    await deliverNotifications();
    await sendAdminMessage(user.id, "欢迎");
    await sendAdminMessage(stranger.id, "别人的");
    const cookie = await sessionCookieFor(user.id);
    const { loader, action } = await import("~/routes/shell/notifications/inbox");
    const page = await callThroughRoutes(loader, { request: userRequest(cookie, "/notifications") });
    const data = (page as { data: Awaited<ReturnType<typeof listNotifications>> }).data;
    expect(data.unread).toBe(2);
    expect(data.lines.map((l) => l.kind)).toEqual(["admin", "chapters"]);

    const post = async (fields: Record<string, string>) => {
      try {
        return (await callThroughRoutes(action, { request: userRequest(cookie, "/notifications", fields) })) as unknown;
      } catch (thrown) {
        if (thrown instanceof Response) return thrown;
        throw thrown;
      }
    };
    const status = (r: unknown) => (r instanceof Response ? r.status : (r as { init: { status: number } }).init.status);
    const [strangers] = await linesOf(stranger.id);

    // Another user's line, nonsense ids and unknown intents are refused without a change.
    expect(status(await post({ intent: "read", id: String(strangers.id) }))).toBe(404);
    expect(status(await post({ intent: "read", id: "abc" }))).toBe(404);
    expect(status(await post({ intent: "mute", workId: "-1" }))).toBe(404);
    expect(status(await post({ intent: "mute", workId: "999999999" }))).toBe(404);
    expect(status(await post({ intent: "delete-everything" }))).toBe(400);
    expect((await linesOf(stranger.id))[0].readAt).toBeNull();

    const admin = data.lines.find((l) => l.kind === "admin")!;
    const done = (await post({ intent: "read", id: String(admin.id), back: "//evil.example" })) as Response;
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/notifications");
    expect(await unreadNotificationCount(user.id)).toBe(1);

    expect(status(await post({ intent: "mute", workId: String(work.id), back: "/notifications?page=1" }))).toBe(302);
    expect(await unreadNotificationCount(user.id)).toBe(0);
    await publishNow(author.id, work.id, "第三章");
    await deliverNotifications();
    expect((await linesOf(user.id)).find((l) => l.kind === "chapters")).toMatchObject({ count: 1 });
    expect(status(await post({ intent: "unmute", workId: String(work.id) }))).toBe(302);
    await publishNow(author.id, work.id, "第四章");
    await deliverNotifications();
    expect((await linesOf(user.id)).find((l) => l.kind === "chapters")).toMatchObject({ count: 2, readAt: null });
    expect(status(await post({ intent: "read-all" }))).toBe(302);
    expect(await unreadNotificationCount(user.id)).toBe(0);

    // The shell layout hands the bell its count.
    const { loader: shell } = await import("~/routes/shell/layout");
    await sendAdminMessage(user.id, "又一条");
    const shellData = (await callThroughRoutes(shell, { request: userRequest(cookie, "/notifications") })) as { data: { user: { unread: number } } };
    expect(shellData.data.user.unread).toBe(1);
  });

  it("needs a session", async () => {
    const { loader } = await import("~/routes/shell/notifications/inbox");
    await expect(callThroughRoutes(loader, { request: new Request("http://localhost/notifications") })).rejects.toMatchObject({ status: 302 });
  });
});

describe("/works/:id/feed.xml", () => {
  async function feed(id: number | string) {
    const { loader } = await import("~/routes/public/work-feed");
    return (await callThroughRoutes(loader, { request: new Request(`http://localhost/works/${id}/feed.xml`) })) as Response;
  }

  /** Well-formed XML (saxes is strict), returning the element names in order and the texts by element. */
  function parseXml(xml: string) {
    const parser = new SaxesParser({ xmlns: true });
    const names: string[] = [];
    const texts: Record<string, string[]> = {};
    const stack: string[] = [];
    parser.on("opentag", (tag) => {
      expect(tag.uri).toBe("http://www.w3.org/2005/Atom");
      names.push(tag.local);
      stack.push(tag.local);
    });
    parser.on("closetag", () => void stack.pop());
    parser.on("text", (text) => {
      const at = stack.join("/");
      if (text.trim()) (texts[at] ??= []).push(text);
    });
    parser.write(xml).close();
    return { names, texts };
  }

  it("is valid Atom with the published chapters, newest first, and never their text", async () => {
    const author = await createUser();
    const work = await series(author.id, "订阅<&>测试");
    await publishNow(author.id, work.id, "第二章 \u0001控制符");
    await insertChapter(author.id, work.id, { title: "存稿", content: "不可见", release: { mode: "draft" } }, "end");
    const response = await feed(work.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/atom+xml; charset=utf-8");
    const xml = await response.text();
    const { names, texts } = parseXml(xml);
    expect(names[0]).toBe("feed");
    // RFC 4287: a feed has id, title, updated and an author; each entry id, title, updated and a link.
    for (const required of ["feed/id", "feed/title", "feed/updated", "feed/author/name"]) expect(texts[required], required).toHaveLength(1);
    expect(texts["feed/title"]).toEqual(["订阅<&>测试"]);
    // 第N章 by the reader's numbering, the title's own 第…章 left out (no 第2章 第二章).
    expect(texts["feed/entry/title"]).toEqual(["第二章 控制符", "第一章"]);
    expect(texts["feed/entry/id"]).toHaveLength(2);
    expect(texts["feed/entry/updated"]!.every((t) => !Number.isNaN(Date.parse(t)))).toBe(true);
    expect(xml).not.toContain("?chapter=");
    expect(xml).not.toContain("存稿");
    expect(xml).not.toContain("的正文");
  });

  it("builds its links from SITE_URL, else from localhost on the server's port, never from a forged Host", async () => {
    const author = await createUser();
    const work = await series(author.id, "站点地址");
    await publishNow(author.id, work.id, "首章");
    const { loader } = await import("~/routes/public/work-feed");
    const forged = () => callThroughRoutes(loader, { request: new Request(`http://evil.example/works/${work.id}/feed.xml`) }) as Promise<Response>;
    process.env.SITE_URL = "https://inkstone.example";
    try {
      const xml = await (await forged()).text();
      expect(xml).toContain(`href="https://inkstone.example/works/${work.id}"`);
      expect(xml).not.toContain("evil.example");
    } finally {
      delete process.env.SITE_URL;
    }
    // Unset, this machine's address on the server's port: still never the forged Host.
    const unset = await (await forged()).text();
    expect(unset).toContain(`href="http://localhost:3000/works/${work.id}"`);
    expect(unset).not.toContain("evil.example");
  });

  it("numbers published chapters only and links each by id, which the reader sends to its number of the day", async () => {
    const author = await createUser();
    const work = await series(author.id, "存稿与移动");
    // A 存稿 second in the order: the chapter after it is the second published one.
    await insertChapter(author.id, work.id, { title: "第2章 草稿", content: "未发布", release: { mode: "draft" } }, "end");
    const tide = await publishNow(author.id, work.id, "定时之潮");
    const xml = await (await feed(work.id)).text();
    expect(parseXml(xml).texts["feed/entry/title"]).toEqual(["第2章 定时之潮", "第一章"]);
    const href = `http://localhost:3000/works/${work.id}?chapterId=${tide}`;
    expect(xml).toContain(`href="${href}"`);

    const { loader: reader } = await import("~/routes/shell/reader/work");
    const follow = async (url: string) => {
      const answer = await callThroughRoutes(reader, { request: new Request(url) }).catch((thrown: unknown) => thrown);
      return answer instanceof Response ? [answer.status, answer.headers.get("Location")] : [statusOf(answer), null];
    };
    expect(await follow(href)).toEqual([302, `/works/${work.id}?chapter=2`]);
    // Moved first, the same entry leads to the same chapter, now the first.
    await moveChapter(author.id, work.id, tide, 1);
    expect(await follow(href)).toEqual([302, `/works/${work.id}?chapter=1`]);
    // A 存稿, another work's chapter or nonsense is 章节不存在.
    const [draft] = await db.select({ id: chapters.id }).from(chapters).where(and(eq(chapters.workId, work.id), eq(chapters.state, "draft")));
    const other = await series(author.id, "别的作品");
    for (const id of [String(draft.id), String(tide), "abc"]) {
      const workId = id === String(tide) ? other.id : work.id;
      const answer = await callThroughRoutes(reader, { request: new Request(`http://localhost/works/${workId}?chapterId=${id}`) }).catch((e: unknown) => e);
      expect([statusOf(answer), bodyOf(answer)], id).toEqual([404, "章节不存在"]);
    }
  });

  it("is a 404 for what a visitor may not see", async () => {
    const author = await createUser();
    const hidden = await series(author.id, "私密");
    await db.update(works).set({ visibility: "private" }).where(eq(works.id, hidden.id));
    const adult = await series(author.id, "成人", { rating: "r18" } as never);
    for (const id of [hidden.id, adult.id, 999999999, "abc"]) expect((await feed(id)).status).toBe(404);
  });
});

describe("jobs", () => {
  it("are made only for followed works, and removed with their work", async () => {
    const author = await createUser();
    const work = await series(author.id);
    const jobsOf = () => db.select().from(notificationJobs).where(eq(notificationJobs.workId, work.id));
    await publishNow(author.id, work.id, "无人关注时");
    expect(await jobsOf()).toHaveLength(0);
    await setFavorite(await viewer((await createUser()).id), work.id, true);
    await publishNow(author.id, work.id, "第三章");
    expect(await jobsOf()).toHaveLength(1);
    await db.delete(works).where(eq(works.id, work.id));
    expect(await jobsOf()).toHaveLength(0);
  });
});

describe("the bell, live", () => {
  it("rings on the follower's stream when their batch is delivered, and on an administrator's message", async () => {
    const author = await createUser();
    const follower = await createUser();
    const bystander = await createUser();
    const work = await series(author.id, "实时");
    await setFavorite(await viewer(follower.id), work.id, true);
    const streams = [follower, bystander].map((u) => {
      const controller = new AbortController();
      return { controller, sse: sseReader(liveEventStream(u.id, controller.signal, { heartbeatMs: 60_000 })) };
    });
    for (const s of streams) expect(await s.sse.next()).toContain(": connected");
    // The stream subscribes after its first bytes, then says `ready`.
    for (const s of streams) await s.sse.ready();

    await publishNow(author.id, work.id, "第二章");
    await deliverNotifications();
    const seen: string[] = [];
    for (;;) {
      const message = await streams[0].sse.next();
      seen.push(message);
      if (message.includes('"kind":"notifications"')) break;
    }
    expect(seen.at(-1)).toBe(`event: change\ndata: {"kind":"notifications"}`);

    await sendAdminMessage(bystander.id, "你好");
    // The bystander hears their own message, and nothing of the work they do not follow.
    expect(await streams[1].sse.next()).toBe(`event: change\ndata: {"kind":"notifications"}`);
    await expect(streams[1].sse.next(500)).rejects.toThrow();
    for (const s of streams) s.controller.abort();
  });
});
