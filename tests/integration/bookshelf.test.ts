import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { setFavorite } from "~/server/reading/favorites.server";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import { listShelf } from "~/server/reading/library.server";
import { saveProgress } from "~/server/reading/reader.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { callThroughRoutes } from "./route-chain";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { createRoutesStub } from "react-router";
import { ShelfCard } from "~/components/library/shelf-card";
import { purchaseChapter } from "~/server/economy/chapter-sales.server";
import { insertWorks, serialByChapter, seriesWith, viewerOf as viewer } from "../fixtures/works";
import { clockPast } from "../fixtures/wait";


/** Sets when a work's chapters came out (the latest last). */
async function publishedAt(workId: number, at: Date) {
  await db.execute(sql`update chapters set publish_at = ${at.toISOString()}::timestamptz where work_id = ${workId}`);
}

describe("the 书架 (/following)", () => {
  it("shows each work's latest chapter, unread count, progress, update dot and 已购, in one query per page", async () => {
    const author = await createUser();
    const reader = await createUser();
    const me = await viewer(reader.id);
    const caughtUp = await seriesWith(author.id, "读完了", 3);
    const halfway = await seriesWith(author.id, "读到一半", 4);
    const unopened = await seriesWith(author.id, "没读过", 2);
    const paid = await seriesWith(author.id, "买了的", 2);
    await db.update(works).set({ visibility: "public-vip", price: 5 }).where(eq(works.id, paid.id));
    const day = 86_400_000;
    await publishedAt(caughtUp.id, new Date(Date.now() - 3 * day));
    await publishedAt(halfway.id, new Date(Date.now() - 2 * day));
    await publishedAt(unopened.id, new Date(Date.now() - 1 * day));
    for (const w of [caughtUp, halfway, unopened, paid]) await setFavorite(me, w.id, true);
    await db.transaction((tx) => credit(tx, reader.id, 10, "测试充值"));
    await purchaseWork(reader.id, paid.id);

    await saveProgress(reader.id, caughtUp.id, caughtUp.chapters[2], 5);
    await saveProgress(reader.id, halfway.id, halfway.chapters[1], 0);
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    await db.execute(sql`update reading_progress set updated_at = ${ago(day / 2)}::timestamptz where work_id = ${caughtUp.id}`);
    await db.execute(sql`update reading_progress set updated_at = ${ago(3 * day)}::timestamptz where work_id = ${halfway.id}`);
    await db.execute(sql`update favorites set created_at = ${ago(5 * day)}::timestamptz where work_id = ${unopened.id}`);

    const shelf = await listShelf(me, "updated", 1);
    // 最近更新: the newest chapter first (paid's chapters came out just now).
    expect(shelf.items.map((i) => i.work.title)).toEqual(["买了的", "没读过", "读到一半", "读完了"]);
    const by = Object.fromEntries(shelf.items.map((i) => [i.work.title, i]));
    expect(by["读完了"]).toMatchObject({ unread: 0, progress: 100, updated: false, latestChapter: { title: "第3章" } });
    expect(by["读完了"].continueHref).toBe(`/works/${caughtUp.id}?chapter=3&from=5#p-5`);
    // Read chapter 2 of 4, three days ago; chapters came out two days ago.
    expect(by["读到一半"]).toMatchObject({ unread: 2, progress: 50, updated: true, latestChapter: { title: "第4章" } });
    // Never opened: everything unread; followed before its chapters' time, so updated.
    expect(by["没读过"]).toMatchObject({ unread: 2, progress: 0, continueHref: null });
    expect(by["买了的"]).toMatchObject({ purchased: true });
    expect(by["读到一半"].purchased).toBe(false);

    // 最近阅读: the last read first, never-read works after.
    const byRead = await listShelf(me, "read", 1);
    expect(byRead.items.map((i) => i.work.title).slice(0, 2)).toEqual(["读完了", "读到一半"]);

    // The page of 500 the benchmark asks for is the same query.
    expect((await listShelf(me, "updated", 1, 500)).items).toHaveLength(4);
  });

  it("shows a work sold by chapter with its 千字价 and 已购 N 章, never \"0 积分\"", async () => {
    const author = await createUser();
    const reader = await createUser();
    const me = await viewer(reader.id);
    // Chapters 3-6 are VIP, 2,000 字 at 5 a thousand.
    const serial = await serialByChapter(author.id, { count: 6, vipFrom: 3, perThousand: 5, title: "按章连载" });
    const untouched = await serialByChapter(author.id, { count: 6, vipFrom: 3, perThousand: 8, title: "没买过" });
    const [whole] = await insertWorks([{ userId: author.id, title: "全本作品", visibility: "public-vip", price: 30 }]);
    for (const id of [serial.workId, untouched.workId, whole]) await setFavorite(me, id, true);
    await db.transaction((tx) => credit(tx, reader.id, 100, "测试充值"));
    await purchaseChapter(reader.id, serial.workId, serial.chapterIds[2]);
    await purchaseChapter(reader.id, serial.workId, serial.chapterIds[3]);

    const { loader } = await import("~/routes/shell/library/following");
    const page = await callThroughRoutes(loader, { request: userRequest(await sessionCookieFor(reader.id), "/following") });
    const card = (title: string) => {
      const item = page.items.find((i) => i.work.title === title)!;
      const Stub = createRoutesStub([{ path: "/following", Component: () => createElement(ShelfCard, { item, back: "/following" }) }]);
      const html = renderToStaticMarkup(createElement(Stub, { initialEntries: ["/following"] }));
      return html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    };
    expect(card("按章连载")).toContain("按章 千字 5 积分");
    expect(card("按章连载")).toContain("已购 2 章");
    expect(card("没买过")).toContain("按章 千字 8 积分");
    expect(card("没买过")).not.toContain("已购");
    expect(card("全本作品")).toContain("30 积分");
    for (const title of ["按章连载", "没买过"]) expect(card(title)).not.toMatch(/(^|[^\d])0 积分/);
  });

  it("counts only published chapters, and a new chapter makes the work unread again", async () => {
    const author = await createUser();
    const reader = await createUser();
    const me = await viewer(reader.id);
    const work = await seriesWith(author.id, "连载中", 2);
    await setFavorite(me, work.id, true);
    await saveProgress(reader.id, work.id, work.chapters[1], 0);
    await insertChapter(author.id, work.id, { title: "存稿", content: "未发布", release: { mode: "draft" } }, "end");
    expect((await listShelf(me, "updated", 1)).items[0]).toMatchObject({ unread: 0, updated: false, latestChapter: { title: "第2章" } });
    await clockPast(new Date()); // the new chapter comes after the reading
    await insertChapter(author.id, work.id, { title: "第3章", content: "新的", release: { mode: "now" } }, "end");
    expect((await listShelf(me, "updated", 1)).items[0]).toMatchObject({ unread: 1, progress: 66, updated: true, latestChapter: { title: "第3章" } });
  });

  it("is the /following page, sorted by ?sort=, any other value meaning 最近更新", async () => {
    const author = await createUser();
    const reader = await createUser();
    const work = await seriesWith(author.id, "页面", 1);
    await setFavorite(await viewer(reader.id), work.id, true);
    const cookie = await sessionCookieFor(reader.id);
    const { loader } = await import("~/routes/shell/library/following");
    for (const [query, sort] of [["?sort=read", "read"], ["?sort=%E4%B9%B1", "updated"], ["", "updated"]] as const) {
      const data = await callThroughRoutes(loader, { request: userRequest(cookie, `/following${query}`) });
      expect(data.sort).toBe(sort);
      expect(data.items.map((i) => i.work.title)).toEqual(["页面"]);
    }
  });
});
