import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { categories, chapterPurchases, chapterReads, chapters, favorites, incomeTransactions, statsRefreshes, workPurchases, works, workStats, workStatsQueue } from "~/db/schema";
import { parseWorkFilters } from "~/schemas/discovery";
import { loader as homeLoader } from "~/routes/public/index";
import { loader as rankingsLoader } from "~/routes/public/rankings";
import { loader as tagLoader } from "~/routes/public/tag";
import { loader as worksLoader } from "~/routes/public/works";
import { action as categoriesAction, loader as categoriesLoader } from "~/routes/admin/categories";
import { action as settingsAction } from "~/routes/shell/studio/settings";
import { continueReading, shelfUpdates } from "~/server/catalog/home.server";
import { rankingBoard, sharedHomeRows } from "~/server/catalog/rankings.server";
import { refreshChangedWorkStats, refreshWorkStats } from "~/server/catalog/work-stats.server";
import { setFavorite } from "~/server/reading/favorites.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { clearPublicCache } from "~/server/platform/public-cache.server";
import { saveProgress } from "~/server/reading/reader.server";
import { searchWorks } from "~/server/catalog/search.server";
import { createWork } from "~/server/catalog/works.server";
import { updateWorkSettings } from "~/server/studio/settings.server";
import { publishWork } from "~/server/studio/work-create.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { insertWorks, setViewerPrefs } from "../fixtures/works";
import { adminCookieFor, createAdmin } from "./admin-fixtures";
import { callThroughRoutes } from "./route-chain";

const all = { showR18: true, showAi: true };
let author: { id: string };
let ids: Record<string, number>;
let cat: Record<string, number>;

async function setWork(id: number, values: Partial<typeof works.$inferInsert>) {
  await db.update(works).set(values).where(eq(works.id, id));
}

beforeAll(async () => {
  author = await createUser();
  const rows = await db.select({ id: categories.id, name: categories.name }).from(categories);
  cat = Object.fromEntries(rows.map((r) => [r.name, r.id]));
  const t0 = Date.UTC(2026, 0, 1);
  const list = await insertWorks([
    { userId: author.id, title: "仙侠长篇", createdAt: new Date(t0 + 1000) },
    { userId: author.id, title: "都市短篇", createdAt: new Date(t0 + 2000) },
    { userId: author.id, title: "仙侠虐文", createdAt: new Date(t0 + 3000) },
    { userId: author.id, title: "成人仙侠", rating: "r18", createdAt: new Date(t0 + 4000) },
    { userId: author.id, title: "AI仙侠", isAiGenerated: true, createdAt: new Date(t0 + 5000) },
    { userId: author.id, title: "私密仙侠", visibility: "private", createdAt: new Date(t0 + 6000) },
    { userId: author.id, title: "付费仙侠", visibility: "public-vip", price: 30, createdAt: new Date(t0 + 7000) },
  ]);
  ids = { long: list[0], city: list[1], sad: list[2], r18: list[3], ai: list[4], secret: list[5], paid: list[6] };
  await setWork(ids.long, { tags: ["仙侠", "群像"], categoryId: cat["玄幻"], wordCount: 1_200_000, type: "series", status: "ongoing", updatedAt: new Date(Date.now() + 60_000) });
  await setWork(ids.city, { tags: ["都市"], categoryId: cat["都市"], wordCount: 50_000 });
  await setWork(ids.sad, { tags: ["仙侠", "虐"], categoryId: cat["玄幻"], wordCount: 300_000 });
  await setWork(ids.r18, { tags: ["仙侠"], categoryId: cat["玄幻"] });
  await setWork(ids.ai, { tags: ["仙侠"] });
  await setWork(ids.secret, { tags: ["仙侠"] });
  await setWork(ids.paid, { tags: ["仙侠"], categoryId: cat["玄幻"], wordCount: 700_000 });
});

const titles = (r: { works: { title: string }[] }) => r.works.map((w) => w.title);
const filtered = (query: string, viewer: typeof all | null = all) =>
  searchWorks({ query: "", filters: parseWorkFilters(new URLSearchParams(query)), page: 1, viewer });

