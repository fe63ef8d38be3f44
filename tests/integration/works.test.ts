import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { createWork, deleteWork, listMyWorks, updateListing } from "~/server/catalog/works.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { addChapter } from "~/server/studio/chapters.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { bodyOf, callThroughRoutes, runRoute, statusOf } from "./route-chain";
import { domainError } from "../fixtures/domain-error";

type Created = Awaited<ReturnType<typeof createWork>>;
const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

function single(userId: string, title = "单章作品", content = "第一段。\n\n第二段。") {
  return createWork(userId, { ...base, title, type: "single_chapter", status: "completed" }, [{ title: "正文", content }], null);
}
function series(userId: string, title = "连载作品") {
  return createWork(userId, { ...base, title, type: "series", status: "ongoing" }, [{ title: "第一章 开端", content: "从前有座山。" }], null);
}
function multi(userId: string, list = [{ title: "第1章", content: "甲乙丙" }, { title: "第2章", content: "丁戊" }]) {
  return createWork(userId, { ...base, title: "多章作品", type: "multi_chapter", status: "completed" }, list, null);
}

async function chaptersOf(workId: number) {
  return db.select().from(chapters).where(eq(chapters.workId, workId)).orderBy(chapters.position, chapters.id);
}
async function workRow(workId: number) {
  return (await db.select().from(works).where(eq(works.id, workId)))[0];
}

let owner: { id: string };
let other: { id: string };
beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
});

describe("createWork", () => {
  it("stores a single chapter titled 正文 at the first position and keeps the counts right", async () => {
    const work = await single(owner.id, "桂花信", "雨落在青石板上。\n她撑着伞。");
    expect(work.chapterCount).toBe(1);
    expect(work.wordCount).toBe(13);
    expect(work.price).toBe(0);
    const list = await chaptersOf(work.id);
    expect(list.map((c) => [c.title, c.position])).toEqual([["正文", 65536]]);
  });

  it("stores the author's AI choice as ticked (docs/product.md D5)", async () => {
    const off = await single(owner.id);
    expect(off.isAiGenerated).toBe(false);
    const on = await createWork(owner.id, { ...base, isAiGenerated: true, title: "AI", type: "single_chapter", status: "completed" }, [{ title: "正文", content: "文" }], null);
    expect(on.isAiGenerated).toBe(true);
  });

  it("imports 5,000 chapters in one go", async () => {
    const list = Array.from({ length: 5000 }, (_, i) => ({ title: `第${i + 1}章`, content: `内容${i}` }));
    const work = await multi(owner.id, list);
    expect(work.chapterCount).toBe(5000);
    const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(chapters).where(eq(chapters.workId, work.id));
    expect(n).toBe(5000);
  });

  it("leaves nothing behind when a chapter fails to insert (one transaction)", async () => {
    const before = await db.select({ n: sql<number>`count(*)::int` }).from(works);
    // PostgreSQL text cannot hold NUL: the 3rd chapter fails after the work row exists.
    const list = [{ title: "a", content: "好" }, { title: "b", content: "好" }, { title: "c", content: "坏\u0000" }];
    await expect(multi(owner.id, list)).rejects.toThrow();
    const after = await db.select({ n: sql<number>`count(*)::int` }).from(works);
    expect(after[0].n).toBe(before[0].n);
  });
});

