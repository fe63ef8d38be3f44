import { and, asc, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, writingDays, writingTargets } from "~/db/schema";
import { action as deskAction, loader as deskLoader } from "~/routes/shell/studio/desk";
import { DESK_MESSAGES } from "~/schemas/desk-rules";
import { saveChapterSummary, saveEntity, saveThread, setThreadStatus } from "~/server/studio/bible.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { saveState, waiveFinding, chapterFindings } from "~/server/studio/continuity.server";
import { deskView, setDailyTarget, type DeskView } from "~/server/studio/desk.server";
import { recordWritten } from "~/server/studio/writing-days.server";
import { createWork } from "~/server/catalog/works.server";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { bodyOf, locationOf, statusOf, callAs } from "./route-chain";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

async function serial(userId: string, n: number, content = (i: number) => `第${i + 1}章的正文。`) {
  const list = Array.from({ length: n }, (_, i) => ({ title: `第${i + 1}章`, content: content(i) }));
  const work = await createWork(userId, { ...base, title: "写作台", type: "series", status: "ongoing" }, list, null);
  const rows = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(asc(chapters.position), asc(chapters.id));
  return { workId: work.id, ids: rows.map((r) => r.id) };
}

/** Sets chapters' 字数 and publication time (China noon of `day`) as if they had come out then. */
async function publishedOn(ids: number[], day: string, words: number) {
  await db
    .update(chapters)
    .set({ wordCount: words, publishAt: new Date(`${day}T04:00:00Z`) })
    .where(inArray(chapters.id, ids));
}


let owner: { id: string };
let other: { id: string };
beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
});

// 2026-03-31 12:00 in China.
const NOON = new Date("2026-03-31T04:00:00Z");

describe("存稿 at the author's pace", () => {
  it("averages the numbered chapters published in the last 30 China days and divides the 存稿 by it", async () => {
    const { workId, ids } = await serial(owner.id, 32);
    // 2 chapters a day from 03-17 to 03-31 (15 days × 2 × 3,000 = 90,000 字) and 2 before the window.
    for (let d = 0; d < 15; d++) await publishedOn(ids.slice(d * 2, d * 2 + 2), `2026-03-${String(17 + d).padStart(2, "0")}`, 3000);
    await publishedOn(ids.slice(30), "2026-02-28", 9000);
    // A 请假条 published in the window counts for nothing.
    const leave = await insertChapter(owner.id, workId, { title: "请假一天", content: "今天请假。", kind: "leave", release: { mode: "now" } }, "end");
    await publishedOn([leave], "2026-03-30", 500);
    // 存稿: two scheduled chapters and a draft (not a notice).
    const tomorrow = new Date(Date.now() + 86_400_000);
    for (const title of ["定时一", "定时二"]) await insertChapter(owner.id, workId, { title, content: "定时的正文。", release: { mode: "at", at: tomorrow } }, "end");
    const draft = await insertChapter(owner.id, workId, { title: "存稿", content: "还在写。", release: { mode: "draft" } }, "end");
    const stock = await db.select({ id: chapters.id }).from(chapters).where(and(eq(chapters.workId, workId), inArray(chapters.state, ["scheduled", "draft"])));
    await db.update(chapters).set({ wordCount: 4000 }).where(inArray(chapters.id, stock.map((s) => s.id)));
    await db.update(chapters).set({ wordCount: 2500 }).where(eq(chapters.id, draft));

    const view = await deskView(owner.id, workId, NOON);
    // The window is 30 days (03-02..03-31) though the work is older: 90,000 / 30 = 3,000 a day.
    expect(view.pace).toEqual({ days: 30, words: 90_000, perDay: 3000 });
    expect([view.stock.scheduled.chapters, view.stock.scheduled.words, view.stock.drafts]).toEqual([2, 8000, { chapters: 1, words: 2500 }]);
    expect(view.stock.scheduled.last?.getTime()).toBe(tomorrow.getTime());
    // (8,000 + 2,500) / 3,000 = 3.5: three whole days.
    expect(view.stock.daysLeft).toBe(3);

    // On 04-15 (China time) the window is 03-17..04-15: all of it; at 04-16 00:00 03-17's 6,000 字 leave it.
    expect((await deskView(owner.id, workId, new Date("2026-04-15T15:59:00Z"))).pace.words).toBe(90_000);
    expect((await deskView(owner.id, workId, new Date("2026-04-15T16:00:00Z"))).pace.words).toBe(84_000);
    const later = await deskView(owner.id, workId, new Date("2026-05-01T04:00:00Z"));
    expect([later.pace.perDay, later.stock.daysLeft]).toEqual([0, null]);
  });

  it("averages a work younger than the window over its own days, today included", async () => {
    const { workId, ids } = await serial(owner.id, 3);
    await publishedOn(ids, "2026-03-27", 5000);
    await insertChapter(owner.id, workId, { title: "存稿", content: "存稿。", release: { mode: "draft" } }, "end");
    await db.update(chapters).set({ wordCount: 9000 }).where(and(eq(chapters.workId, workId), eq(chapters.state, "draft")));
    const view = await deskView(owner.id, workId, NOON);
    // 03-27..03-31: 5 days, 15,000 字.
    expect(view.pace).toEqual({ days: 5, words: 15_000, perDay: 3000 });
    expect(view.stock.daysLeft).toBe(3);
    // Before the first chapter's day is over it is one day of 15,000.
    expect((await deskView(owner.id, workId, new Date("2026-03-27T10:00:00Z"))).pace).toEqual({ days: 1, words: 15_000, perDay: 15_000 });
  });
});