describe("work filters (/works, /tags/:name)", () => {
  it("includes every given tag and excludes any excluded one (AO3-style)", async () => {
    expect(titles(await filtered("tag=仙侠"))).toEqual(["付费仙侠", "AI仙侠", "成人仙侠", "仙侠虐文", "仙侠长篇"]);
    expect(titles(await filtered("tags=仙侠，群像"))).toEqual(["仙侠长篇"]);
    expect(titles(await filtered("tag=仙侠&exclude=虐,群像"))).toEqual(["付费仙侠", "AI仙侠", "成人仙侠"]);
  });

  it("respects visibility and the viewer's R-18 and AI preferences", async () => {
    expect(titles(await filtered("tag=仙侠", null))).toEqual(["付费仙侠", "AI仙侠", "仙侠虐文", "仙侠长篇"]);
    expect(titles(await filtered("tag=仙侠", { showR18: true, showAi: false }))).toEqual(["付费仙侠", "成人仙侠", "仙侠虐文", "仙侠长篇"]);
  });

  it("filters by category, 连载/完本 and length, and sorts by words and updates", async () => {
    expect(titles(await filtered(`category=${cat["玄幻"]}&exclude=R18`, { showR18: false, showAi: true }))).toEqual(["付费仙侠", "仙侠虐文", "仙侠长篇"]);
    expect(titles(await filtered("status=ongoing"))).toEqual(["仙侠长篇"]);
    expect(titles(await filtered("tag=仙侠&status=completed&length=medium"))).toEqual(["仙侠虐文"]);
    expect(titles(await filtered("length=epic"))).toEqual(["仙侠长篇"]);
    expect(titles(await filtered("length=short&tag=都市"))).toEqual(["都市短篇"]);
    expect(titles(await filtered("sort=words")).slice(0, 3)).toEqual(["仙侠长篇", "付费仙侠", "仙侠虐文"]);
    expect(titles(await filtered("sort=updated"))[0]).toBe("仙侠长篇");
  });

  it("combines filters with the text search and ignores what it does not understand", async () => {
    const r = await searchWorks({ query: "虐", filters: parseWorkFilters(new URLSearchParams("tag=仙侠")), page: 1, viewer: all });
    expect(titles(r)).toEqual(["仙侠虐文"]);
    const junk = parseWorkFilters(new URLSearchParams("category=abc&status=x&length=huge&sort=drop%20table&ai=robot&author=1%20or%201&tag=" + "长".repeat(40)));
    expect(junk).toEqual({ tags: [], excludeTags: [], categoryId: null, status: null, length: null, sort: "newest", ai: null, authorId: null });
  });

  it("serves /works and /tags/:name through their routes, with the filters in the page links", async () => {
    const page = await callThroughRoutes(worksLoader, { request: new Request(`http://localhost/works?tags=仙侠&sort=words&category=${cat["玄幻"]}`) });
    // A visitor: the R-18 work is left out.
    expect(page.works.map((w) => w.title)).toEqual(["仙侠长篇", "付费仙侠", "仙侠虐文"]);
    expect(page.works[0].tags).toEqual(["仙侠", "群像"]);
    expect(page.filtered).toBe(true);
    expect(page.categories.map((c) => c.name)).toEqual(["玄幻", "都市", "言情", "科幻", "悬疑", "历史", "同人", "其他"]);

    const tag = await callThroughRoutes(tagLoader, { request: new Request(`http://localhost/tags/${encodeURIComponent("仙侠")}?exclude=虐`) });
    expect(tag.tag).toBe("仙侠");
    expect(tag.works.map((w) => w.title)).toEqual(["付费仙侠", "AI仙侠", "仙侠长篇"]);
    await expect(
      callThroughRoutes(tagLoader, { request: new Request(`http://localhost/tags/${encodeURIComponent("长".repeat(30))}`) }),
    ).rejects.toMatchObject({ init: { status: 404 } });
  });
});