describe("listing actions (docs/product.md D3)", () => {
  it("moves a work between free, paid and private, always with a consistent price", async () => {
    const work = await single(owner.id);
    expect((await updateListing(owner.id, work.id, { intent: "set-price", price: 30 })).visibility).toBe("public-vip");
    expect((await workRow(work.id)).price).toBe(30);
    const free = await updateListing(owner.id, work.id, { intent: "make-free" });
    expect([free.visibility, free.price]).toEqual(["public", 0]);
    const down = await updateListing(owner.id, work.id, { intent: "take-down" });
    expect([down.visibility, down.price]).toEqual(["private", 0]);
    const up = await updateListing(owner.id, work.id, { intent: "put-on-shelf" });
    expect([up.visibility, up.price]).toEqual(["public", 0]);
  });

  it("refuses another user's work with 404 and changes nothing", async () => {
    const work = await single(owner.id);
    const chapterId = (await chaptersOf(work.id))[0].id;
    for (const attempt of [
      () => updateListing(other.id, work.id, { intent: "set-price", price: 5 }),
      () => updateListing(other.id, work.id, { intent: "take-down" }),
      () => deleteWork(other.id, work.id),
      () => saveChapter(other.id, work.id, chapterId, { kind: "save", content: "篡改" }),
    ]) {
      expect((await domainError(attempt())).status).toBe(404);
    }
    const row = await workRow(work.id);
    expect([row.visibility, row.price]).toEqual(["public", 0]);
    expect((await chaptersOf(work.id))[0].content).not.toBe("篡改");
  });

  it.each(["0", "-1", "1.5", "1e9", "abc", "", "10000000"])("refuses the price %j through the action", async (price) => {
    const work = await single(owner.id);
    const cookie = await sessionCookieFor(owner.id);
    const { action } = await import("~/routes/shell/works/my-works");
    const result = (await callThroughRoutes(action, { request: userRequest(cookie, "/my-works", { intent: "set-price", workId: String(work.id), price }) })) as unknown as {
      init: { status: number };
      data: { result: { error: Record<string, string[]> } };
    };
    expect(result.init.status).toBe(400);
    expect(Object.values(result.data.result.error).flat()[0]).toMatch(/请输入有效的价格（至少1积分）|价格不能超过/);
    expect((await workRow(work.id)).visibility).toBe("public");
  });

  it("sets a price through the action and redirects to the paid tab", async () => {
    const work = await single(owner.id);
    const cookie = await sessionCookieFor(owner.id);
    const { action } = await import("~/routes/shell/works/my-works");
    const response = (await callThroughRoutes(action, { request: userRequest(cookie, "/my-works", { intent: "set-price", workId: String(work.id), price: "12" }) })) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/my-works?tab=paid");
    expect((await workRow(work.id)).price).toBe(12);

    for (const back of ["/my-works/../..//evil.example", "/my-works/..//evil.example?tab=paid", "/my-worksx"]) {
      const again = (await callThroughRoutes(action, { request: userRequest(cookie, "/my-works", { intent: "set-price", workId: String(work.id), price: "13", back }) })) as Response;
      expect([back, again.headers.get("Location")]).toEqual([back, "/my-works?tab=paid"]);
    }
    const kept = (await callThroughRoutes(action, { request: userRequest(cookie, "/my-works", { intent: "set-price", workId: String(work.id), price: "14", back: "/my-works?tab=paid&page=2" }) })) as Response;
    expect(kept.headers.get("Location")).toBe("/my-works?tab=paid&page=2");
  });

  it("answers the owner's controls on the reader page, refusals included", async () => {
    const work = await single(owner.id);
    const { action } = await import("~/routes/shell/reader/work");
    const post = async (userId: string, fields: Record<string, string>) =>
      (await callThroughRoutes(action, {
        request: userRequest(await sessionCookieFor(userId), `/works/${work.id}`, { workId: String(work.id), back: `/works/${work.id}`, ...fields }),
      })) as unknown;
    const refused = (await post(owner.id, { intent: "set-price", price: "0" })) as { init: { status: number }; data: unknown };
    expect([refused.init.status, refused.data]).toEqual([400, { intent: "owner", error: "请输入有效的价格（至少1积分）" }]);
    const stranger = (await post(other.id, { intent: "set-price", price: "9" })) as { init: { status: number }; data: unknown };
    expect([stranger.init.status, stranger.data]).toEqual([404, { intent: "owner", error: "作品不存在" }]);
    const done = (await post(owner.id, { intent: "set-price", price: "7" })) as Response;
    expect([done.status, done.headers.get("Location")]).toEqual([302, `/works/${work.id}`]);
    expect(await workRow(work.id)).toMatchObject({ visibility: "public-vip", price: 7 });
  });

  it("deletes a work with its chapters", async () => {
    const work = await multi(owner.id);
    await deleteWork(owner.id, work.id);
    expect(await workRow(work.id)).toBeUndefined();
    expect(await chaptersOf(work.id)).toEqual([]);
  });
});