describe("overdue 伏笔", () => {
  it("lists open threads whose due chapter is out, and those with none planted 100 chapters ago, not resolved or future ones", async () => {
    const { workId } = await serial(owner.id, 102, () => "正文。");
    const due = await saveThread(owner.id, workId, { title: "玉佩的来历", plantedChapter: 3, dueChapter: 50 });
    const dueNow = await saveThread(owner.id, workId, { title: "师父的下落", plantedChapter: 10, dueChapter: 102 });
    await saveThread(owner.id, workId, { title: "还没到", plantedChapter: 10, dueChapter: 103 });
    const resolved = await saveThread(owner.id, workId, { title: "已回收", plantedChapter: 1, dueChapter: 5 });
    await setThreadStatus(owner.id, workId, resolved, "resolved");
    const long = await saveThread(owner.id, workId, { title: "黑衣人", plantedChapter: 2 });
    // Planted at 3 with 102 out: 99 chapters, not yet long.
    await saveThread(owner.id, workId, { title: "未满百章", plantedChapter: 3 });

    const view = await deskView(owner.id, workId, NOON);
    expect(view.threads.published).toBe(102);
    expect(view.threads.total).toBe(3);
    expect(view.threads.overdue.map((t) => [t.id, t.reason])).toEqual([
      [long, "long"],
      [due, "due"],
      [dueNow, "due"],
    ]);
  });
});