describe("work statistics and rankings", () => {
  it("counts favourites, buyers, credits over 7 and 30 days and the 热门 score; rankings follow them", async () => {
    const readers = await Promise.all([1, 2, 3].map(() => createUser()));
    const now = Date.now();
    const day = 86_400_000;
    await db.insert(favorites).values([
      { userId: readers[0].id, workId: ids.sad },
      { userId: readers[1].id, workId: ids.sad },
      { userId: readers[0].id, workId: ids.city, createdAt: new Date(now - 20 * day) },
      { userId: readers[0].id, workId: ids.r18 },
      { userId: readers[1].id, workId: ids.r18 },
      { userId: readers[2].id, workId: ids.r18 },
    ]);
    // Sales as the purchase functions write them: the purchase rows, and the author's
    // income row with what the buyer paid (gross). 仙侠长篇 is sold by chapter: one reader
    // bought two chapters (3 + 2), another 购买全部 at a discount (95 for 100).
    const sale = (workId: number, gross: number, createdAt: Date, chapterId: number | null = null) => ({
      userId: author.id, type: "sale" as const, amount: gross, gross, workId, chapterId, description: "售出", createdAt,
    });
    const [c1, c2] = [await firstChapterOf(ids.long), await firstChapterOf(ids.long)];
    await db.insert(workPurchases).values([
      { userId: readers[0].id, workId: ids.paid, price: 30 },
      { userId: readers[1].id, workId: ids.paid, price: 30, createdAt: new Date(now - 20 * day) },
    ]);
    await db.insert(chapterPurchases).values([
      { userId: readers[2].id, workId: ids.long, chapterId: c1, price: 3, createdAt: new Date(now - 3 * day) },
      { userId: readers[2].id, workId: ids.long, chapterId: c2, price: 2, createdAt: new Date(now - 3 * day) },
      { userId: readers[1].id, workId: ids.long, chapterId: c1, price: 100, createdAt: new Date(now - 40 * day) },
    ]);
    await db.insert(incomeTransactions).values([
      sale(ids.paid, 30, new Date(now)),
      sale(ids.paid, 30, new Date(now - 20 * day)),
      sale(ids.long, 3, new Date(now - 3 * day), c1),
      sale(ids.long, 2, new Date(now - 3 * day), c2),
      sale(ids.long, 95, new Date(now - 6 * day)),
      sale(ids.long, 500, new Date(now - 40 * day)),
    ]);
    expect(await refreshWorkStats(0)).toBe(true);
    // Fresh counts are not recomputed before they are due.
    expect(await refreshWorkStats()).toBe(false);

    const seven = await rankingBoard("bestselling-7d", all);
    expect(seven.map((w) => [w.title, w.score])).toEqual([["仙侠长篇", 100], ["付费仙侠", 30]]);
    const thirty = await rankingBoard("bestselling-30d", all);
    expect(thirty.map((w) => [w.title, w.score])).toEqual([["仙侠长篇", 100], ["付费仙侠", 60]]);
    // Buyers: each reader once, of the whole work or of chapters.
    const buyers = await db.execute(sql`select work_id, purchases from work_stats where work_id in (${ids.paid}, ${ids.long}) order by work_id`);
    expect(Object.fromEntries(rowsOf<{ work_id: number; purchases: number }>(buyers).map((r) => [Number(r.work_id), Number(r.purchases)]))).toEqual({ [ids.paid]: 2, [ids.long]: 2 });
    expect((await rankingBoard("favorites", all)).map((w) => [w.title, w.score])).toEqual([["成人仙侠", 3], ["仙侠虐文", 2], ["都市短篇", 1]]);
    // A visitor and a reader without R-18 do not see the R-18 work ranked.
    expect((await rankingBoard("favorites", null)).map((w) => w.title)).toEqual(["仙侠虐文", "都市短篇"]);
    // 完本: finished works by followers; the ongoing series is not one.
    expect((await rankingBoard("completed", all)).map((w) => w.title)).toEqual(["成人仙侠", "仙侠虐文", "都市短篇"]);
    // 新书: first published within 30 days (these were all "published" in January 2026).
    expect(await rankingBoard("new", all)).toEqual([]);

    // 热门: new followers (3 each) and buyers (5 each) of the last 7 days, and readers.
    await db.insert(chapterReads).values({ chapterId: await firstChapterOf(ids.city), day: new Date().toISOString().slice(0, 10), userId: readers[2].id, workId: ids.city });
    expect(await refreshWorkStats(0)).toBe(true);
    const hot = (await sharedHomeRows(all)).hot.map((w) => w.title);
    expect(hot).toEqual(["成人仙侠", "仙侠虐文", "付费仙侠", "仙侠长篇", "都市短篇"]);
    expect((await sharedHomeRows(null)).hot.map((w) => w.title)).toEqual(["仙侠虐文", "付费仙侠", "仙侠长篇", "都市短篇"]);

    // The 收藏 and 购买 sorts of /works read the same counts.
    expect(titles(await filtered("sort=favorites")).slice(0, 3)).toEqual(["成人仙侠", "仙侠虐文", "都市短篇"]);
    expect(titles(await filtered("sort=purchases")).slice(0, 2)).toEqual(["付费仙侠", "仙侠长篇"]);

    // An unfollowed work drops out at the next refresh.
    await db.delete(favorites).where(eq(favorites.workId, ids.city));
    await refreshWorkStats(0);
    expect((await rankingBoard("favorites", all)).map((w) => w.title)).toEqual(["成人仙侠", "仙侠虐文"]);
  });

  it("serves /rankings with a board chosen from the query, the first board otherwise", async () => {
    const page = await callThroughRoutes(rankingsLoader, { request: new Request("http://localhost/rankings?board=nonsense") });
    expect(page.board).toBe("bestselling-7d");
    const favs = await callThroughRoutes(rankingsLoader, { request: new Request("http://localhost/rankings?board=favorites") });
    expect(favs.board).toBe("favorites");
  });
});