describe("chapters", () => {
  it("adds chapters to the end of an ongoing series with updated counts", async () => {
    const work = await series(owner.id);
    await addChapter(owner.id, work.id, { title: "第二章", content: "山里有座庙。" });
    await addChapter(owner.id, work.id, { title: "第三章", content: "庙里有个和尚。" });
    expect((await chaptersOf(work.id)).map((c) => c.title)).toEqual(["第一章 开端", "第二章", "第三章"]);
    const row = await workRow(work.id);
    expect(row.chapterCount).toBe(3);
    expect(row.wordCount).toBe(6 + 6 + 7);
  });

  it("refuses new chapters for anything but an ongoing series", async () => {
    const work = await single(owner.id);
    expect((await domainError(addChapter(owner.id, work.id, { title: "x", content: "y" }))).message).toBe("只有连载中的作品可以添加新章节");
    const s = await series(owner.id);
    expect((await domainError(addChapter(other.id, s.id, { title: "x", content: "y" }))).status).toBe(404);
    expect((await domainError(addChapter(owner.id, s.id, { title: "", content: "y" }))).message).toBe("请填写章节标题和内容");
    expect((await chaptersOf(s.id)).length).toBe(1);
  });

  it("edits a chapter's content and recounts, imported works' too (docs/product.md D12); refuses empty content", async () => {
    const work = await single(owner.id);
    const [c] = await chaptersOf(work.id);
    await saveChapter(owner.id, work.id, c.id, { kind: "save", content: "全新的内容" });
    expect((await workRow(work.id)).wordCount).toBe(5);
    expect((await domainError(saveChapter(owner.id, work.id, c.id, { kind: "save", content: "   " }))).message).toBe("请输入章节内容");
    const m = await multi(owner.id);
    const [mc] = await chaptersOf(m.id);
    await saveChapter(owner.id, m.id, mc.id, { kind: "save", content: "改" });
    expect((await workRow(m.id)).wordCount).toBe(1 + 2);
  });

  it("stores edited and added chapters posted with CRLF line breaks as LF", async () => {
    const work = await series(owner.id);
    const cookie = await sessionCookieFor(owner.id);
    const [first] = await chaptersOf(work.id);
    const edit = await import("~/routes/shell/works/edit");
    const added = await import("~/routes/shell/works/new-chapter");
    await runRoute("action", edit, userRequest(cookie, `/works/${work.id}/edit`, { chapterId: String(first.id), content: "一\r\n二" }));
    await runRoute("action", added, userRequest(cookie, `/works/${work.id}/new-chapter`, { title: "第二章", content: "三\r\n\r\n四" }));
    expect((await chaptersOf(work.id)).map((c) => c.content)).toEqual(["一\n二", "三\n\n四"]);
  });

  it("the old edit page saves on the revision it showed: a save made elsewhere since is 409 with the text kept, nothing overwritten", async () => {
    const work = await series(owner.id);
    const cookie = await sessionCookieFor(owner.id);
    const [first] = await chaptersOf(work.id);
    const edit = await import("~/routes/shell/works/edit");
    const shown = async () =>
      ((await runRoute("loader", edit, userRequest(cookie, `/works/${work.id}/edit?chapter=${first.id}`))) as { chapter: { revision: number } })
        .chapter.revision;
    const revision = String(await shown());
    // Saved in the studio editor (another tab) after this page was loaded.
    await saveChapter(owner.id, work.id, first.id, { kind: "save", content: "编辑器里改的" });
    const stale = await runRoute("action", edit, userRequest(cookie, `/works/${work.id}/edit`, { chapterId: String(first.id), revision, content: "旧页面改的" }));
    expect(statusOf(stale)).toBe(409);
    const reply = bodyOf<{ error: Record<string, string[]>; initialValue: Record<string, string> }>(stale);
    expect(reply.error[""]).toEqual(["此章节已在别处修改，请重新载入后再编辑"]);
    expect(reply.initialValue.content).toBe("旧页面改的");
    expect((await chaptersOf(work.id))[0].content).toBe("编辑器里改的");

    const fresh = await shown();
    const saved = await runRoute("action", edit, userRequest(cookie, `/works/${work.id}/edit`, { chapterId: String(first.id), revision: String(fresh), content: "旧页面改的" }));
    expect(statusOf(saved)).toBe(302);
    expect((await chaptersOf(work.id))[0].content).toBe("旧页面改的");
    const junk = await runRoute("action", edit, userRequest(cookie, `/works/${work.id}/edit`, { chapterId: String(first.id), revision: "abc", content: "乱" }));
    expect(statusOf(junk)).toBe(400);
    expect((await chaptersOf(work.id))[0].content).toBe("旧页面改的");
  });

  it("refuses a chapter id of another work", async () => {
    const a = await single(owner.id);
    const b = await single(owner.id);
    const [bc] = await chaptersOf(b.id);
    expect((await domainError(saveChapter(owner.id, a.id, bc.id, { kind: "save", content: "x" }))).status).toBe(404);
  });
});

