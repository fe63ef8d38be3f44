import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { authorFollows, notifications, profiles, reviewItems, users } from "~/db/schema";
import { authorWorksHref } from "~/utils/hrefs";
import { claimItem, decideItem, saveReviewPolicy } from "~/server/admin/review-queue.server";
import { AUTHOR_MESSAGES, setAuthorFollow } from "~/server/community/author-follows.server";
import { listNotifications } from "~/server/community/notifications.server";
import { clearPublicCache } from "~/server/platform/public-cache.server";
import { reloadScreening } from "~/server/screening/screening.server";
import { addScreeningWord } from "~/server/screening/words.server";
import { updateWorkSettings } from "~/server/studio/settings.server";
import { publishWork } from "~/server/studio/work-create.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { insertWorks, setViewerPrefs } from "../fixtures/works";
import { actorOf, callAction, callLoader, createAdmin } from "./admin-fixtures";

/**
 * Author pages and 关注作者 (docs/product.md#author-pages, decision 230): the page shows the
 * works readers may see, follows are per user, and a followed author's new work that readers
 * can see puts a line in the follower's inbox (at publish, or at the approval of a held one).
 */

const page = () => import("~/routes/public/author");
const get = (path: string, cookie?: string) => (cookie ? userRequest(cookie, path) : new Request(`http://localhost${path}`));
const single = (title: string, extra: Record<string, unknown> = {}) =>
  ({ status: "completed", type: "single_chapter", title, description: "一段简介", rating: "all_ages", isAiGenerated: false, visibility: "public", content: "正文。", ...extra }) as never;

async function nicknameOf(userId: string) {
  const [row] = await db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, userId));
  return row.nickname;
}

async function newWorkLines(userId: string) {
  return db
    .select({ workId: notifications.workId, actorId: notifications.actorId })
    .from(notifications)
    .where(and(eq(notifications.userId, userId), eq(notifications.kind, "new-work")));
}

let reviewer: Awaited<ReturnType<typeof createAdmin>>;
beforeAll(async () => {
  const chief = await createAdmin({ role: "chief_editor" });
  reviewer = await createAdmin({ role: "reviewer" });
  await saveReviewPolicy(actorOf(chief), { newAuthors: false, trustedAfter: 10, aiWorks: false, samplePercent: 0, unsignedAuthors: false });
});

describe(`the author page (${databaseKind})`, () => {
  it("shows the nickname, the follower count and only the works readers may see", async () => {
    const author = await createUser();
    await insertWorks([
      { userId: author.id, title: "公开作品甲" },
      { userId: author.id, title: "私密作品乙", visibility: "private" },
      { userId: author.id, title: "成人作品丙", rating: "r18" },
      { userId: author.id, title: "AI作品丁", isAiGenerated: true },
    ]);
    const fan = await createUser();
    await setAuthorFollow(fan, author.id, true);
    clearPublicCache();

    const visitor = await callLoader(await page(), get(`/authors/${author.id}`), { id: author.id });
    expect(visitor.status).toBe(200);
    expect(visitor.data.author.nickname).toBe(await nicknameOf(author.id));
    expect(visitor.data.followers).toBe(1);
    expect([visitor.data.following, visitor.data.isSelf, visitor.data.signedIn]).toEqual([false, false, false]);
    expect(visitor.data.works.works.map((w: { title: string }) => w.title).sort()).toEqual(["AI作品丁", "公开作品甲"]);

    // A reader who hides AI works and shows R-18 ones sees what /works?author= shows them.
    const reader = await createUser();
    await setViewerPrefs(reader.id, { showR18: true, showAi: false });
    const theirs = await callLoader(await page(), get(`/authors/${author.id}`, await sessionCookieFor(reader.id)), { id: author.id });
    expect(theirs.data.works.works.map((w: { title: string }) => w.title).sort()).toEqual(["公开作品甲", "成人作品丙"]);

    const own = await callLoader(await page(), get(`/authors/${author.id}`, await sessionCookieFor(fan.id)), { id: author.id });
    expect([own.data.following, own.data.isSelf]).toEqual([true, false]);
    const self = await callLoader(await page(), get(`/authors/${author.id}`, await sessionCookieFor(author.id)), { id: author.id });
    expect(self.data.isSelf).toBe(true);
  });

  it("shows an existing user with no public works; an unknown or malformed id is a 404", async () => {
    const quiet = await createUser();
    await insertWorks([{ userId: quiet.id, title: "只有私密", visibility: "private" }]);
    const shown = await callLoader(await page(), get(`/authors/${quiet.id}`), { id: quiet.id });
    expect([shown.status, shown.data.works.total]).toEqual([200, 0]);
    for (const id of ["00000000-0000-4000-8000-000000000000", "不是编号", "1"]) {
      const missing = await callLoader(await page(), get(`/authors/${encodeURIComponent(id)}`), { id });
      expect(missing.status).toBe(404);
    }
  });

  it("author names link to the author's page", () => {
    expect(authorWorksHref("2f1d3c4e-0000-4000-8000-000000000000")).toBe("/authors/2f1d3c4e-0000-4000-8000-000000000000");
  });
});