/** A chapter of a fixture work (insertWorks writes none). */
async function firstChapterOf(workId: number): Promise<number> {
  const [row] = await db.insert(chapters).values({ workId, title: "第一章", content: "正文", position: 1000 }).returning({ id: chapters.id });
  return row.id;
}

describe("the home page", () => {
  it("shows a signed-in reader 继续阅读 and 书架更新, their own only", async () => {
    const reader = await createUser();
    const other = await createUser();
    const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };
    const serial = await createWork(author.id, { ...base, title: "更新中的连载", type: "series", status: "ongoing" }, [
      { title: "第一章", content: "一" },
      { title: "第二章", content: "二" },
    ], null);
    const quiet = await createWork(author.id, { ...base, title: "读完的连载", type: "series", status: "ongoing" }, [{ title: "只有一章", content: "一" }], null);
    const chapterIds = await db.execute(sql`select id, work_id from chapters where work_id in (${serial.id}, ${quiet.id}) order by position`);
    const rows = (Array.isArray(chapterIds) ? chapterIds : (chapterIds as { rows: unknown[] }).rows) as { id: number; work_id: number }[];
    const first = (w: number) => Number(rows.find((r) => Number(r.work_id) === w)!.id);
    await db.insert(favorites).values([
      { userId: reader.id, workId: serial.id, createdAt: new Date(Date.now() - 60_000) },
      { userId: reader.id, workId: quiet.id, createdAt: new Date(Date.now() - 60_000) },
    ]);
    await saveProgress(reader.id, serial.id, first(serial.id), 3);
    await saveProgress(reader.id, quiet.id, first(quiet.id), 0);

    const viewer = { id: reader.id, showR18: false, showAi: true };
    const reading = await continueReading(viewer);
    expect(reading.map((r) => [r.work.title, r.chapterOrder])).toEqual([["读完的连载", 1], ["更新中的连载", 1]]);
    expect(reading[1].href).toBe(`/works/${serial.id}?chapter=1&from=3#p-3`);

    const updates = await shelfUpdates(viewer);
    expect(updates.map((u) => [u.work.title, u.unread, u.latestChapterTitle])).toEqual([["更新中的连载", 1, "第二章"]]);
    // The card opens at the reader's place, as 继续阅读 does.
    expect(updates[0].href).toBe(reading[1].href);
    expect(await shelfUpdates({ id: other.id, showR18: false, showAi: true })).toEqual([]);
    expect(await continueReading({ id: other.id, showR18: false, showAi: true })).toEqual([]);

    const cookie = await sessionCookieFor(reader.id);
    const page = await callThroughRoutes(homeLoader, { request: userRequest(cookie, "/") });
    if (!page.signedIn) throw new Error("expected the signed-in home");
    expect(page.reading.map((r) => r.work.title)).toEqual(["读完的连载", "更新中的连载"]);
    expect(page.updates.map((u) => u.work.title)).toEqual(["更新中的连载"]);
    expect(page.shared.newest[0].title).toBe("读完的连载");
    // 新完本 lists finished novels, not single-chapter works, and no R-18 work for this reader.
    expect(page.shared.completed.map((w) => w.title)).toEqual([]);
    await setWork(serial.id, { status: "completed", completedAt: new Date() });
    const again = await callThroughRoutes(homeLoader, { request: userRequest(cookie, "/") });
    if (!again.signedIn) throw new Error("expected the signed-in home");
    expect(again.shared.completed.map((w) => w.title)).toEqual(["更新中的连载"]);
  });

  it("gives visitors the hero and a row of all-ages works, and sets no cookie (the page cache keeps it)", async () => {
    const page = await callThroughRoutes(homeLoader, { request: new Request("http://localhost/") });
    if (page.signedIn) throw new Error("expected the visitor landing");
    expect(page.landingRow.works.length).toBeGreaterThan(0);
    expect(page.landingRow.works.every((w) => w.rating === "all_ages" && w.visibility !== "private")).toBe(true);
  });

  it("hides R-18 and AI works from the shared rows by the reader's preferences", async () => {
    const reader = await createUser();
    await setViewerPrefs(reader.id, { showR18: false, showAi: false });
    const page = await callThroughRoutes(homeLoader, { request: userRequest(await sessionCookieFor(reader.id), "/") });
    if (!page.signedIn) throw new Error("expected the signed-in home");
    const shown = [...page.shared.newest, ...page.shared.hot, ...page.shared.completed];
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.some((w) => w.rating === "r18" || w.isAiGenerated)).toBe(false);
  });
});