describe("the last chapter's hook and the open findings", () => {
  it("shows the end of the last numbered chapter, a draft too, with its summary; and the open findings by chapter", async () => {
    const { workId, ids } = await serial(owner.id, 3);
    await saveChapterSummary(owner.id, workId, ids[2], "林晚收到一封信。");
    let view = await deskView(owner.id, workId, NOON);
    expect(view.hook).toMatchObject({ chapterId: ids[2], label: "第3章", state: "published", paragraph: "第3章的正文。", summary: "林晚收到一封信。" });

    const draft = await insertChapter(owner.id, workId, { title: "雨夜", content: "雨下了一夜。\n\n门外有人敲了三下。", release: { mode: "draft" } }, "end");
    // A notice after it is not the story's end.
    await insertChapter(owner.id, workId, { title: "请假", content: "明天请假。", kind: "leave", release: { mode: "now" } }, "end");
    view = await deskView(owner.id, workId, NOON);
    expect(view.hook).toMatchObject({ chapterId: draft, label: "雨夜", state: "draft", paragraph: "门外有人敲了三下。", cut: false, summary: null });

    // A long last paragraph shows its end.
    await saveChapter(owner.id, workId, draft, { kind: "save", content: `开头。\n\n${"长".repeat(400)}最后一句。` });
    view = await deskView(owner.id, workId, NOON);
    expect([view.hook?.cut, view.hook?.paragraph.length, view.hook?.paragraph.endsWith("最后一句。")]).toEqual([true, 300, true]);

    // Two findings in two chapters; one waived (有意安排) is not open.
    const zhou = await saveEntity(owner.id, workId, { kind: "character", name: "周伯", aliases: "老周" });
    await saveState(owner.id, workId, { entityId: zhou, kind: "life", chapter: 1, value: "死亡" });
    const fourth = await insertChapter(owner.id, workId, { title: "夜归", content: "老周说：“你回来了。”", release: { mode: "now" } }, "end");
    const fifth = await insertChapter(owner.id, workId, { title: "再会", content: "老周说：“又见面了。”", release: { mode: "now" } }, "end");
    view = await deskView(owner.id, workId, NOON);
    expect(view.findings).toEqual({
      open: 2,
      chapters: [
        { chapterId: fifth, number: 5, title: "第5章 再会", open: 1 },
        { chapterId: fourth, number: 4, title: "第4章 夜归", open: 1 },
      ],
    });
    const [finding] = await chapterFindings(workId, fourth);
    await waiveFinding(owner.id, workId, finding.id, "托梦");
    expect((await deskView(owner.id, workId, NOON)).findings).toEqual({ open: 1, chapters: [{ chapterId: fifth, number: 5, title: "第5章 再会", open: 1 }] });
  });
});

describe("today's 字数", () => {
  it("counts the net 字数 of each China-time day: 23:59 and 00:01 fall on two days", async () => {
    const { workId } = await serial(owner.id, 1);
    await recordWritten(db, workId, 500, new Date("2026-03-31T15:59:00Z")); // 03-31 23:59
    await recordWritten(db, workId, 300, new Date("2026-03-31T16:01:00Z")); // 04-01 00:01
    await recordWritten(db, workId, -50, new Date("2026-04-01T15:59:59Z")); // 04-01 23:59:59
    await recordWritten(db, workId, 0, new Date("2026-04-01T16:00:00Z")); // nothing: no row for 04-02
    expect((await deskView(owner.id, workId, new Date("2026-03-31T15:59:30Z"))).today).toEqual({ day: "2026-03-31", written: 500, target: null });
    expect((await deskView(owner.id, workId, new Date("2026-03-31T16:00:00Z"))).today).toEqual({ day: "2026-04-01", written: 250, target: null });
    expect((await deskView(owner.id, workId, new Date("2026-04-01T16:00:00Z"))).today.written).toBe(0);
    expect(await db.select({ day: writingDays.day }).from(writingDays).where(eq(writingDays.workId, workId)).orderBy(writingDays.day)).toEqual([{ day: "2026-03-31" }, { day: "2026-04-01" }]);
  });

  it("adds what the editor saves: a new chapter's text, autosaves, cuts, not a refused save or a published chapter's 保存 of its working copy", async () => {
    const { workId, ids } = await serial(owner.id, 1);
    const today = async () => (await deskView(owner.id, workId)).today.written;
    expect(await today()).toBe(0);
    const draft = await insertChapter(owner.id, workId, { title: "新章", content: "一二三四五", release: { mode: "draft" } }, "end");
    expect(await today()).toBe(5);
    let saved = await saveChapter(owner.id, workId, draft, { kind: "autosave", content: "一二三四五六七八九十", baseRevision: 0 });
    expect(await today()).toBe(10);
    saved = await saveChapter(owner.id, workId, draft, { kind: "autosave", content: "一二三 四", baseRevision: saved.revision });
    expect(await today()).toBe(4);
    // A stale save is refused and counts nothing.
    expect((await domainError(saveChapter(owner.id, workId, draft, { kind: "autosave", content: "一".repeat(100), baseRevision: 0 }))).status).toBe(409);
    expect(await today()).toBe(4);
    // A published chapter: its autosaved working copy counts when typed, its 保存 adds nothing more.
    const [published] = ids;
    const copy = await saveChapter(owner.id, workId, published, { kind: "autosave", content: "第1章的正文。新加的八个字啊", baseRevision: 0 });
    expect([copy.pending, await today()]).toEqual([true, 11]);
    await saveChapter(owner.id, workId, published, { kind: "save", content: "第1章的正文。新加的八个字啊", baseRevision: copy.revision });
    expect(await today()).toBe(11);
  });
});

