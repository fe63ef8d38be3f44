import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, notifications, reviewItems, users } from "~/db/schema";
import { REVIEW_MESSAGES } from "~/schemas/review";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { claimItem, decideItem, reviewItemView, saveReviewPolicy } from "~/server/admin/review-queue.server";
import { getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { createWork } from "~/server/catalog/works.server";
import { reloadScreening } from "~/server/screening/screening.server";
import { addScreeningWord } from "~/server/screening/words.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { managerPage, renameChapter } from "~/server/studio/chapters.server";
import { runChapterManagerAction } from "~/server/studio/manager-actions.server";
import { editReviews } from "~/server/studio/review.server";
import { textDiff } from "~/utils/text-diff";
import { createUser } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { actorOf, adminCookieFor, callLoader, createAdmin, request } from "./admin-fixtures";

/**
 * Edits of published chapters under review (docs/product.md#review, decision 213): the
 * author's 保存 waits as an `edit` item while readers keep the approved text; the reviewer
 * sees the difference; 通过 gives readers the new text, 退回修改 and 拒绝 keep the old.
 */

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

let chief: Awaited<ReturnType<typeof createAdmin>>;
let reviewer: Awaited<ReturnType<typeof createAdmin>>;

/** A work whose first chapter is out, by an author then put on the 先审名单. */
async function publishedThenWatched(opts: { watched?: boolean } = {}) {
  const author = await createUser();
  const work = await createWork(author.id, { ...base, title: "修改审核", type: "series", status: "ongoing" }, [{ title: "第一章 原题", content: "原来的第一段。\n原来的第二段。" }], null);
  if (opts.watched !== false) await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
  const [chapter] = await db.select().from(chapters).where(eq(chapters.workId, work.id));
  return { author, workId: work.id, chapterId: chapter.id };
}
async function current(chapterId: number) {
  const [row] = await db.select().from(chapters).where(eq(chapters.id, chapterId));
  return row;
}
async function edits(chapterId: number) {
  return db.select().from(reviewItems).where(and(eq(reviewItems.chapterId, chapterId), eq(reviewItems.kind, "edit"))).orderBy(reviewItems.id);
}
async function save(c: { author: { id: string }; workId: number; chapterId: number }, content: string, title?: string, authorNote?: string) {
  return saveChapter(c.author.id, c.workId, c.chapterId, { kind: "save", content, title, authorNote, baseRevision: (await current(c.chapterId)).revision });
}
async function decide(id: number, decision: "approve" | "return" | "reject", note = "") {
  await claimItem(actorOf(reviewer), "reviewer", id);
  return decideItem(actorOf(reviewer), "reviewer", id, decision, note);
}
async function lastLine(userId: string) {
  const [line] = await db.select().from(notifications).where(and(eq(notifications.userId, userId), eq(notifications.kind, "review"))).orderBy(desc(notifications.id)).limit(1);
  return line?.body;
}

beforeAll(async () => {
  chief = await createAdmin({ role: "chief_editor" });
  reviewer = await createAdmin({ role: "reviewer" });
  await saveReviewPolicy(actorOf(chief), { newAuthors: false, trustedAfter: 10, aiWorks: false, samplePercent: 0, unsignedAuthors: false });
  await addScreeningWord(actorOf(chief), { word: "修改待审词", category: "其他", level: "review" });
  await reloadScreening();
});

describe("an edit of a published chapter by an author whose releases are reviewed", () => {
  it("waits while readers keep the approved text; the reviewer sees the difference; 通过 gives readers the edit", async () => {
    const c = await publishedThenWatched();
    const saved = await save(c, "原来的第一段。\n改过的第二段。", "第一章 新题", "多谢支持");
    expect([saved.editHeld, saved.pending]).toEqual([true, true]);
    // Readers: the old title, text and no note; the author's editor: what they saved.
    const reader = await getChapterByOrder(c.workId, 1);
    expect([reader?.title, reader?.content, reader?.authorNote]).toEqual(["第一章 原题", "原来的第一段。\n原来的第二段。", ""]);
    const row = await current(c.chapterId);
    expect([row.pendingTitle, row.pendingContent, row.pendingAuthorNote]).toEqual(["第一章 新题", "原来的第一段。\n改过的第二段。", "多谢支持"]);
    // The studio marks it 修改审核中.
    expect((await editReviews(db, c.workId, [c.chapterId])).get(c.chapterId)).toEqual({ status: "pending" });
    const managerRow = (await managerPage(c.author.id, c.workId, 1)).rows.find((r) => r.kind === "chapter" && r.id === c.chapterId);
    expect(managerRow && "edit" in managerRow ? managerRow.edit : null).toEqual({ status: "pending" });

    const [item] = await edits(c.chapterId);
    expect([item.status, item.reason]).toEqual(["pending", "先审名单"]);
    const view = await reviewItemView(actorOf(reviewer), item.id);
    expect([view.chapter?.title, view.chapter?.content, view.approved?.title, view.approved?.content]).toEqual([
      "第一章 新题",
      "原来的第一段。\n改过的第二段。",
      "第一章 原题",
      "原来的第一段。\n原来的第二段。",
    ]);
    // The reviewer's page shows the change word by word.
    const page = await callLoader(await import("~/routes/admin/review-item"), request(`/admin/review/${item.id}`, { cookie: await adminCookieFor(reviewer.id) }), { id: String(item.id) });
    const changes = page.data.changes as { title: string; text: { value: string; added: boolean; removed: boolean }[] };
    expect(changes.title).toBe("第一章 原题");
    expect(changes.text.filter((p) => p.added).map((p) => p.value).join("")).toBe("改过");
    expect(changes.text.filter((p) => p.removed).map((p) => p.value).join("")).toBe("原来");

    expect(await decide(item.id, "approve")).toBe("edit-applied");
    const out = await getChapterByOrder(c.workId, 1);
    expect([out?.title, out?.content, out?.authorNote, out?.wordCount]).toEqual(["第一章 新题", "原来的第一段。\n改过的第二段。", "多谢支持", 14]);
    const after = await current(c.chapterId);
    expect([after.pendingTitle, after.pendingContent, after.pendingAuthorNote]).toEqual([null, null, null]);
    expect(await lastLine(c.author.id)).toBe("章节「第一章 新题」的修改已通过审核，读者现在看到修改后的版本");
    expect((await editReviews(db, c.workId, [c.chapterId])).size).toBe(0);
  });

  it("退回修改 and 拒绝 keep readers' text, the author sees why; a new 保存 resubmits, the same one keeps its place", async () => {
    const c = await publishedThenWatched();
    await save(c, "第一次修改。");
    const [first] = await edits(c.chapterId);
    // Saving the same edit again keeps the item (and its place in the queue).
    await save(c, "第一次修改。");
    expect((await edits(c.chapterId)).map((i) => i.id)).toEqual([first.id]);
    expect(await decide(first.id, "return", "改动太大，请说明")).toBe("edit-returned");
    expect((await getChapterByOrder(c.workId, 1))?.content).toBe("原来的第一段。\n原来的第二段。");
    expect((await editReviews(db, c.workId, [c.chapterId])).get(c.chapterId)).toEqual({ status: "returned", note: "改动太大，请说明" });
    expect(await lastLine(c.author.id)).toBe("章节「第一章 原题」的修改被退回，请修改后重新保存；读者仍看到修改前的版本。原因：改动太大，请说明");

    await save(c, "第二次修改。");
    const [, second] = await edits(c.chapterId);
    expect(second.status).toBe("pending");
    expect(await decide(second.id, "reject", "不符合规范")).toBe("edit-rejected");
    expect((await getChapterByOrder(c.workId, 1))?.content).toBe("原来的第一段。\n原来的第二段。");
    expect((await editReviews(db, c.workId, [c.chapterId])).get(c.chapterId)).toEqual({ status: "rejected", note: "不符合规范" });
    // The author's working copy is kept: nothing they wrote is lost.
    expect((await current(c.chapterId)).pendingContent).toBe("第二次修改。");
    // Saving the approved text back goes out at once and withdraws the edit waiting.
    await save(c, "第三次修改。");
    await save(c, "原来的第一段。\n原来的第二段。");
    expect((await edits(c.chapterId)).map((i) => i.status)).toEqual(["returned", "rejected", "withdrawn"]);
    expect((await current(c.chapterId)).pendingContent).toBeNull();
    // A decided edit cannot be decided again.
    const again = await domainError(decideItem(actorOf(reviewer), "reviewer", second.id, "approve", ""));
    expect(again.message).toBe(REVIEW_MESSAGES.alreadyDecided("rejected"));
  });

  it("an autosave while the edit waits changes the working copy, not the edit; 通过 applies the edit and keeps the newer working copy", async () => {
    const c = await publishedThenWatched();
    await save(c, "送审的版本。");
    const [item] = await edits(c.chapterId);
    await saveChapter(c.author.id, c.workId, c.chapterId, { kind: "autosave", content: "送审后又写了一些。", baseRevision: (await current(c.chapterId)).revision });
    expect((await reviewItemView(actorOf(reviewer), item.id)).chapter?.content).toBe("送审的版本。");
    expect(await decide(item.id, "approve")).toBe("edit-applied");
    const row = await current(c.chapterId);
    expect([row.content, row.pendingContent]).toEqual(["送审的版本。", "送审后又写了一些。"]);
  });

  it("a rename from the chapter manager waits too, with the author's working copy", async () => {
    const c = await publishedThenWatched();
    const notice = await runChapterManagerAction(c.author.id, c.workId, { intent: "rename", chapterId: c.chapterId, title: "第一章 改名" } as never);
    expect(notice).toBe(STUDIO_MESSAGES.editHeld);
    expect((await getChapterByOrder(c.workId, 1))?.title).toBe("第一章 原题");
    const [item] = await edits(c.chapterId);
    expect([item.editTitle, item.editContent]).toEqual(["第一章 改名", "原来的第一段。\n原来的第二段。"]);
    await decide(item.id, "approve");
    expect((await getChapterByOrder(c.workId, 1))?.title).toBe("第一章 改名");
  });

  it("an empty text is refused as before and nothing is held", async () => {
    const c = await publishedThenWatched();
    const refused = await domainError(save(c, "   "));
    expect(refused.message).toBe(STUDIO_MESSAGES.contentRequired);
    expect(await edits(c.chapterId)).toEqual([]);
  });
});

describe("an edit by a trusted author", () => {
  it("goes out at once, unless it holds a 审核 word; a later edit that goes out withdraws the one waiting", async () => {
    const c = await publishedThenWatched({ watched: false });
    expect((await save(c, "信任作者的修改。")).editHeld).toBe(false);
    expect((await getChapterByOrder(c.workId, 1))?.content).toBe("信任作者的修改。");

    expect((await save(c, "这次含有修改待审词。")).editHeld).toBe(true);
    expect((await getChapterByOrder(c.workId, 1))?.content).toBe("信任作者的修改。");
    const [item] = await edits(c.chapterId);
    expect(item.reason).toBe("含待审词语");

    await save(c, "换成干净的修改。");
    expect((await getChapterByOrder(c.workId, 1))?.content).toBe("换成干净的修改。");
    expect((await edits(c.chapterId)).map((i) => i.status)).toEqual(["withdrawn"]);
    // A rename by a trusted author goes out too.
    expect(await renameChapter(c.author.id, c.workId, c.chapterId, "第一章 直接改名")).toBe("renamed");
    expect((await getChapterByOrder(c.workId, 1))?.title).toBe("第一章 直接改名");
  });
});

describe("textDiff", () => {
  it("gives a rewritten text whole, coarser past its time limit, and a small change word by word", () => {
    expect(textDiff("他走进了房间。", "他慢慢走进了房间。").filter((p) => p.added).map((p) => p.value)).toEqual(["慢慢"]);
    const before = Array.from({ length: 3000 }, (_, i) => `旧的第${i}句。`).join("\n");
    const after = Array.from({ length: 3000 }, (_, i) => `新写的第${i}行字。`).join("\n");
    const started = performance.now();
    const parts = textDiff(before, after);
    // Two timeouts at most, with room for a slow machine (a bound on the fallback, not a benchmark).
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(parts.filter((p) => p.removed).map((p) => p.value).join("")).toBe(before);
    expect(parts.filter((p) => p.added).map((p) => p.value).join("")).toBe(after);
  });
});
