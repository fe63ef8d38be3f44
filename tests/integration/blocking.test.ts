import { eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { authorBlocks, chapters, curatedRows, curatedRowWorks, favorites, notifications, tagBlocks, workRankingTallies, works, workStats } from "~/db/schema";
import { BLOCK_LIMIT, BLOCK_MESSAGES } from "~/schemas/blocks";
import { addBlock, listBlocks } from "~/server/catalog/blocks.server";
import { curatedHomeRows } from "~/server/catalog/front-page.server";
import { continueReading, shelfUpdates } from "~/server/catalog/home.server";
import { periodRankingBoard, rankingBoard, sharedHomeRows } from "~/server/catalog/rankings.server";
import { searchWorks } from "~/server/catalog/search.server";
import { notifyAuthorFollowers, setAuthorFollow } from "~/server/community/author-follows.server";
import { parseWorkFilters } from "~/schemas/discovery";
import { saveProgress } from "~/server/reading/reader.server";
import { clearPublicCache } from "~/server/platform/public-cache.server";
import { shanghaiPeriods } from "~/utils/shanghai-time";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { insertWorks } from "../fixtures/works";
import { callAction, callLoader } from "./admin-fixtures";

/**
 * 屏蔽 (docs/product.md#blocking, decision 233): a reader blocks an author or a tag, and
 * those works leave every listing that reader sees (asserted on each below), for that
 * reader only; the author's page still opens and says so; bad blocks are refused with a
 * message and write nothing.
 */

const routes = {
  blocks: () => import("~/routes/shell/settings/blocks"),
  author: () => import("~/routes/public/author"),
  tag: () => import("~/routes/public/tag"),
  home: () => import("~/routes/public/index"),
  work: () => import("~/routes/shell/reader/work"),
  works: () => import("~/routes/public/works"),
};

type Viewer = { id: string; showR18: boolean; showAi: boolean };
const asViewer = (id: string): Viewer => ({ id, showR18: false, showAi: true });

let blockedAuthor: { id: string };
let otherAuthor: { id: string };
let reader: Viewer;
let bystander: Viewer;
/** The works of the test: by the blocked author, with the blocked tag, and a free one. */
let ids: { byBlocked: number; withTag: number; free: number };

beforeAll(async () => {
  blockedAuthor = await createUser();
  otherAuthor = await createUser();
  reader = asViewer((await createUser()).id);
  bystander = asViewer((await createUser()).id);
  const [byBlocked, withTag, free] = await insertWorks([
    { userId: blockedAuthor.id, title: "青梅屏蔽甲" },
    { userId: otherAuthor.id, title: "青梅屏蔽乙" },
    { userId: otherAuthor.id, title: "青梅屏蔽丙" },
  ]);
  ids = { byBlocked, withTag, free };
  await db.update(works).set({ tags: ["甜文"] }).where(eq(works.id, byBlocked));
  await db.update(works).set({ tags: ["虐文", "古言"] }).where(eq(works.id, withTag));
  await db.update(works).set({ tags: ["古言"], type: "series", completedAt: new Date() }).where(eq(works.id, free));
  const chapterIds: number[] = [];
  for (const workId of [byBlocked, withTag, free]) {
    const [c] = await db.insert(chapters).values({ workId, title: "第一章", content: "第一段。", position: 65_536, wordCount: 4 }).returning({ id: chapters.id });
    chapterIds.push(c.id);
    await db.insert(workStats).values({ workId, favorites: 5, hot7d: 5 });
    await db.insert(workRankingTallies).values({ metric: "monthly", period: "month", startsOn: shanghaiPeriods(new Date()).month, workId, total: 7 });
    // 继续阅读 and 书架更新 of the reader: read all three, followed all three.
    await saveProgress(reader.id, workId, c.id, 0);
    await db.insert(favorites).values({ userId: reader.id, workId, createdAt: new Date(Date.now() - 3_600_000) });
  }
  const [row] = await db.insert(curatedRows).values({ name: "屏蔽测试推荐" }).returning({ id: curatedRows.id });
  await db.insert(curatedRowWorks).values([byBlocked, withTag, free].map((workId, i) => ({ rowId: row.id, workId, position: i })));
  // The blocks, through the settings route as a browser posts them.
  const cookie = await sessionCookieFor(reader.id);
  const blocks = await routes.blocks();
  const a = await callAction(blocks, userRequest(cookie, "/settings/blocks", { intent: "block", kind: "author", value: blockedAuthor.id, back: `/works/${byBlocked}` }));
  expect([a.status, a.location]).toEqual([302, `/works/${byBlocked}`]);
  const t = await callAction(blocks, userRequest(cookie, "/settings/blocks", { intent: "block", kind: "tag", value: " 虐文 ", back: "/tags/虐文" }));
  expect(t.status).toBe(302);
  clearPublicCache();
});

const ours = (list: { id: number }[]) => list.map((w) => w.id).filter((id) => Object.values(ids).includes(id)).sort((x, y) => x - y);
const all = () => Object.values(ids).sort((x, y) => x - y);

describe(`屏蔽 in every listing (${databaseKind})`, () => {
  it("lists the reader's blocks in settings", async () => {
    const page = await callLoader(await routes.blocks(), userRequest(await sessionCookieFor(reader.id), "/settings/blocks"));
    expect(page.data.blocks.authors.map((a: { id: string }) => a.id)).toEqual([blockedAuthor.id]);
    expect(page.data.blocks.tags.map((t: { tag: string }) => t.tag)).toEqual(["虐文"]);
  });

  it("/works, the search and the filtered listing leave them out for the reader only", async () => {
    for (const viewer of [reader, bystander, null]) {
      const expected = viewer === reader ? [ids.free] : all();
      // Twice: the second from the shared copy for those without blocks.
      for (let i = 0; i < 2; i++) {
        expect(ours((await searchWorks({ query: "", page: 1, viewer, pageSize: 100 })).works)).toEqual(expected);
        expect(ours((await searchWorks({ query: "青梅屏蔽", page: 1, viewer })).works)).toEqual(expected);
        expect(ours((await searchWorks({ query: "青梅屏蔽", page: 1, viewer, countCap: 1 })).works)).toEqual(expected);
        const sorted = parseWorkFilters(new URLSearchParams([["sort", "words"]]));
        expect(ours((await searchWorks({ query: "青梅", filters: sorted, page: 1, viewer, pageSize: 100 })).works)).toEqual(expected);
      }
    }
    const counted = await searchWorks({ query: "青梅屏蔽", page: 1, viewer: reader });
    expect(counted.total).toBe(1);
  });

  it("a tag's page leaves them out, says a blocked tag is blocked and offers 取消屏蔽", async () => {
    const cookie = await sessionCookieFor(reader.id);
    const ancient = await callLoader(await routes.tag(), userRequest(cookie, `/tags/${encodeURIComponent("古言")}`), { name: "古言" });
    expect([ours(ancient.data.works), ancient.data.blocked]).toEqual([[ids.free], false]);
    const sad = await callLoader(await routes.tag(), userRequest(cookie, `/tags/${encodeURIComponent("虐文")}`), { name: "虐文" });
    expect([ours(sad.data.works), sad.data.blocked]).toEqual([[], true]);
    const visitor = await callLoader(await routes.tag(), new Request(`http://localhost/tags/${encodeURIComponent("虐文")}`), { name: "虐文" });
    expect([ours(visitor.data.works), visitor.data.blocked]).toEqual([[ids.withTag], false]);
  });

  it("the blocked author's page still opens, says so, and lists nothing", async () => {
    const path = `/authors/${blockedAuthor.id}`;
    const theirs = await callLoader(await routes.author(), userRequest(await sessionCookieFor(reader.id), path), { id: blockedAuthor.id });
    expect([theirs.status, theirs.data.blocked, theirs.data.works.total]).toEqual([200, true, 0]);
    const others = await callLoader(await routes.author(), userRequest(await sessionCookieFor(bystander.id), path), { id: blockedAuthor.id });
    expect([others.data.blocked, ours(others.data.works.works)]).toEqual([false, [ids.byBlocked]]);
    // A work opened by its address still opens; its 屏蔽 menu shows what is blocked.
    const cookie = await sessionCookieFor(reader.id);
    const work = await callLoader(await routes.work(), userRequest(cookie, `/works/${ids.byBlocked}`), { id: String(ids.byBlocked) });
    expect([work.status, work.data.blocked]).toEqual([200, { author: true, tags: [] }]);
    const tagged = await callLoader(await routes.work(), userRequest(cookie, `/works/${ids.withTag}`), { id: String(ids.withTag) });
    expect(tagged.data.blocked).toEqual({ author: false, tags: ["虐文"] });
  });

  it("rankings (by stats and by votes) leave them out", async () => {
    for (let i = 0; i < 2; i++) {
      expect(ours(await rankingBoard("favorites", reader))).toEqual([ids.free]);
      expect(ours(await rankingBoard("favorites", bystander))).toEqual(all());
      expect(ours(await periodRankingBoard("monthly-votes", "month", reader))).toEqual([ids.free]);
      expect(ours(await periodRankingBoard("monthly-votes", "month", null))).toEqual(all());
    }
  });

  it("the home page's rows leave them out: shared, curated, 继续阅读 and 书架更新", async () => {
    for (let i = 0; i < 2; i++) {
      const shared = await sharedHomeRows(reader);
      expect([ours(shared.newest), ours(shared.hot), ours(shared.completed)]).toEqual([[ids.free], [ids.free], [ids.free]]);
      const open = await sharedHomeRows(bystander);
      expect([ours(open.newest), ours(open.hot)]).toEqual([all(), all()]);
      const curated = (await curatedHomeRows(reader)).find((r) => r.name === "屏蔽测试推荐");
      expect(ours(curated!.works)).toEqual([ids.free]);
      expect(ours((await curatedHomeRows(bystander)).find((r) => r.name === "屏蔽测试推荐")!.works)).toEqual(all());
    }
    expect(ours((await continueReading(reader)).map((c) => c.work))).toEqual([ids.free]);
    // A chapter after the reader's place in each: all three on the shelf have news.
    for (const workId of all()) await db.insert(chapters).values({ workId, title: "第二章", content: "又一段。", position: 131_072, wordCount: 4 });
    expect(ours((await shelfUpdates(reader)).map((u) => u.work))).toEqual([ids.free]);
    const home = await callLoader(await routes.home(), userRequest(await sessionCookieFor(reader.id), "/"));
    expect(ours(home.data.shared.newest)).toEqual([ids.free]);
  });

  it("a followed author's new work tells no follower who blocked the author or one of its tags", async () => {
    const fanOfTag = await createUser();
    const plainFan = await createUser();
    for (const fan of [reader, fanOfTag, plainFan]) await setAuthorFollow(fan, otherAuthor.id, true);
    await addBlock(fanOfTag.id, "tag", "宫斗");
    const [fresh] = await insertWorks([{ userId: otherAuthor.id, title: "新作" }]);
    await db.update(works).set({ tags: ["宫斗"] }).where(eq(works.id, fresh));
    // The reader blocked 虐文, not 宫斗, nor this author: told. fanOfTag blocked 宫斗: not told.
    expect(await notifyAuthorFollowers(db, fresh)).toBe(2);
    const told = await db.select({ userId: notifications.userId }).from(notifications).where(eq(notifications.workId, fresh));
    expect(told.map((t) => t.userId).sort()).toEqual([reader.id, plainFan.id].sort());
    await setAuthorFollow(reader, blockedAuthor.id, true).catch(() => undefined);
    const [blockedNew] = await insertWorks([{ userId: blockedAuthor.id, title: "被屏蔽者新作" }]);
    await notifyAuthorFollowers(db, blockedNew);
    expect(await db.select().from(notifications).where(eq(notifications.workId, blockedNew))).toEqual([]);
  });
});

describe(`blocking and unblocking (${databaseKind})`, () => {
  it("refuses oneself, twice, an unknown author and bad tags with a message, writing nothing", async () => {
    const me = await createUser();
    const cookie = await sessionCookieFor(me.id);
    const post = async (fields: Record<string, string>) => callAction(await routes.blocks(), userRequest(cookie, "/settings/blocks", { back: "/", ...fields }));
    const self = await post({ intent: "block", kind: "author", value: me.id });
    expect([self.status, self.data]).toEqual([400, { error: BLOCK_MESSAGES.self }]);
    const unknown = await post({ intent: "block", kind: "author", value: "00000000-0000-4000-8000-000000000009" });
    expect([unknown.status, unknown.data]).toEqual([404, { error: BLOCK_MESSAGES.authorMissing }]);
    expect((await post({ intent: "block", kind: "author", value: "不是编号" })).status).toBe(404);
    expect((await post({ intent: "block", kind: "tag", value: "   " })).data).toEqual({ error: BLOCK_MESSAGES.tagEmpty });
    expect((await post({ intent: "block", kind: "tag", value: "长".repeat(21) })).data).toEqual({ error: BLOCK_MESSAGES.tagTooLong });
    expect((await post({ intent: "mute", kind: "tag", value: "x" })).status).toBe(400);
    expect((await post({ intent: "block", kind: "work", value: "1" })).status).toBe(400);
    expect(await db.select().from(authorBlocks).where(eq(authorBlocks.userId, me.id))).toEqual([]);
    expect(await db.select().from(tagBlocks).where(eq(tagBlocks.userId, me.id))).toEqual([]);

    expect((await post({ intent: "block", kind: "author", value: blockedAuthor.id })).status).toBe(302);
    const twice = await post({ intent: "block", kind: "author", value: blockedAuthor.id });
    expect([twice.status, twice.data]).toEqual([409, { error: BLOCK_MESSAGES.authorTwice }]);
    expect((await post({ intent: "block", kind: "tag", value: "甜文" })).status).toBe(302);
    expect((await post({ intent: "block", kind: "tag", value: "甜文" })).data).toEqual({ error: BLOCK_MESSAGES.tagTwice });
    // An outside address to go back to is not followed.
    const outside = await post({ intent: "block", kind: "tag", value: "种田", back: "//evil.example/" });
    expect(outside.location).toBe("/settings/blocks");
    expect(await listBlocks(me.id)).toMatchObject({ authors: [{ id: blockedAuthor.id }], tags: [{ tag: "甜文" }, { tag: "种田" }] });
  });

  it("stops at the limit with a message", async () => {
    const me = await createUser();
    await db.insert(tagBlocks).values(Array.from({ length: BLOCK_LIMIT }, (_, i) => ({ userId: me.id, tag: `标签${i}` })));
    expect((await domainError(addBlock(me.id, "tag", "再一个"))).message).toBe(BLOCK_MESSAGES.tooMany);
    const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(tagBlocks).where(eq(tagBlocks.userId, me.id));
    expect(n).toBe(BLOCK_LIMIT);
  });

  it("a page reads the lists with the session (decision 270): /works leaves them out for that reader only, and the next page sees a change", async () => {
    const me = asViewer((await createUser()).id);
    const cookie = await sessionCookieFor(me.id);
    const listed = async (viewerCookie: string) =>
      ours((await callLoader(await routes.works(), userRequest(viewerCookie, `/works?q=${encodeURIComponent("青梅屏蔽")}&page=1`))).data.works);
    const post = async (fields: Record<string, string>) => callAction(await routes.blocks(), userRequest(cookie, "/settings/blocks", { back: "/settings/blocks", ...fields }));
    expect(await listed(cookie)).toEqual(all());
    await post({ intent: "block", kind: "tag", value: "虐文" });
    expect(await listed(cookie)).toEqual([ids.byBlocked, ids.free]);
    // Another reader's page, the same moment: their own lists, not this one's.
    expect(await listed(await sessionCookieFor(reader.id))).toEqual([ids.free]);
    expect(await listed(await sessionCookieFor(bystander.id))).toEqual(all());
    await post({ intent: "unblock", kind: "tag", value: "虐文" });
    expect(await listed(cookie)).toEqual(all());
  });

  it("取消屏蔽 brings the works back", async () => {
    const me = asViewer((await createUser()).id);
    const cookie = await sessionCookieFor(me.id);
    const post = async (fields: Record<string, string>) => callAction(await routes.blocks(), userRequest(cookie, "/settings/blocks", { back: "/settings/blocks", ...fields }));
    await post({ intent: "block", kind: "author", value: blockedAuthor.id });
    expect(ours((await searchWorks({ query: "青梅屏蔽", page: 1, viewer: me })).works)).toEqual([ids.withTag, ids.free]);
    const off = await post({ intent: "unblock", kind: "author", value: blockedAuthor.id });
    expect([off.status, off.location]).toEqual([302, "/settings/blocks"]);
    expect(ours((await searchWorks({ query: "青梅屏蔽", page: 1, viewer: me })).works)).toEqual(all());
    expect(await db.select().from(authorBlocks).where(inArray(authorBlocks.userId, [me.id]))).toEqual([]);
  });

  it("sends a visitor to log in", async () => {
    const visitor = await callAction(
      await routes.blocks(),
      new Request("http://localhost/settings/blocks", { method: "POST", headers: { Origin: "http://localhost" }, body: new URLSearchParams({ intent: "block", kind: "tag", value: "x" }) }),
    );
    expect(visitor.status).toBe(302);
    expect(visitor.location).toContain("login");
  });
});
