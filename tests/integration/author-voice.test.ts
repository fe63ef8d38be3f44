import JSZip from "jszip";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, notificationJobs, readingProgress, reviewItems, screeningWords, works } from "~/db/schema";
import { loader as readerLoader } from "~/routes/shell/reader/work";
import { loader as bookLoader } from "~/routes/shell/reader/book-epub";
import { action as autosaveAction } from "~/routes/shell/studio/chapter-autosave";
import { action as editAction, loader as editLoader } from "~/routes/shell/studio/chapter-edit";
import { action as newAction } from "~/routes/shell/studio/chapter-new";
import { getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { createWork } from "~/server/catalog/works.server";
import { sitemapPage } from "~/server/catalog/sitemaps.server";
import { deliverNotifications, listNotifications } from "~/server/community/notifications.server";
import { purchaseChapter } from "~/server/economy/chapter-sales.server";
import { credit } from "~/server/economy/ledger.server";
import { setFavorite } from "~/server/reading/favorites.server";
import { listShelf } from "~/server/reading/library.server";
import { saveProgressFor } from "~/server/reading/reader.server";
import { reloadScreening } from "~/server/screening/screening.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { newFormToken } from "~/server/platform/form-tokens.server";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { serialByChapter } from "../fixtures/works";
import { callThroughRoutes, statusOf, callAs } from "./route-chain";
import { adminCookieFor, createAdmin, request } from "./admin-fixtures";

/**
 * The author's voice (issue 32): 作者的话 under each chapter (docs/decisions/202) and the
 * notice chapters 请假条 / 作品相关 (docs/decisions/203).
 */

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

let author: { id: string };
let reader: { id: string };
let authorCookie: string;
let readerCookie: string;

beforeAll(async () => {
  author = await createUser();
  reader = await createUser();
  authorCookie = await sessionCookieFor(author.id);
  readerCookie = await sessionCookieFor(reader.id);
  await db.insert(screeningWords).values([
    { word: "禁言测试词", folded: "禁言测试词", category: "其他", level: "forbid" },
    { word: "遮盖测试词", folded: "遮盖测试词", category: "其他", level: "replace" },
    { word: "待审测试词", folded: "待审测试词", category: "其他", level: "review" },
  ]);
  await reloadScreening();
});

async function serial(title = "连载") {
  return createWork(author.id, { ...base, title, type: "series", status: "ongoing" }, [{ title: "第一章", content: "第一章的正文。" }], null);
}
async function row(chapterId: number) {
  return (await db.select().from(chapters).where(eq(chapters.id, chapterId)))[0];
}
async function workRow(workId: number) {
  return (await db.select().from(works).where(eq(works.id, workId)))[0];
}
/** The reader page's data as `cookie`'s user (null: a visitor) sees it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function readerPage(cookie: string | null, path: string): Promise<any> {
  const result = (await callAs(readerLoader, cookie, path)) as Record<string, unknown>;
  if (result instanceof Response) return result;
  return "init" in result && "data" in result ? result.data : result;
}

describe("作者的话", () => {
  it("is saved by the editor beside the text, shown under the text to readers, and counts in neither 字数 nor the work's counts", async () => {
    const work = await serial("作者的话");
    const chapter = (await getChapterByOrder(work.id, 1))!;
    const path = `/works/${work.id}/chapters/${chapter.id}`;
    const saved = await callAs(editAction, authorCookie, path, { title: "第一章", content: "第一章的正文。", authorNote: "感谢大家的月票！\n明天加更。", revision: "0" });
    expect(statusOf(saved)).toBe(302);
    expect(await row(chapter.id)).toMatchObject({ authorNote: "感谢大家的月票！\n明天加更。", wordCount: 7 });
    expect((await workRow(work.id)).wordCount).toBe(7);

    const page = await readerPage(readerCookie, `/works/${work.id}?chapter=1`);
    expect(page.mode).toBe("chapter");
    expect(page.authorNote).toEqual(["感谢大家的月票！", "明天加更。"]);
    expect(page.batch.paragraphs).toEqual(["第一章的正文。"]);

    // The editor opens with it.
    const edit = (await callAs(editLoader, authorCookie, path)) as { data: { chapter: { authorNote: string } } };
    expect(edit.data.chapter.authorNote).toBe("感谢大家的月票！\n明天加更。");
  });

  it("autosaves with the text: a published chapter's note waits in the working copy until 保存", async () => {
    const work = await serial("自动保存");
    const chapter = (await getChapterByOrder(work.id, 1))!;
    const response = (await callAs(autosaveAction, authorCookie, `/works/${work.id}/chapters/${chapter.id}/autosave`, {
      content: "第一章的正文。",
      authorNote: "写到一半的话",
      revision: "0",
    })) as Response;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, pending: true, changed: true });
    expect(await row(chapter.id)).toMatchObject({ authorNote: "", pendingAuthorNote: "写到一半的话" });
    expect((await readerPage(readerCookie, `/works/${work.id}?chapter=1`)).authorNote).toBeNull();
    await saveChapter(author.id, work.id, chapter.id, { kind: "save", content: "第一章的正文。", authorNote: "写完的话", baseRevision: 1 });
    expect(await row(chapter.id)).toMatchObject({ authorNote: "写完的话", pendingAuthorNote: null });
    expect((await readerPage(readerCookie, `/works/${work.id}?chapter=1`)).authorNote).toEqual(["写完的话"]);
  });

  it("is not in a chapter's price, and a paid chapter's note reaches only who may read it", async () => {
    const { workId, chapterIds } = await serialByChapter(author.id, { count: 3, vipFrom: 2, perThousand: 5 });
    // The third chapter is published after pricing: its price is fixed from its text alone.
    const third = await insertChapter(author.id, workId, { title: "第四章", content: "正".repeat(1000), authorNote: "话".repeat(2000) }, "end");
    expect((await row(third)).price).toBe(5);
    await db.update(chapters).set({ authorNote: "只给订阅的读者" }).where(eq(chapters.id, chapterIds[1]));
    const buyer = await createUser();
    const buyerCookie = await sessionCookieFor(buyer.id);
    const locked = await readerPage(buyerCookie, `/works/${workId}?chapter=2`);
    expect(locked.mode).toBe("locked");
    expect(JSON.stringify(locked)).not.toContain("只给订阅的读者");
    await db.transaction((tx) => credit(tx, buyer.id, 100, "测试充值"));
    await purchaseChapter(buyer.id, workId, chapterIds[1]);
    expect((await readerPage(buyerCookie, `/works/${workId}?chapter=2`)).authorNote).toEqual(["只给订阅的读者"]);
  });

  it("is screened like the text: 禁止 refused, 替换 masked for readers, 审核 holds the chapter", async () => {
    const work = await serial("筛查");
    const chapter = (await getChapterByOrder(work.id, 1))!;
    const refused = await domainError(saveChapter(author.id, work.id, chapter.id, { kind: "save", content: "第一章的正文。", authorNote: "有禁言测试词" }));
    expect(refused).toMatchObject({ status: 400, message: "作者的话含有禁止使用的词语：「禁言测试词」，请修改后再提交" });
    expect((await row(chapter.id)).authorNote).toBe("");
    await saveChapter(author.id, work.id, chapter.id, { kind: "save", content: "第一章的正文。", authorNote: "别说遮盖测试词" });
    expect((await readerPage(readerCookie, `/works/${work.id}?chapter=1`)).authorNote).toEqual(["别说＊＊＊＊＊"]);
    expect((await row(chapter.id)).authorNote).toBe("别说遮盖测试词");
    // A new chapter whose note holds a 审核 word waits for a reviewer, invisible to readers.
    const held = await insertChapter(author.id, work.id, { title: "第二章", content: "干净的正文", authorNote: "待审测试词" }, "end");
    expect((await row(held)).state).toBe("review");
    expect(await db.select({ reason: reviewItems.reason }).from(reviewItems).where(eq(reviewItems.chapterId, held))).toEqual([{ reason: "含待审词语" }]);
    expect(await getChapterByOrder(work.id, 2)).toBeNull();
    // The reviewer's page shows the note with the word marked.
    const [item] = await db.select({ id: reviewItems.id }).from(reviewItems).where(eq(reviewItems.chapterId, held));
    const reviewer = await createAdmin({ role: "reviewer" });
    const { loader } = await import("~/routes/admin/review-item");
    const review = (await callThroughRoutes(loader as never, {
      request: request(`/admin/review/${item.id}`, { cookie: await adminCookieFor(reviewer.id) }),
      params: { id: String(item.id) },
    })) as { notePieces: { text: string; hit?: { word: string; level: string } }[][] };
    expect(review.notePieces).toEqual([[{ text: "待审测试词", hit: { word: "待审测试词", level: "review" } }]]);
  });

  it("refuses a note over 2,000 字 or with control characters with a Chinese message, writing nothing", async () => {
    const work = await serial("太长");
    const chapter = (await getChapterByOrder(work.id, 1))!;
    const path = `/works/${work.id}/chapters/${chapter.id}`;
    const tooLong = await callAs(editAction, authorCookie, path, { title: "第一章", content: "新正文", authorNote: "话".repeat(2001), revision: "0" });
    expect(statusOf(tooLong)).toBe(400);
    expect(JSON.stringify(tooLong)).toContain("作者的话不能超过2000个字");
    const autosave = (await callAs(autosaveAction, authorCookie, `${path}/autosave`, { content: "新正文", authorNote: "话".repeat(2001), revision: "0" })) as Response;
    expect(autosave.status).toBe(400);
    expect(await autosave.json()).toEqual({ ok: false, error: "作者的话不能超过2000个字" });
    expect((await domainError(saveChapter(author.id, work.id, chapter.id, { kind: "save", content: "新正文", authorNote: "坏\u0001字" }))).message).toBe("作者的话包含不允许的控制字符");
    expect(await row(chapter.id)).toMatchObject({ content: "第一章的正文。", authorNote: "", revision: 0 });
  });

  it("is an <aside class=\"author-note\"> after the text in the EPUB", async () => {
    const work = await createWork(author.id, { ...base, title: "电子书", type: "series", status: "ongoing" }, [{ title: "第一章", content: "正文一段" }], null);
    const chapter = (await getChapterByOrder(work.id, 1))!;
    await saveChapter(author.id, work.id, chapter.id, { kind: "save", content: "正文一段", authorNote: "谢谢 <阅读> & 支持" });
    const response = (await callAs(bookLoader, readerCookie, `/works/${work.id}/book.epub`)) as Response;
    expect(response.status).toBe(200);
    const zip = await JSZip.loadAsync(new Uint8Array(await response.arrayBuffer()));
    const xhtml = await zip.file("OEBPS/text/c1.xhtml")!.async("string");
    expect(xhtml).toContain('<p>正文一段</p>\n<aside class="author-note">\n<h3>作者的话</h3>\n<p>谢谢 &lt;阅读&gt; &amp; 支持</p>\n</aside>');
    expect(xhtml).not.toContain("epub:type");
  });

  it("is previewed in a follower's new-chapter line, to followers who may read the chapter", async () => {
    const work = await serial("通知");
    const follower = await createUser();
    await setFavorite({ id: follower.id, showR18: false, showAi: true }, work.id, true);
    await insertChapter(author.id, work.id, { title: "第二章", content: "第二章正文", authorNote: `今天两更，${"长".repeat(80)}` }, "end");
    await deliverNotifications();
    const [line] = (await listNotifications(follower.id, 1)).lines;
    expect(line.kind).toBe("chapters");
    expect(line.authorNote).toBe(`今天两更，${"长".repeat(55)}…`);

    // A VIP chapter's note stays with it: a follower who has not bought it sees none.
    const { workId } = await serialByChapter(author.id, { count: 2, vipFrom: 2 });
    await setFavorite({ id: follower.id, showR18: false, showAi: true }, workId, true);
    await insertChapter(author.id, workId, { title: "VIP章", content: "付费正文", authorNote: "付费章的话" }, "end");
    await deliverNotifications();
    const vipLine = (await listNotifications(follower.id, 1)).lines.find((l) => l.workId === workId)!;
    expect(vipLine.authorNote).toBeNull();
  });
});

describe("notice chapters: 请假条 and 作品相关", () => {
  /** A series sold by chapter (VIP from 2) with a 作品相关 and a 请假条 among its chapters. */
  async function withNotices() {
    const { workId, chapterIds } = await serialByChapter(author.id, { count: 3, vipFrom: 2, perThousand: 5, title: `通告${Math.random()}` });
    const follower = await createUser();
    await setFavorite({ id: follower.id, showR18: false, showAi: true }, workId, true);
    await deliverNotifications();
    const about = await insertChapter(author.id, workId, { title: "人物设定", content: "设定".repeat(600), kind: "about" }, { at: 1 });
    const leave = await insertChapter(author.id, workId, { title: "今天请假", content: "家里有事，明天补更。", authorNote: "抱歉", kind: "leave" }, { at: 3 });
    return { workId, chapterIds, about, leave, follower };
  }

  it("are outside the numbering, the counts and the price, and tell no follower", async () => {
    const { workId, chapterIds, about, leave, follower } = await withNotices();
    const jobs = await db.select().from(notificationJobs).where(eq(notificationJobs.workId, workId));
    expect(jobs).toEqual([]);
    await deliverNotifications();
    expect((await listNotifications(follower.id, 1)).lines.filter((l) => l.workId === workId)).toEqual([]);
    // 第1..3章 keep their numbers; the notices are free whatever the work's pricing.
    expect((await getChapterByOrder(workId, 1))!.id).toBe(chapterIds[0]);
    expect((await getChapterByOrder(workId, 2))!.id).toBe(chapterIds[1]);
    expect((await getChapterByOrder(workId, 3))!.id).toBe(chapterIds[2]);
    expect(await getChapterByOrder(workId, 4)).toBeNull();
    expect((await row(about)).price).toBe(0);
    expect((await row(leave)).price).toBe(0);
    // The work's 章数 and 字数: its three 正文 chapters of 2,000 字.
    const after = await workRow(workId);
    expect([after.chapterCount, after.wordCount]).toEqual([3, 6000]);
  });

  it("are listed in their own 目录 groups and open for anyone, even in a paid work, without moving the reading position or the unread count", async () => {
    const { workId, about, leave } = await withNotices();
    const visitorToc = await readerPage(null, `/works/${workId}`);
    expect(visitorToc.toc.total).toBe(3);
    expect(visitorToc.toc.chapters.map((c: { order: number }) => c.order)).toEqual([1, 2, 3]);
    expect(visitorToc.toc.notices).toEqual([
      { id: about, title: "人物设定", kind: "about" },
      { id: leave, title: "今天请假", kind: "leave" },
    ]);

    const visitor = await readerPage(null, `/works/${workId}?notice=${leave}`);
    expect(visitor.mode).toBe("notice");
    expect(visitor.noticeChapter).toMatchObject({ title: "今天请假", kind: "leave", paragraphs: ["家里有事，明天补更。"], authorNote: ["抱歉"] });

    const follower = await createUser();
    const followerCookie = await sessionCookieFor(follower.id);
    const viewer = { id: follower.id, showR18: false, showAi: true };
    await setFavorite(viewer, workId, true);
    await readerPage(followerCookie, `/works/${workId}?chapter=1`);
    const progress = async () => (await db.select().from(readingProgress).where(and(eq(readingProgress.userId, follower.id), eq(readingProgress.workId, workId))))[0];
    const at = await progress();
    const shelf = async () => (await listShelf(viewer, "updated", 1)).items.find((i) => i.work.id === workId)!;
    const unread = async () => (await shelf()).unread;
    expect(await unread()).toBe(2);
    // 最新章节 on the shelf is the last 正文 chapter, not the 请假条 after it.
    expect((await shelf()).latestChapter?.title).toBe("第3章");
    expect((await readerPage(followerCookie, `/works/${workId}?notice=${about}`)).mode).toBe("notice");
    expect(await progress()).toEqual(at);
    expect(await unread()).toBe(2);
    // 继续阅读 still leads to 第1章.
    expect((await readerPage(followerCookie, `/works/${workId}`)).progress.href).toBe(`/works/${workId}?chapter=1#p-0`);
    // A position sent for a notice (by hand) is not saved.
    expect(await saveProgressFor(viewer, workId, { chapterId: about }, 0)).toBe(false);
    expect(await progress()).toEqual(at);
  });

  it("are missing as chapters, a bad ?notice= is 404, and ?chapterId= of a notice leads to it", async () => {
    const { workId, chapterIds } = await withNotices();
    const numbered = (await callAs(readerLoader, null, `/works/${workId}?notice=${chapterIds[0]}`)) as { status: number };
    expect(numbered.status ?? statusOf(numbered)).toBe(404);
    const junk = (await callAs(readerLoader, null, `/works/${workId}?notice=abc`)) as { status: number };
    expect(junk.status ?? statusOf(junk)).toBe(404);
    // A chapter's lasting address (`?chapterId=`) of a notice leads to the notice.
    const { about } = await withNotices();
    const lasting = (await callAs(readerLoader, null, `/works/${(await row(about)).workId}?chapterId=${about}`)) as Response;
    expect([lasting.status, lasting.headers.get("Location")]).toEqual([302, `/works/${(await row(about)).workId}?notice=${about}`]);
  });

  it("are free chapters in the sitemap, by their own address", async () => {
    const { workId, about, leave } = await withNotices();
    const xml = await sitemapPage("chapters", 1, "https://example.test");
    expect(xml).toContain(`https://example.test/works/${workId}?notice=${about}<`);
    expect(xml).toContain(`https://example.test/works/${workId}?notice=${leave}<`);
    expect(xml).toContain(`https://example.test/works/${workId}?chapter=1<`);
    expect(xml).not.toContain(`https://example.test/works/${workId}?chapter=2<`);
  });

  it("are chosen on the new-chapter form; a bad kind is refused in Chinese, writing nothing", async () => {
    const work = await serial("表单");
    const path = `/works/${work.id}/chapters/new`;
    const count = async () => (await db.select().from(chapters).where(eq(chapters.workId, work.id))).length;
    const bad = await callAs(newAction, authorCookie, path, { title: "请假", content: "今天请假", kind: "holiday", release: "now", formToken: newFormToken() });
    expect(statusOf(bad)).toBe(400);
    expect(JSON.stringify(bad)).toContain("请选择章节类型：正文、请假条或作品相关");
    expect(await count()).toBe(1);
    const ok = await callAs(newAction, authorCookie, path, { title: "请假", content: "今天请假", kind: "leave", authorNote: "见谅", release: "now", formToken: newFormToken() });
    expect(statusOf(ok)).toBe(302);
    const [notice] = await db.select().from(chapters).where(and(eq(chapters.workId, work.id), eq(chapters.kind, "leave")));
    expect(notice).toMatchObject({ title: "请假", authorNote: "见谅", state: "published" });
    expect((await workRow(work.id)).chapterCount).toBe(1);
  });
});