describe("listMyWorks", () => {
  it("lists one tab, searches within it, sorts and pages 12 at a time", async () => {
    const u = await createUser();
    const made: Created[] = [];
    for (let i = 0; i < 14; i++) made.push(await single(u.id, `免费作品${i + 1}`));
    await updateListing(u.id, made[0].id, { intent: "set-price", price: 3 });
    await updateListing(u.id, made[1].id, { intent: "take-down" });
    const free = await listMyWorks(u.id, { tab: "free", sort: "newest", query: "", page: 1 });
    expect(free.total).toBe(12);
    expect(free.works[0].title).toBe("免费作品14");
    const oldest = await listMyWorks(u.id, { tab: "free", sort: "oldest", query: "", page: 1 });
    expect(oldest.works[0].title).toBe("免费作品3");
    const paid = await listMyWorks(u.id, { tab: "paid", sort: "newest", query: "", page: 1 });
    expect(paid.works.map((w) => w.title)).toEqual(["免费作品1"]);
    const priv = await listMyWorks(u.id, { tab: "private", sort: "newest", query: "", page: 1 });
    expect(priv.works.map((w) => w.title)).toEqual(["免费作品2"]);
    const searched = await listMyWorks(u.id, { tab: "free", sort: "newest", query: "作品1", page: 1 });
    expect(searched.works.map((w) => w.title).sort()).toEqual(["免费作品10", "免费作品11", "免费作品12", "免费作品13", "免费作品14"]);
    const others = await listMyWorks(other.id, { tab: "free", sort: "newest", query: "免费作品", page: 1 });
    expect(others.total).toBe(0);
  });
});

describe("routes refuse other users' works", () => {
  it.each(["edit", "new-chapter", "delete"])("GET /works/:id/%s of another user's work is a 404", async (page) => {
    const work = await series(owner.id);
    const cookie = await sessionCookieFor(other.id);
    const mod = await import(`~/routes/shell/works/${page}.tsx`);
    await expect(runRoute("loader", mod, userRequest(cookie, `/works/${work.id}/${page}`))).rejects.toMatchObject({
      init: { status: 404 },
    });
  });

  it.each(["abc", "0", "-1", "99999999999"])("GET /works/%s/edit is a 404", async (id) => {
    const cookie = await sessionCookieFor(owner.id);
    const edit = await import("~/routes/shell/works/edit");
    await expect(runRoute("loader", edit, userRequest(cookie, `/works/${id}/edit`))).rejects.toMatchObject({ init: { status: 404 } });
  });
});