describe("categories", () => {
  it("lets administrators add, rename, reorder and delete; deleting leaves works uncategorized", async () => {
    const cookie = await adminCookieFor((await createAdmin()).id);
    const post = (fields: Record<string, string>) =>
      callThroughRoutes(categoriesAction, {
        request: new Request("http://localhost/admin/categories", {
          method: "POST",
          headers: { Cookie: cookie, Origin: "http://localhost" },
          body: new URLSearchParams(fields),
        }),
      }).catch((r: unknown) => r);
    expect(await post({ intent: "add", name: " 武侠 " })).toMatchObject({ status: 302 });
    const dup = await post({ intent: "add", name: "武侠" });
    expect(JSON.stringify(dup)).toContain("已有同名分类");
    const empty = await post({ intent: "add", name: "  " });
    expect(JSON.stringify(empty)).toContain("请输入分类名称");
    const missing = await post({ intent: "delete", id: "999999" });
    expect(JSON.stringify(missing)).toContain("分类不存在");
    const top = await post({ intent: "up", id: String(cat["玄幻"]) });
    expect(JSON.stringify(top)).toContain("已经是第一个了");

    const list = async () => (await callThroughRoutes(categoriesLoader, { request: new Request("http://localhost/admin/categories", { headers: { Cookie: cookie } }) })).categories;
    const wuxia = (await list()).find((c) => c.name === "武侠")!;
    expect((await list()).at(-1)!.name).toBe("武侠");
    await post({ intent: "up", id: String(wuxia.id) });
    expect((await list()).slice(-2).map((c) => c.name)).toEqual(["武侠", "其他"]);
    await post({ intent: "rename", id: String(wuxia.id), name: "武侠仙侠" });
    expect((await list()).some((c) => c.name === "武侠仙侠")).toBe(true);

    await setWork(ids.city, { categoryId: wuxia.id });
    await post({ intent: "delete", id: String(wuxia.id) });
    const [city] = await db.select({ categoryId: works.categoryId }).from(works).where(eq(works.id, ids.city));
    expect(city.categoryId).toBeNull();
    expect((await list()).some((c) => c.id === wuxia.id)).toBe(false);

    // A visitor or a reader never reaches the page.
    await expect(callThroughRoutes(categoriesLoader, { request: new Request("http://localhost/admin/categories") })).rejects.toMatchObject({ status: 302 });
  });

  it("lets the author choose or clear the category in the work's settings, and refuses one that does not exist", async () => {
    const cookie = await sessionCookieFor(author.id);
    const save = (categoryId: string) => {
      const form = new FormData();
      for (const [k, v] of Object.entries({ title: "都市短篇", description: "简介", rating: "all_ages", tags: "都市", categoryId, cover: "keep" })) form.set(k, v);
      return callThroughRoutes(settingsAction, { request: userRequest(cookie, `/works/${ids.city}/settings`, form), params: { id: String(ids.city) } }).catch((r: unknown) => r);
    };
    expect(await save(String(cat["言情"]))).toMatchObject({ status: 302 });
    const read = async () => (await db.select({ c: works.categoryId }).from(works).where(eq(works.id, ids.city)))[0].c;
    expect(await read()).toBe(cat["言情"]);
    const bad = await save("987654");
    expect(JSON.stringify(bad)).toContain("分类不存在");
    expect(await read()).toBe(cat["言情"]);
    expect(JSON.stringify(await save("abc"))).toContain("分类不存在");
    // Without the field (an older form) the category stays; 未分类 clears it.
    expect(await save("")).toMatchObject({ status: 302 });
    expect(await read()).toBe(cat["言情"]);
    expect(await save("none")).toMatchObject({ status: 302 });
    expect(await read()).toBeNull();
  });
});