describe(`关注作者 (${databaseKind})`, () => {
  it("follows and unfollows through the page's form, without and with JavaScript, idempotently", async () => {
    const author = await createUser();
    const reader = await createUser();
    const cookie = await sessionCookieFor(reader.id);
    const path = `/authors/${author.id}`;

    const plain = await callAction(await page(), userRequest(cookie, path, { intent: "follow", on: "1" }), { id: author.id });
    expect([plain.status, plain.location]).toEqual([302, path]);
    const again = await callAction(await page(), userRequest(cookie, path, { intent: "follow", on: "1", enhanced: "1" }), { id: author.id });
    expect([again.status, again.data]).toEqual([200, { on: true }]);
    expect(await db.select().from(authorFollows).where(eq(authorFollows.authorId, author.id))).toHaveLength(1);

    const off = await callAction(await page(), userRequest(cookie, path, { intent: "follow", on: "0", enhanced: "1" }), { id: author.id });
    expect(off.data).toEqual({ on: false });
    expect(await db.select().from(authorFollows).where(eq(authorFollows.authorId, author.id))).toEqual([]);
  });

  it("refuses following oneself with a message, an unknown author with a 404, a bad form with a 400; sends visitors to log in", async () => {
    const author = await createUser();
    const cookie = await sessionCookieFor(author.id);
    const path = `/authors/${author.id}`;
    const self = await callAction(await page(), userRequest(cookie, path, { intent: "follow", on: "1" }), { id: author.id });
    expect([self.status, self.data]).toEqual([400, { error: AUTHOR_MESSAGES.self }]);
    expect((await domainError(setAuthorFollow(author, author.id, true))).message).toBe("不能关注自己");

    const nobody = "00000000-0000-4000-8000-000000000001";
    const unknown = await callAction(await page(), userRequest(cookie, `/authors/${nobody}`, { intent: "follow", on: "1" }), { id: nobody });
    expect(unknown.status).toBe(404);
    const malformed = await callAction(await page(), userRequest(cookie, "/authors/x", { intent: "follow", on: "1" }), { id: "x" });
    expect(malformed.status).toBe(404);
    const bad = await callAction(await page(), userRequest(cookie, path, { intent: "buy" }), { id: author.id });
    expect(bad.status).toBe(400);
    expect(await db.select().from(authorFollows).where(eq(authorFollows.userId, author.id))).toEqual([]);

    const visitor = await callAction(
      await page(),
      new Request(`http://localhost${path}`, { method: "POST", headers: { Origin: "http://localhost" }, body: new URLSearchParams({ intent: "follow", on: "1" }) }),
      { id: author.id },
    );
    expect(visitor.status).toBe(302);
    expect(visitor.location).toContain("login");
  });
});

describe(`a followed author's new work (${databaseKind})`, () => {
  it("puts a line in followers' inboxes when readers can see it, none for a private one or a hidden audience", async () => {
    const author = await createUser();
    const fan = await createUser();
    await setViewerPrefs(fan.id, { showR18: true });
    // showR18 is off by default.
    const prude = await createUser();
    await setAuthorFollow(fan, author.id, true);
    await setAuthorFollow(prude, author.id, true);

    const title = `新书${Date.now().toString(36)}`;
    const work = await publishWork(author.id, single(title), { cover: null, txt: null });
    expect(await newWorkLines(fan.id)).toEqual([{ workId: work.id, actorId: author.id }]);
    const inbox = await listNotifications(fan.id, 1);
    expect(inbox.lines[0]).toMatchObject({ kind: "new-work", workId: work.id, href: `/works/${work.id}`, actorNickname: await nicknameOf(author.id), workTitle: title });

    await publishWork(author.id, single(`私密${title}`, { visibility: "private" }), { cover: null, txt: null });
    await publishWork(author.id, single(`成人${title}`, { rating: "r18" }), { cover: null, txt: null });
    expect(await newWorkLines(fan.id)).toHaveLength(2);
    // The reader who hides R-18 works heard of the first work only.
    expect(await newWorkLines(prude.id)).toEqual([{ workId: work.id, actorId: author.id }]);
    // The author themselves gets nothing.
    expect(await newWorkLines(author.id)).toEqual([]);
  });

  it("tells followers when a held new work is approved, not while it waits; nothing when it stays private", async () => {
    const author = await createUser();
    await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
    const fan = await createUser();
    await setAuthorFollow(fan, author.id, true);

    const held = await publishWork(author.id, single(`待审${Date.now().toString(36)}`), { cover: null, txt: null });
    const kept = await publishWork(author.id, single(`待审私密${Date.now().toString(36)}`, { visibility: "private" }), { cover: null, txt: null });
    expect(await newWorkLines(fan.id)).toEqual([]);

    for (const workId of [held.id, kept.id]) {
      const [item] = await db
        .select()
        .from(reviewItems)
        .where(and(eq(reviewItems.workId, workId), isNull(reviewItems.chapterId), eq(reviewItems.status, "pending")));
      await claimItem(actorOf(reviewer), "reviewer", item.id);
      expect(await decideItem(actorOf(reviewer), "reviewer", item.id, "approve", "")).toBe("work-approved");
    }
    expect(await newWorkLines(fan.id)).toEqual([{ workId: held.id, actorId: author.id }]);
  });

  it("tells followers when a settings save releases a held new work (nothing holds it any more)", async () => {
    const chief = await createAdmin({ role: "chief_editor" });
    const word = `作者页待审${Date.now().toString(36)}`;
    await addScreeningWord(actorOf(chief), { word, category: "其他", level: "review" });
    await reloadScreening();
    const author = await createUser();
    const fan = await createUser();
    await setAuthorFollow(fan, author.id, true);
    const held = await publishWork(author.id, single(`待审简介${Date.now().toString(36)}`, { description: `简介里有${word}` }), { cover: null, txt: null });
    expect(await newWorkLines(fan.id)).toEqual([]);
    await updateWorkSettings(
      author.id,
      held.id,
      { title: held.title, description: "干净的简介", rating: "all_ages", isAiGenerated: false, tags: [], cover: "keep" },
      null,
    );
    expect(await newWorkLines(fan.id)).toEqual([{ workId: held.id, actorId: author.id }]);
  });
});
