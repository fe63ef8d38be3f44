import { asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { chapterRevisions, chapters, works } from "~/db/schema";
import { action as autosaveAction, loader as autosaveLoader } from "~/routes/shell/studio/chapter-autosave";
import { action as editAction, loader as editLoader } from "~/routes/shell/studio/chapter-edit";
import { action as revisionsAction, loader as revisionsLoader } from "~/routes/shell/studio/chapter-revisions";
import { getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { CHAPTER_REVISIONS_KEPT } from "~/schemas/studio";
import { listRevisions, saveChapter } from "~/server/studio/chapter-text.server";
import { insertChapter, managerPage } from "~/server/studio/chapters.server";
import { createWork } from "~/server/catalog/works.server";
import { cookiePair, createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { callThroughRoutes, statusOf, callAs } from "./route-chain";

/** The studio chapter editor's saves (docs/decisions/095): autosave, revisions, restore. */

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

let owner: { id: string };
let other: { id: string };
let ownerCookie: string;
let otherCookie: string;
beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
  ownerCookie = await sessionCookieFor(owner.id);
  otherCookie = await sessionCookieFor(other.id);
});

async function series() {
  return createWork(owner.id, { ...base, title: "连载", type: "series", status: "ongoing" }, [{ title: "第一章", content: "读者看到的正文。" }], null);
}
async function row(chapterId: number) {
  return (await db.select().from(chapters).where(eq(chapters.id, chapterId)))[0];
}
async function revisionRows(chapterId: number) {
  return db.select().from(chapterRevisions).where(eq(chapterRevisions.chapterId, chapterId)).orderBy(asc(chapterRevisions.id));
}
async function autosave(cookie: string, workId: number, chapterId: number, fields: Record<string, string>) {
  const response = (await callAs(autosaveAction, cookie, `/works/${workId}/chapters/${chapterId}/autosave`, fields)) as Response;
  return { status: response.status, body: (await response.json()) as { ok: boolean; error?: string; stale?: boolean; revision?: number; wordCount?: number } };
}
async function withDraft() {
  const work = await series();
  const draft = await insertChapter(owner.id, work.id, { title: "存稿", content: "初稿", release: { mode: "draft" } }, "end");
  return { work, draft };
}

/** The notice the page after `response`'s redirect shows (its flash cookie sent back). */
async function noticeAfter(response: unknown, cookie: string): Promise<string | undefined> {
  expect(response).toBeInstanceOf(Response);
  const redirect = response as Response;
  expect(redirect.status).toBe(302);
  const flash = cookiePair(redirect.headers.get("Set-Cookie"));
  const { loader } = await import("~/routes/shell/studio/chapters");
  const page = (await callThroughRoutes(loader, { request: userRequest(`${cookie}; ${flash}`, redirect.headers.get("Location")!) })) as {
    data: { notice: { text: string } | null };
  };
  return page.data.notice?.text;
}

describe("保存 in the editor says what it did", () => {
  it("立即发布 of a 存稿 says 章节已发布; 定时 and 存稿 say so; a published chapter's 保存 says 章节已保存", async () => {
    const { work, draft } = await withDraft();
    const path = `/works/${work.id}/chapters/${draft}`;
    const kept = await callAs(editAction, ownerCookie, path, { title: "存稿", content: "还在写", release: "draft", revision: "0" });
    expect(await noticeAfter(kept, ownerCookie)).toBe("已存稿");
    const scheduled = await callAs(editAction, ownerCookie, path, { title: "存稿", content: "明天发", release: "at", publishAt: "2099-06-01T20:30", revision: "1" });
    expect(await noticeAfter(scheduled, ownerCookie)).toBe("已设置定时发布");
    const published = await callAs(editAction, ownerCookie, path, { title: "存稿", content: "写完了", release: "now", revision: "2" });
    expect(await noticeAfter(published, ownerCookie)).toBe("章节已发布");
    expect(await row(draft)).toMatchObject({ state: "published", content: "写完了" });
    const edited = await callAs(editAction, ownerCookie, path, { title: "存稿", content: "改一个字", revision: "3" });
    expect(await noticeAfter(edited, ownerCookie)).toBe("章节已保存");
  });
});

describe("autosave", () => {
  it("saves a draft's text as it is typed, and skips text the server already has", async () => {
    const { work, draft } = await withDraft();
    const first = await autosave(ownerCookie, work.id, draft, { content: "初稿，写下去\r\n第二段", revision: "0" });
    expect(first).toMatchObject({ status: 200, body: { ok: true, revision: 1, wordCount: 9 } });
    expect(await row(draft)).toMatchObject({ content: "初稿，写下去\n第二段", wordCount: 9, revision: 1, pendingContent: null });
    const again = await autosave(ownerCookie, work.id, draft, { content: "初稿，写下去\n第二段", revision: "1" });
    expect(again.body).toMatchObject({ ok: true, revision: 1, changed: false });
    expect((await row(draft)).revision).toBe(1);
    // The work's counts count published chapters only: a draft's autosave leaves them.
    expect((await db.select().from(works).where(eq(works.id, work.id)))[0].wordCount).toBe(8);
  });

  it("keeps a published chapter's autosave as a working copy until 保存, then re-counts", async () => {
    const work = await series();
    const chapter = (await getChapterByOrder(work.id, 1))!;
    const saved = await autosave(ownerCookie, work.id, chapter.id, { content: "改了一半的正文", revision: "0" });
    expect(saved.body).toMatchObject({ ok: true, revision: 1, pending: true });
    // Readers still see the published text.
    expect((await getChapterByOrder(work.id, 1))!.content).toBe("读者看到的正文。");
    expect((await row(chapter.id)).pendingContent).toBe("改了一半的正文");
    const pendingOf = async () => (await managerPage(owner.id, work.id, 1)).rows.map((r) => r.kind === "chapter" && r.pending);
    // The chapter manager marks it 修改未发布.
    expect(await pendingOf()).toEqual([true]);
    // The editor opens on the working copy.
    const page = (await callAs(editLoader, ownerCookie, `/works/${work.id}/chapters/${chapter.id}`)) as { data: { chapter: { content: string; pending: boolean; revision: number } } };
    expect(page.data.chapter).toMatchObject({ content: "改了一半的正文", pending: true, revision: 1 });
    // 保存 publishes it.
    const result = await callAs(editAction, ownerCookie, `/works/${work.id}/chapters/${chapter.id}`, { title: "第一章", content: "改好的正文", revision: "1" });
    expect(statusOf(result)).toBe(302);
    expect(await row(chapter.id)).toMatchObject({ content: "改好的正文", pendingContent: null, revision: 2 });
    expect(await pendingOf()).toEqual([false]);
    expect((await db.select().from(works).where(eq(works.id, work.id)))[0].wordCount).toBe(5);
  });

  it("answers another user, a chapter of another work, a visitor's or a foreign-site post without writing", async () => {
    const { work, draft } = await withDraft();
    const elsewhere = await series();
    const foreign = (await getChapterByOrder(elsewhere.id, 1))!.id;
    expect(await autosave(otherCookie, work.id, draft, { content: "篡改", revision: "0" })).toEqual({ status: 404, body: { ok: false, error: "作品不存在" } });
    expect(await autosave(ownerCookie, work.id, foreign, { content: "篡改", revision: "0" })).toEqual({ status: 404, body: { ok: false, error: "章节不存在" } });
    expect((await autosave(ownerCookie, work.id, 0, { content: "篡改", revision: "0" })).status).toBe(404);
    expect((await domainError(saveChapter(other.id, work.id, draft, { kind: "autosave", content: "篡改", baseRevision: 0 }))).status).toBe(404);
    const crossSite = new Request(`http://localhost/works/${work.id}/chapters/${draft}/autosave`, {
      method: "POST",
      headers: { Cookie: ownerCookie, Origin: "https://evil.example" },
      body: new URLSearchParams({ content: "篡改", revision: "0" }),
    });
    expect(((await callThroughRoutes(autosaveAction, { request: crossSite })) as Response).status).toBe(403);
    const visitor = await callAs(autosaveAction, "", `/works/${work.id}/chapters/${draft}/autosave`, { content: "篡改", revision: "0" });
    expect(statusOf(visitor)).toBe(302);
    expect(((await callAs(autosaveLoader, ownerCookie, `/works/${work.id}/chapters/${draft}/autosave`)) as Response).status).toBe(405);
    expect((await row(draft)).content).toBe("初稿");
    expect((await row(foreign)).content).toBe("读者看到的正文。");
  });

  it("refuses NUL bytes, oversized text, a missing or malformed revision with a Chinese message, writing nothing", async () => {
    const { work, draft } = await withDraft();
    expect(await autosave(ownerCookie, work.id, draft, { content: "坏\u0000字", revision: "0" })).toEqual({
      status: 400,
      body: { ok: false, error: "提交的内容包含不允许的控制字符" },
    });
    const tooLong = await autosave(ownerCookie, work.id, draft, { content: "长".repeat(2_000_001), revision: "0" });
    expect(tooLong.status).toBe(413);
    expect(tooLong.body.error).toBe("提交的内容过大");
    expect(await autosave(ownerCookie, work.id, draft, { content: "a".repeat(2_000_001), revision: "0" })).toEqual({ status: 400, body: { ok: false, error: "正文过长" } });
    expect((await autosave(ownerCookie, work.id, draft, { content: "字" })).body).toEqual({ ok: false, error: "版本号无效，请重新载入后再编辑" });
    expect((await autosave(ownerCookie, work.id, draft, { content: "字", revision: "-1" })).status).toBe(400);
    expect((await domainError(saveChapter(owner.id, work.id, draft, { kind: "autosave", content: "长".repeat(2_000_001), baseRevision: 0 }))).message).toBe("正文过长");
    expect((await domainError(saveChapter(owner.id, work.id, draft, { kind: "autosave", content: "坏\u0000", baseRevision: 0 }))).message).toBe("正文包含不允许的控制字符");
    expect(await row(draft)).toMatchObject({ content: "初稿", revision: 0 });
    expect(await revisionRows(draft)).toEqual([]);
  });

  it("tells a stale tab the chapter changed elsewhere (409), for autosave and for 保存", async () => {
    const { work, draft } = await withDraft();
    expect((await autosave(ownerCookie, work.id, draft, { content: "甲标签页", revision: "0" })).body.ok).toBe(true);
    expect(await autosave(ownerCookie, work.id, draft, { content: "乙标签页", revision: "0" })).toEqual({
      status: 409,
      body: { ok: false, error: "此章节已在别处修改，请重新载入后再编辑", stale: true },
    });
    const form = await callAs(editAction, ownerCookie, `/works/${work.id}/chapters/${draft}`, { title: "存稿", content: "乙标签页", release: "draft", revision: "0" });
    expect(statusOf(form)).toBe(409);
    expect(JSON.stringify(form)).toContain("此章节已在别处修改");
    expect(await row(draft)).toMatchObject({ content: "甲标签页", revision: 1 });
  });

  it("lets exactly one of two tabs autosaving on the same revision at once win; the other is told", async () => {
    const { work, draft } = await withDraft();
    for (let round = 0; round < 5; round++) {
      const { revision } = await row(draft);
      const texts = [`甲${round}`, `乙${round}`];
      // On PostgreSQL each save runs on its own pool connection, at the same time.
      const results = await Promise.allSettled(texts.map((content) => saveChapter(owner.id, work.id, draft, { kind: "autosave", content, baseRevision: revision })));
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(won).toHaveLength(1);
      expect(lost.map((r) => [r.reason.status, r.reason.message])).toEqual([[409, "此章节已在别处修改，请重新载入后再编辑"]]);
      const after = await row(draft);
      expect(after.revision).toBe(revision + 1);
      expect(texts).toContain(after.content);
    }
    if (databaseKind === "postgres") expect((await revisionRows(draft)).length).toBeGreaterThan(0);
  });
});

describe("revisions", () => {
  it("keeps the text before the first save, merges a run of autosaves, and adds each 保存", async () => {
    const { work, draft } = await withDraft();
    await saveChapter(owner.id, work.id, draft, { kind: "autosave", content: "初稿一", baseRevision: 0 });
    await saveChapter(owner.id, work.id, draft, { kind: "autosave", content: "初稿一二", baseRevision: 1 });
    await saveChapter(owner.id, work.id, draft, { kind: "save", title: "存稿", content: "初稿一二", release: { mode: "draft" }, baseRevision: 2 });
    await saveChapter(owner.id, work.id, draft, { kind: "save", title: "存稿", content: "初稿一二三", release: { mode: "draft" } });
    const rows = await listRevisions(owner.id, work.id, draft);
    expect(rows.map((r) => [r.kind, r.preview, r.wordCount])).toEqual([
      ["save", "初稿一二三", 5],
      ["save", "初稿一二", 4],
      ["save", "初稿", 2],
    ]);
  });

  it(`keeps the last ${CHAPTER_REVISIONS_KEPT} saves, pruning older ones in the same transaction`, async () => {
    const { work, draft } = await withDraft();
    for (let i = 1; i <= 25; i++) {
      await saveChapter(owner.id, work.id, draft, { kind: "save", title: "存稿", content: `第${i}稿`, release: { mode: "draft" } });
    }
    const rows = await revisionRows(draft);
    expect(rows).toHaveLength(CHAPTER_REVISIONS_KEPT);
    expect(rows.map((r) => r.content)).toEqual(Array.from({ length: 20 }, (_, i) => `第${i + 6}稿`));
  });

  it("restores a kept save as a new save, from the revisions page, owner only", async () => {
    const work = await series();
    const chapter = (await getChapterByOrder(work.id, 1))!;
    await saveChapter(owner.id, work.id, chapter.id, { kind: "save", content: "第二版正文" });
    await saveChapter(owner.id, work.id, chapter.id, { kind: "autosave", content: "没写完的", baseRevision: 1 });
    const path = `/works/${work.id}/chapters/${chapter.id}/revisions`;
    const page = (await callAs(revisionsLoader, ownerCookie, path)) as { revisions: { id: number; kind: string; wordCount: number; preview: string }[] };
    expect(page.revisions.map((r) => [r.kind, r.preview])).toEqual([
      ["自动保存", "没写完的"],
      ["保存", "第二版正文"],
      ["保存", "读者看到的正文。"],
    ]);
    const original = page.revisions[2].id;
    // Someone else, a revision of another chapter, a bad id: nothing changes.
    expect(statusOf(await callAs(revisionsLoader, otherCookie, path))).toBe(404);
    expect(statusOf(await callAs(revisionsAction, otherCookie, path, { revisionId: String(original) }))).toBe(404);
    const elsewhere = await withDraft();
    await saveChapter(owner.id, elsewhere.work.id, elsewhere.draft, { kind: "autosave", content: "别的章节", baseRevision: 0 });
    const foreign = (await revisionRows(elsewhere.draft))[0].id;
    const refused = await callAs(revisionsAction, ownerCookie, path, { revisionId: String(foreign) });
    expect([statusOf(refused), (refused as { data: { error: string } }).data.error]).toEqual([404, "该历史版本不存在"]);
    expect(statusOf(await callAs(revisionsAction, ownerCookie, path, { revisionId: "abc" }))).toBe(400);
    expect((await row(chapter.id)).content).toBe("第二版正文");

    const done = await callAs(revisionsAction, ownerCookie, path, { revisionId: String(original) });
    expect(statusOf(done)).toBe(302);
    expect((done as Response).headers.get("Location")).toBe(`/works/${work.id}/chapters/${chapter.id}`);
    // Restoring is a save: readers see it, the working copy is gone, and it is listed.
    expect(await row(chapter.id)).toMatchObject({ content: "读者看到的正文。", pendingContent: null, revision: 3 });
    expect((await listRevisions(owner.id, work.id, chapter.id)).map((r) => r.kind)).toEqual(["restore", "autosave", "save", "save"]);
  });

  it("refuses to restore an empty text over a published chapter", async () => {
    const work = await series();
    const chapter = (await getChapterByOrder(work.id, 1))!;
    await saveChapter(owner.id, work.id, chapter.id, { kind: "autosave", content: "", baseRevision: 0 });
    const [, empty] = await revisionRows(chapter.id);
    expect(empty.content).toBe("");
    expect((await domainError(saveChapter(owner.id, work.id, chapter.id, { kind: "restore", revisionId: empty.id }))).message).toBe("请输入章节内容");
    expect((await row(chapter.id)).content).toBe("读者看到的正文。");
  });
});