describe("publishing with a category", () => {
  it("stores the chosen category and refuses one that does not exist, creating nothing", async () => {
    const input = {
      status: "completed" as const, type: "single_chapter" as const, title: "有分类的新书", description: "简介",
      rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const, content: "正文",
    };
    const work = await publishWork(author.id, { ...input, categoryId: cat["科幻"] }, { cover: null, txt: null });
    expect(work.categoryId).toBe(cat["科幻"]);
    await expect(publishWork(author.id, { ...input, title: "分类不存在的书", categoryId: 987654 }, { cover: null, txt: null })).rejects.toMatchObject({
      message: "分类不存在",
      status: 400,
    });
    const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(works).where(eq(works.title, "分类不存在的书"));
    expect(n).toBe(0);
  });
});

describe("完本 time", () => {
  it("is set when a series is marked finished and cleared when it is reopened", async () => {
    const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };
    const serial = await createWork(author.id, { ...base, title: "将完本", type: "series", status: "ongoing" }, [{ title: "一", content: "一" }], null);
    expect(serial.completedAt).toBeNull();
    const settings = { title: "将完本", description: "简介", rating: "all_ages" as const, isAiGenerated: false, tags: [], cover: "keep" as const };
    const done = await updateWorkSettings(author.id, serial.id, { ...settings, status: "completed" }, null);
    expect(done.completedAt).toBeInstanceOf(Date);
    const again = await updateWorkSettings(author.id, serial.id, { ...settings, status: "ongoing" }, null);
    expect(again.completedAt).toBeNull();
    const single = await createWork(author.id, { ...base, title: "短篇", type: "single_chapter", status: "completed" }, [{ title: "一", content: "一" }], null);
    expect(single.completedAt).toBeInstanceOf(Date);
  });
});

