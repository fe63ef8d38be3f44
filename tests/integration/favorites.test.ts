import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, favorites, works } from "~/db/schema";
import { FAVORITE_MESSAGES, setFavorite } from "~/server/reading/favorites.server";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import { listFollowing, listPurchased } from "~/server/reading/library.server";
import { saveProgress } from "~/server/reading/reader.server";
import { createUserSession, getSessionUser } from "~/server/identity/session.server";
import { cookiePair, createUser, postRequest } from "../fixtures/accounts";
import { insertWorks, serialByChapter, setViewerPrefs } from "../fixtures/works";
import { purchaseAllChapters, purchaseChapter } from "~/server/economy/chapter-sales.server";
import { callThroughRoutes } from "./route-chain";
import { clockPast } from "../fixtures/wait";
import { domainError } from "../fixtures/domain-error";

async function viewerOf(userId: string) {
  const cookie = cookiePair(await createUserSession(new Request("http://localhost/"), userId));
  const user = await getSessionUser(new Request("http://localhost/", { headers: { Cookie: cookie } }));
  return { user: user!, cookie };
}

async function followed(userId: string, workId: number) {
  const rows = await db
    .select()
    .from(favorites)
    .where(and(eq(favorites.userId, userId), eq(favorites.workId, workId)));
  return rows.length === 1;
}

describe("setFavorite", () => {
  it("follows and unfollows, and repeating either changes nothing", async () => {
    const author = await createUser();
    const { user } = await viewerOf((await createUser()).id);
    const [id] = await insertWorks([{ userId: author.id, title: "可关注" }]);

    expect(await setFavorite(user, id, true)).toBe(true);
    expect(await setFavorite(user, id, true)).toBe(true);
    expect(await followed(user.id, id)).toBe(true);
    expect(await setFavorite(user, id, false)).toBe(false);
    expect(await setFavorite(user, id, false)).toBe(false);
    expect(await followed(user.id, id)).toBe(false);
  });

  it("refuses the owner, private works of others, missing works and r18 works hidden by settings", async () => {
    const author = await createUser();
    const { user: owner } = await viewerOf(author.id);
    const { user } = await viewerOf((await createUser()).id);
    const [mine, hidden, adult] = await insertWorks([
      { userId: author.id, title: "自己的" },
      { userId: author.id, title: "下架的", visibility: "private" },
      { userId: author.id, title: "成人的", rating: "r18" },
    ]);

    expect((await domainError(setFavorite(owner, mine, true))).message).toBe(FAVORITE_MESSAGES.ownWork);
    expect((await domainError(setFavorite(user, hidden, true))).status).toBe(404);
    expect((await domainError(setFavorite(user, 99999999, true))).status).toBe(404);
    expect((await domainError(setFavorite(user, Number.NaN, false))).status).toBe(404);
    expect((await domainError(setFavorite(user, adult, true))).message).toBe(FAVORITE_MESSAGES.hidden);
    expect(await db.select().from(favorites).where(eq(favorites.userId, user.id))).toEqual([]);

    await setViewerPrefs(user.id, { showR18: true });
    const { user: r18On } = await viewerOf(user.id);
    expect(await setFavorite(r18On, adult, true)).toBe(true);
  });

  it("still lets the user unfollow a work that was taken down", async () => {
    const author = await createUser();
    const { user } = await viewerOf((await createUser()).id);
    const [id] = await insertWorks([{ userId: author.id, title: "将下架" }]);
    await setFavorite(user, id, true);
    await db.update(works).set({ visibility: "private" }).where(eq(works.id, id));
    expect(await setFavorite(user, id, false)).toBe(false);
    expect(await followed(user.id, id)).toBe(false);
  });
});