describe("the daily target", () => {
  it("is set, replaced and cleared; 0, negative, not a number, empty and huge are refused with their reasons", async () => {
    const { workId } = await serial(owner.id, 1);
    const refused: [string, string][] = [
      ["0", DESK_MESSAGES.targetTooSmall],
      ["-300", DESK_MESSAGES.targetTooSmall],
      ["三千", DESK_MESSAGES.targetNotNumber],
      ["3000.5", DESK_MESSAGES.targetNotNumber],
      ["1e4", DESK_MESSAGES.targetNotNumber],
      ["  ", DESK_MESSAGES.targetRequired],
      ["50001", DESK_MESSAGES.targetTooLarge],
      ["99999999999999999999999", DESK_MESSAGES.targetTooLarge],
    ];
    for (const [raw, message] of refused) {
      const error = await domainError(setDailyTarget(owner.id, workId, raw));
      expect([raw, error.status, error.message]).toEqual([raw, 400, message]);
    }
    expect(await db.select().from(writingTargets).where(eq(writingTargets.workId, workId))).toEqual([]);
    expect(await setDailyTarget(owner.id, workId, "3000")).toBe(3000);
    // As typed on a phone: full-width digits, a thousands comma, 字.
    expect(await setDailyTarget(owner.id, workId, "４,０００字")).toBe(4000);
    expect((await deskView(owner.id, workId)).today.target).toBe(4000);
    expect(await setDailyTarget(owner.id, workId, null)).toBeNull();
    expect((await deskView(owner.id, workId)).today.target).toBeNull();
    expect((await domainError(setDailyTarget(other.id, workId, "3000"))).status).toBe(404);
  });

  it("through the page: a bad target answers 400 with its message and the text sent; a good one redirects with a notice; others get 404", async () => {
    const { workId } = await serial(owner.id, 1);
    const cookie = await sessionCookieFor(owner.id);
    const path = `/works/${workId}/desk`;
    const bad = await callAs(deskAction, cookie, path, { intent: "target-save", target: "-1" });
    expect([statusOf(bad), bodyOf(bad)]).toEqual([400, { error: DESK_MESSAGES.targetTooSmall, target: "-1" }]);
    const unknown = await callAs(deskAction, cookie, path, { intent: "nonsense" });
    expect([statusOf(unknown), bodyOf<{ error: string }>(unknown).error]).toEqual([400, DESK_MESSAGES.unknownAction]);
    const good = await callAs(deskAction, cookie, path, { intent: "target-save", target: "2500" });
    expect(locationOf(good)).toBe(path);
    const page = bodyOf<DeskView>(await callAs(deskLoader, cookie, path));
    expect([page.work.id, page.today.target]).toEqual([workId, 2500]);
    expect(statusOf(await callAs(deskAction, cookie, path, { intent: "target-clear" }))).toBe(302);
    expect(bodyOf<DeskView>(await callAs(deskLoader, cookie, path)).today.target).toBeNull();

    const stranger = await sessionCookieFor(other.id);
    expect(statusOf(await callAs(deskLoader, stranger, path))).toBe(404);
    expect(statusOf(await callAs(deskAction, stranger, path, { intent: "target-save", target: "100" }))).toBe(404);
    expect(statusOf(await callAs(deskLoader, cookie, "/works/abc/desk"))).toBe(404);
  });
});