describe("the statistics refresh across connections", () => {
  it("counts at once, whoever asks first, while no work is ranked but some work is followed (a fresh site)", async () => {
    // The start's refresh found a site without followers; then a reader followed a work.
    const owner = await createUser();
    const [workId] = await insertWorks([{ userId: owner.id, title: "新站首部作品" }]);
    await db.delete(workStats);
    await db.update(statsRefreshes).set({ refreshedAt: new Date() });
    await db.insert(favorites).values({ userId: (await createUser()).id, workId });
    const results = await Promise.all([refreshWorkStats(), refreshWorkStats(), refreshWorkStats()]);
    expect(results.filter(Boolean)).toHaveLength(1);
    clearPublicCache();
    const page = await callThroughRoutes(rankingsLoader, { request: new Request("http://localhost/rankings?board=favorites") });
    expect(page.works.map((w: { title: string }) => w.title)).toContain("新站首部作品");
    // Once: the counts are there now, and fresh.
    expect(await refreshWorkStats()).toBe(false);
  });


  it("recounts within a refresh the works that changed since the last one, those only, and the full recount repairs the rest", async () => {
    const owner = await createUser();
    const [hit, quiet] = await insertWorks([
      { userId: owner.id, title: "增量榜首作品" },
      { userId: owner.id, title: "增量未动作品" },
    ]);
    const fans = await Promise.all([createUser(), createUser(), createUser()]);
    for (const fan of fans.slice(0, 2)) await setFavorite({ id: fan.id, showR18: false, showAi: true }, hit, true);
    await db.insert(favorites).values({ userId: fans[2].id, workId: quiet });
    await refreshWorkStats(0);
    // The full recount took every queued work with it.
    expect(await db.$count(workStatsQueue)).toBe(0);
    const favouritesOf = async (workId: number) => {
      clearPublicCache();
      return (await rankingBoard("favorites", null, 1000)).find((w) => w.id === workId)?.score;
    };
    expect(await favouritesOf(hit)).toBe(2);
    // A count gone wrong for a work nobody touches: the incremental refresh leaves it.
    await db.update(workStats).set({ favorites: 40 }).where(eq(workStats.workId, quiet));

    // A third follower (the route's function), a purchase (any writer), then one refresh.
    await setFavorite({ id: fans[2].id, showR18: false, showAi: true }, hit, true);
    await db.insert(workPurchases).values({ userId: fans[0].id, workId: hit, price: 0 });
    expect(await favouritesOf(hit)).toBe(2);
    expect(await refreshChangedWorkStats()).toBe(1);
    expect(await favouritesOf(hit)).toBe(3);
    const [row] = await db.select().from(workStats).where(eq(workStats.workId, hit));
    expect(row).toMatchObject({ favorites: 3, purchases: 1, hot7d: 3 * 3 + 5 });
    expect(await favouritesOf(quiet)).toBe(40);
    expect(await refreshChangedWorkStats()).toBe(0);

    // An unfollow counts down the same way; the full recount puts the untouched work right.
    await setFavorite({ id: fans[0].id, showR18: false, showAi: true }, hit, false);
    expect(await refreshChangedWorkStats()).toBe(1);
    expect(await favouritesOf(hit)).toBe(2);
    await refreshWorkStats(0);
    expect(await favouritesOf(quiet)).toBe(1);
  });

  it("recounts a changed work once when three ask at the same moment", async () => {
    const owner = await createUser();
    const [workId] = await insertWorks([{ userId: owner.id, title: "并发增量作品" }]);
    await refreshWorkStats(0);
    await db.insert(favorites).values([{ userId: (await createUser()).id, workId }, { userId: (await createUser()).id, workId }]);
    const results = await Promise.all([refreshChangedWorkStats(), refreshChangedWorkStats(), refreshChangedWorkStats()]);
    expect(results.reduce((a, b) => a + b, 0)).toBe(1);
    const [row] = await db.select().from(workStats).where(eq(workStats.workId, workId));
    expect(row.favorites).toBe(2);
    expect(await db.$count(workStatsQueue)).toBe(0);
  });

  it("is done by one caller at a time and leaves the stats row dated", async () => {
    await db.update(statsRefreshes).set({ refreshedAt: null });
    const results = await Promise.all([refreshWorkStats(), refreshWorkStats(), refreshWorkStats()]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const [row] = await db.select().from(statsRefreshes);
    expect(row.refreshedAt).not.toBeNull();
  });
});