describe("the favourite form (reader action)", () => {
  async function post(workId: number, fields: Record<string, string>, cookie?: string) {
    const { action } = await import("~/routes/shell/reader/work");
    try {
      return await callThroughRoutes(action, {
        request: postRequest(`/works/${workId}`, { intent: "favorite", ...fields }, cookie ? { Cookie: cookie } : {}),
        params: { id: String(workId) },
      });
    } catch (thrown) {
      return thrown;
    }
  }

  it("without JavaScript redirects back to the page it came from (same-origin paths only)", async () => {
    const author = await createUser();
    const { user, cookie } = await viewerOf((await createUser()).id);
    const [id] = await insertWorks([{ userId: author.id, title: "表单关注" }]);

    const on = (await post(id, { on: "1", back: "/following?page=2" }, cookie)) as Response;
    expect(on.status).toBe(302);
    expect(on.headers.get("Location")).toBe("/following?page=2");
    expect(await followed(user.id, id)).toBe(true);

    const off = (await post(id, { on: "0", back: "https://evil.example/" }, cookie)) as Response;
    expect(off.headers.get("Location")).toBe(`/works/${id}`);
    expect(await followed(user.id, id)).toBe(false);

    for (const back of ["/.//evil.example", "/admin/../..//evil.example", "/\t/evil.example"]) {
      const again = (await post(id, { on: "0", back }, cookie)) as Response;
      expect([back, again.headers.get("Location")]).toEqual([back, `/works/${id}`]);
    }
  });

  it("with JavaScript answers the new state; refusals come back as messages", async () => {
    const author = await createUser();
    const { cookie: ownerCookie } = await viewerOf(author.id);
    const { cookie } = await viewerOf((await createUser()).id);
    const [id] = await insertWorks([{ userId: author.id, title: "脚本关注" }]);

    expect(((await post(id, { on: "1", enhanced: "1" }, cookie)) as { data: unknown }).data).toEqual({ intent: "favorite", on: true });
    const own = (await post(id, { on: "1", enhanced: "1" }, ownerCookie)) as { data: unknown; init: ResponseInit };
    expect(own.data).toEqual({ intent: "favorite", error: FAVORITE_MESSAGES.ownWork });
    expect(own.init.status).toBe(403);
  });

  it("sends a visitor to the login dialog", async () => {
    const author = await createUser();
    const [id] = await insertWorks([{ userId: author.id, title: "游客关注" }]);
    const response = (await post(id, { on: "1" })) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(`/?auth=login&redirectTo=${encodeURIComponent(`/works/${id}`)}`);
  });
});

