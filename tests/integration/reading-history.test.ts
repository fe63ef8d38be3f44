import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { chapters, favorites, readingProgress, works } from "~/db/schema";
import { HISTORY_MESSAGES } from "~/schemas/history";
import { continueReading } from "~/server/catalog/home.server";
import { createWork } from "~/server/catalog/works.server";
import { listShelf } from "~/server/reading/library.server";
import { setFavorite } from "~/server/reading/favorites.server";
import { saveProgress } from "~/server/reading/reader.server";
import { formatShanghai } from "~/utils/shanghai-time";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { callAction, callLoader } from "./admin-fixtures";
import { seriesWith, viewerOf as viewer } from "../fixtures/works";

/**
 * 阅读记录 (docs/product.md#reading-history, decision 234): the works a reader opened, newest
 * first, with the chapter reached and when (Beijing time); 删除 and 清空 hide entries without
 * losing the reading position the 书架 counts from; reading again shows the work again.
 */

const page = () => import("~/routes/shell/library/history");
const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };


type Entry = { workId: number; title: string; chapterOrder: number; chapterTitle: string; href: string; readAt: string };

describe(`阅读记录 (${databaseKind})`, () => {
  it("lists the works opened, newest first, with the chapter and the time; 删除 keeps the 书架's position; reading again shows it", async () => {
    const author = await createUser();
    const reader = await createUser();
    const me = await viewer(reader.id);
    const cookie = await sessionCookieFor(reader.id);
    const older = await seriesWith(author.id, "先读的", 3);
    const newer = await seriesWith(author.id, "后读的", 2);
    const hidden = await seriesWith(author.id, "下架的", 1);
    await setFavorite(me, older.id, true);
    await saveProgress(reader.id, hidden.id, hidden.chapters[0], 0);
    await saveProgress(reader.id, older.id, older.chapters[1], 3);
    await saveProgress(reader.id, newer.id, newer.chapters[0], 0);
    // A work taken private since is left out of the list.
    await db.update(works).set({ visibility: "private" }).where(eq(works.id, hidden.id));

    const first = await callLoader(await page(), userRequest(cookie, "/history"));
    expect(first.status).toBe(200);
    const entries = first.data.entries as Entry[];
    expect(entries.map((e) => [e.title, e.chapterOrder, e.chapterTitle])).toEqual([
      ["后读的", 1, "第1章"],
      ["先读的", 2, "第2章"],
    ]);
    expect(entries[1].href).toBe(`/works/${older.id}?chapter=2&from=3#p-3`);
    const [row] = await db.select({ at: readingProgress.updatedAt }).from(readingProgress).where(eq(readingProgress.workId, older.id));
    expect(formatShanghai(entries[1].readAt)).toBe(formatShanghai(row.at));
    expect(formatShanghai(entries[1].readAt)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);

    // 删除 the older one: gone from the list and 继续阅读, still on the 书架 with its place.
    const removed = await callAction(await page(), userRequest(cookie, "/history", { intent: "remove", workId: String(older.id) }));
    expect([removed.status, removed.location]).toEqual([302, "/history"]);
    const after = await callLoader(await page(), userRequest(cookie, "/history"));
    expect((after.data.entries as Entry[]).map((e) => e.title)).toEqual(["后读的"]);
    expect((await continueReading(me)).map((c) => c.work.title)).toEqual(["后读的"]);
    const shelf = await listShelf(me, "updated", 1);
    expect(shelf.items.map((i) => [i.work.title, i.unread, i.continueHref])).toEqual([["先读的", 1, `/works/${older.id}?chapter=2&from=3#p-3`]]);
    expect(await db.select().from(favorites).where(eq(favorites.userId, reader.id))).toHaveLength(1);

    // Removing it again: 404 with the message, nothing changes.
    const again = await callAction(await page(), userRequest(cookie, "/history", { intent: "remove", workId: String(older.id) }));
    expect([again.status, again.data]).toEqual([404, { error: HISTORY_MESSAGES.missing }]);
    const junk = await callAction(await page(), userRequest(cookie, "/history", { intent: "remove", workId: "abc" }));
    expect(junk.status).toBe(404);
    expect((await callAction(await page(), userRequest(cookie, "/history", { intent: "burn" }))).status).toBe(400);

    // Reading it again puts it back, at the top.
    await saveProgress(reader.id, older.id, older.chapters[2], 0);
    const back = await callLoader(await page(), userRequest(cookie, "/history"));
    expect((back.data.entries as Entry[]).map((e) => [e.title, e.chapterOrder])).toEqual([
      ["先读的", 3],
      ["后读的", 1],
    ]);
  });

  it("清空 empties the list (one reader's only) and keeps the positions", async () => {
    const author = await createUser();
    const reader = await createUser();
    const other = await createUser();
    const cookie = await sessionCookieFor(reader.id);
    const a = await seriesWith(author.id, "甲书", 2);
    const b = await seriesWith(author.id, "乙书", 2);
    for (const w of [a, b]) {
      await saveProgress(reader.id, w.id, w.chapters[1], 0);
      await saveProgress(other.id, w.id, w.chapters[0], 0);
    }
    const cleared = await callAction(await page(), userRequest(cookie, "/history", { intent: "clear" }));
    expect([cleared.status, cleared.location]).toEqual([302, "/history"]);
    const flash = cleared.response!.headers.get("Set-Cookie")!.split(";")[0];
    const empty = await callLoader(await page(), userRequest(`${cookie}; ${flash}`, "/history"));
    expect([empty.data.entries, empty.data.total]).toEqual([[], 0]);
    expect(empty.data.notice).toEqual({ kind: "success", text: HISTORY_MESSAGES.cleared });
    const kept = await db.select({ chapterId: readingProgress.chapterId }).from(readingProgress).where(eq(readingProgress.userId, reader.id));
    expect(kept.map((k) => k.chapterId).sort()).toEqual([a.chapters[1], b.chapters[1]].sort());
    const theirs = await callLoader(await page(), userRequest(await sessionCookieFor(other.id), "/history"));
    expect(theirs.data.total).toBe(2);
    // 清空 again: nothing to empty, said so.
    const twice = await callAction(await page(), userRequest(cookie, "/history", { intent: "clear" }));
    const flash2 = twice.response!.headers.get("Set-Cookie")!.split(";")[0];
    const still = await callLoader(await page(), userRequest(`${cookie}; ${flash2}`, "/history"));
    expect(still.data.notice).toEqual({ kind: "success", text: HISTORY_MESSAGES.empty });
  });

  it("pages by 20; a visitor is sent to log in", async () => {
    const author = await createUser();
    const reader = await createUser();
    const cookie = await sessionCookieFor(reader.id);
    for (let i = 0; i < 21; i++) {
      const w = await createWork(author.id, { ...base, title: `短篇${i}`, type: "single_chapter", status: "completed" }, [{ title: "正文", content: "正文" }], null);
      const [c] = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, w.id));
      await saveProgress(reader.id, w.id, c.id, 0);
    }
    const second = await callLoader(await page(), userRequest(cookie, "/history?page=2"));
    expect([second.data.page, second.data.pageCount, second.data.total, second.data.entries.length]).toEqual([2, 2, 21, 1]);
    expect(second.data.entries[0].title).toBe("短篇0");
    const visitor = await callLoader(await page(), new Request("http://localhost/history"));
    expect(visitor.status).toBe(302);
    expect(visitor.location).toContain("login");
  });
});