describe("/following and /purchased", () => {
  it("list the user's works newest first, with 继续阅读 where they left off", async () => {
    const author = await createUser();
    const { user } = await viewerOf((await createUser()).id);
    const [first, second] = await insertWorks([
      { userId: author.id, title: "先关注" },
      { userId: author.id, title: "后关注" },
    ]);
    const [chapter] = await db
      .insert(chapters)
      .values({ workId: first, title: "第一章", content: "正文", position: 1, wordCount: 2 })
      .returning({ id: chapters.id });
    await setFavorite(user, first, true);
    await clockPast(new Date()); // the second follow is the later one
    await setFavorite(user, second, true);
    await saveProgress(user.id, first, chapter.id, 7);

    const page = await listFollowing(user, 1);
    expect(page.items.map((i) => i.work.title)).toEqual(["后关注", "先关注"]);
    expect(page.items.map((i) => i.continueHref)).toEqual([null, `/works/${first}?chapter=1&from=7#p-7`]);
    expect(page.items.every((i) => i.favorited)).toBe(true);
    expect(page.hidden).toBe(0);
  });

  it("hide works that became private or are r18 / AI works the user's settings hide, and count them", async () => {
    const author = await createUser();
    const { user } = await viewerOf((await createUser()).id);
    await setViewerPrefs(user.id, { showR18: true });
    const { user: r18On } = await viewerOf(user.id);
    const [plain, adult, later, ai] = await insertWorks([
      { userId: author.id, title: "普通" },
      { userId: author.id, title: "成人", rating: "r18" },
      { userId: author.id, title: "将下架" },
      { userId: author.id, title: "AI 作品", isAiGenerated: true },
    ]);
    for (const id of [plain, adult, later, ai]) await setFavorite(r18On, id, true);
    await db.update(works).set({ visibility: "private" }).where(eq(works.id, later));

    expect((await listFollowing(r18On, 1)).items.map((i) => i.work.title).sort()).toEqual(["AI 作品", "成人", "普通"].sort());
    await setViewerPrefs(user.id, { showR18: false, showAi: false });
    const { user: strict } = await viewerOf(user.id);
    const page = await listFollowing(strict, 1);
    expect(page.items.map((i) => i.work.title)).toEqual(["普通"]);
    expect(page.hidden).toBe(3);
  });

  it("/purchased lists bought works only, and the loaders require a session", async () => {
    const author = await createUser();
    const buyerAccount = await createUser();
    const { user, cookie } = await viewerOf(buyerAccount.id);
    const [paid, other] = await insertWorks([
      { userId: author.id, title: "已买", visibility: "public-vip", price: 3 },
      { userId: author.id, title: "未买", visibility: "public-vip", price: 3 },
    ]);
    await db.transaction((tx) => credit(tx, user.id, 10, "测试充值"));
    await purchaseWork(user.id, paid);
    expect((await listPurchased(user, 1)).items.map((i) => [i.work.title, i.favorited])).toEqual([["已买", false]]);
    expect(other).toBeGreaterThan(0);

    const { loader } = await import("~/routes/shell/library/purchased");
    const data = await callThroughRoutes(loader, {
      request: new Request("http://localhost/purchased", { headers: { Cookie: cookie } }),
    });
    expect(data.items.map((i) => i.work.title)).toEqual(["已买"]);

    const { loader: following } = await import("~/routes/shell/library/following");
    await expect(
      callThroughRoutes(following, { request: new Request("http://localhost/following") }),
    ).rejects.toMatchObject({ status: 302 });
  });

  it("/purchased lists a work bought chapter by chapter or by 购买全部, with 已购 N/M 章, newest purchase first", async () => {
    const author = await createUser();
    const { user, cookie } = await viewerOf((await createUser()).id);
    // Chapters 3-6 are VIP at 10 credits each.
    const all = await serialByChapter(author.id, { count: 6, vipFrom: 3, title: "全部买下" });
    const some = await serialByChapter(author.id, { count: 6, vipFrom: 3, title: "买了一章" });
    const [whole] = await insertWorks([{ userId: author.id, title: "全本买下", visibility: "public-vip", price: 3 }]);
    await db.transaction((tx) => credit(tx, user.id, 200, "测试充值"));
    await purchaseWork(user.id, whole);
    await purchaseChapter(user.id, some.workId, some.chapterIds[3]);
    expect((await purchaseAllChapters(user.id, all.workId)).status).toBe("purchased");

    const { loader } = await import("~/routes/shell/library/purchased");
    const data = await callThroughRoutes(loader, { request: new Request("http://localhost/purchased", { headers: { Cookie: cookie } }) });
    expect(data.items.map((i) => [i.work.title, i.boughtChapters])).toEqual([
      ["全部买下", { owned: 4, of: 4 }],
      ["买了一章", { owned: 1, of: 4 }],
      ["全本买下", null],
    ]);
    expect(data.total).toBe(3);
    // A chapter published later is one more VIP chapter to own.
    await db.insert(chapters).values({ workId: all.workId, title: "第7章", content: "正文", position: 7 * 1024, wordCount: 2000, price: 10 });
    const again = await listPurchased(user, 1);
    expect(again.items[0].boughtChapters).toEqual({ owned: 4, of: 5 });
  });

  it("/purchased shows bought AI works with 显示AI内容 off; R-18 ones stay behind the R-18 setting", async () => {
    const author = await createUser();
    const { user } = await viewerOf((await createUser()).id);
    await setViewerPrefs(user.id, { showR18: true });
    const { user: r18On } = await viewerOf(user.id);
    const [ai, adult] = await insertWorks([
      { userId: author.id, title: "已买 AI", visibility: "public-vip", price: 3, isAiGenerated: true },
      { userId: author.id, title: "已买成人", visibility: "public-vip", price: 3, rating: "r18" },
    ]);
    await db.transaction((tx) => credit(tx, user.id, 10, "测试充值"));
    await purchaseWork(r18On.id, ai);
    await purchaseWork(r18On.id, adult);

    await setViewerPrefs(user.id, { showAi: false });
    const { user: noAi } = await viewerOf(user.id);
    const page = await listPurchased(noAi, 1);
    expect(page.items.map((i) => i.work.title).sort()).toEqual(["已买 AI", "已买成人"].sort());
    expect(page.hidden).toBe(0);
    // 已关注 still follows the preference.
    await setFavorite(noAi, ai, true);
    expect((await listFollowing(noAi, 1)).items).toEqual([]);

    await setViewerPrefs(user.id, { showR18: false });
    const { user: noR18 } = await viewerOf(user.id);
    const strict = await listPurchased(noR18, 1);
    expect(strict.items.map((i) => i.work.title)).toEqual(["已买 AI"]);
    expect(strict.hidden).toBe(1);
  });
});

