import { and, asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { chapters, readingProgress, volumes, works } from "~/db/schema";
import { action as managerAction, loader as managerLoader } from "~/routes/shell/studio/chapters";
import { action as newChapterAction } from "~/routes/shell/studio/chapter-new";
import { getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { DomainError } from "~/server/platform/errors.server";
import { getProgress, saveProgress, tableOfContents } from "~/server/reading/reader.server";
import {
  createVolume,
  deleteChapter,
  deleteVolume,
  insertChapter,
  managerPage,
  moveChapter,
  moveChapterToVolume,
  moveVolume,
  renameChapter,
  stepChapter,
} from "~/server/studio/chapters.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { createWork } from "~/server/catalog/works.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { callThroughRoutes, statusOf } from "./route-chain";
import { domainError } from "../fixtures/domain-error";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

function imported(userId: string, n: number) {
  const list = Array.from({ length: n }, (_, i) => ({ title: `第${i + 1}章`, content: `内容${i + 1}` }));
  return createWork(userId, { ...base, title: "导入长篇", type: "multi_chapter", status: "completed" }, list, null);
}
async function titles(workId: number) {
  const rows = await db.select({ title: chapters.title }).from(chapters).where(eq(chapters.workId, workId)).orderBy(asc(chapters.position), asc(chapters.id));
  return rows.map((r) => r.title);
}
async function rowsOf(workId: number) {
  return db.select().from(chapters).where(eq(chapters.workId, workId)).orderBy(asc(chapters.position), asc(chapters.id));
}
async function idOf(workId: number, title: string) {
  return (await rowsOf(workId)).find((r) => r.title === title)!.id;
}
async function post(handler: (args: never) => unknown, cookie: string, path: string, fields: Record<string, string>) {
  try {
    return (await callThroughRoutes(handler, { request: userRequest(cookie, path, fields) })) as unknown;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

let owner: { id: string };
let other: { id: string };
let reader: { id: string };
beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
  reader = await createUser();
});

describe("moving chapters", () => {
  it("moves the last chapter first writing one row, and the readers' numbers follow the order", async () => {
    const work = await imported(owner.id, 6);
    const before = await rowsOf(work.id);
    await moveChapter(owner.id, work.id, before[5].id, 1);
    expect(await titles(work.id)).toEqual(["第6章", "第1章", "第2章", "第3章", "第4章", "第5章"]);
    const after = await rowsOf(work.id);
    // Only the moved row has a new position.
    expect(after.filter((r) => before.find((b) => b.id === r.id)!.position !== r.position).map((r) => r.title)).toEqual(["第6章"]);
    // ?chapter=1 is now the moved chapter; the table of contents numbers by order.
    expect((await getChapterByOrder(work.id, 1))?.title).toBe("第6章");
    expect((await tableOfContents(work.id, false)).chapters.map((c) => [c.order, c.title]).slice(0, 2)).toEqual([[1, "第6章"], [2, "第1章"]]);
  });

  it("moves to a place in the middle, up and down, and to the last place", async () => {
    const work = await imported(owner.id, 5);
    await moveChapter(owner.id, work.id, await idOf(work.id, "第1章"), 3);
    expect(await titles(work.id)).toEqual(["第2章", "第3章", "第1章", "第4章", "第5章"]);
    await moveChapter(owner.id, work.id, await idOf(work.id, "第2章"), 5);
    expect(await titles(work.id)).toEqual(["第3章", "第1章", "第4章", "第5章", "第2章"]);
    await stepChapter(owner.id, work.id, await idOf(work.id, "第4章"), "up");
    await stepChapter(owner.id, work.id, await idOf(work.id, "第3章"), "down");
    expect(await titles(work.id)).toEqual(["第4章", "第3章", "第1章", "第5章", "第2章"]);
    expect((await domainError(stepChapter(owner.id, work.id, await idOf(work.id, "第4章"), "up"))).message).toBe("已经是第一章了");
    expect((await domainError(stepChapter(owner.id, work.id, await idOf(work.id, "第2章"), "down"))).message).toBe("已经是最后一章了");
  });

  it("refuses place 0 and a place past the end with a message, and changes nothing", async () => {
    const work = await imported(owner.id, 3);
    const id = await idOf(work.id, "第2章");
    expect((await domainError(moveChapter(owner.id, work.id, id, 0))).message).toBe("请输入1到3之间的位置");
    expect((await domainError(moveChapter(owner.id, work.id, id, 4))).message).toBe("请输入1到3之间的位置");
    expect(await titles(work.id)).toEqual(["第1章", "第2章", "第3章"]);
  });

  it("renumbers only a few neighbours when a gap is used up", async () => {
    const work = await imported(owner.id, 200);
    const target = await idOf(work.id, "第100章");
    let changedMost = 0;
    for (let i = 0; i < 40; i++) {
      const before = new Map((await rowsOf(work.id)).map((r) => [r.id, r.position]));
      await insertChapter(owner.id, work.id, { title: `插入${i}`, content: "新" }, { at: 100 });
      const changed = (await rowsOf(work.id)).filter((r) => before.has(r.id) && before.get(r.id) !== r.position).length;
      changedMost = Math.max(changedMost, changed);
    }
    const list = await titles(work.id);
    expect(list.length).toBe(240);
    // Each insert took place 100, so the latest is first and 第100章 follows the oldest.
    expect(list.slice(99, 140)).toEqual([...Array.from({ length: 40 }, (_, i) => `插入${39 - i}`), "第100章"]);
    expect(list.indexOf("第99章")).toBe(98);
    expect(target).toBeTruthy();
    expect(changedMost).toBeGreaterThan(0);
    expect(changedMost).toBeLessThan(40);
  });
});

describe("inserting, renaming, editing and deleting", () => {
  it("inserts at a place with counts kept; refuses a single-chapter work, long titles and empty text", async () => {
    const work = await imported(owner.id, 3);
    await insertChapter(owner.id, work.id, { title: "插曲", content: "一二三四" }, { at: 2 });
    expect(await titles(work.id)).toEqual(["第1章", "插曲", "第2章", "第3章"]);
    const [row] = await db.select().from(works).where(eq(works.id, work.id));
    expect([row.chapterCount, row.wordCount]).toEqual([4, 3 * 3 + 4]);
    expect((await domainError(insertChapter(owner.id, work.id, { title: "末", content: "文" }, { at: 6 }))).message).toBe("请输入1到5之间的位置");
    expect((await domainError(insertChapter(owner.id, work.id, { title: "长".repeat(101), content: "文" }, { at: 1 }))).message).toBe("章节标题不能超过100个字");
    expect((await domainError(insertChapter(owner.id, work.id, { title: "空", content: "  \n " }, { at: 1 }))).message).toBe("请输入章节内容");
    const single = await createWork(owner.id, { ...base, title: "单章", type: "single_chapter", status: "completed" }, [{ title: "正文", content: "文" }], null);
    expect((await domainError(insertChapter(owner.id, single.id, { title: "二", content: "文" }, "end"))).message).toBe("单章作品只有一章，不能添加章节");
    const [only] = await rowsOf(single.id);
    expect((await domainError(deleteChapter(owner.id, single.id, only.id))).message).toBe("作品至少要保留一个已发布的章节");
    expect(await titles(work.id)).toEqual(["第1章", "插曲", "第2章", "第3章"]);
  });

  it("renames and edits a chapter of an imported work (docs/product.md D12); 100 characters at most", async () => {
    const work = await imported(owner.id, 2);
    const id = await idOf(work.id, "第2章");
    await renameChapter(owner.id, work.id, id, "  第二章 归来  ");
    await saveChapter(owner.id, work.id, id, { kind: "save", title: "第二章 归来", content: "改过的正文" });
    const row = (await rowsOf(work.id))[1];
    expect([row.title, row.content, row.wordCount]).toEqual(["第二章 归来", "改过的正文", 5]);
    expect((await domainError(renameChapter(owner.id, work.id, id, "长".repeat(101)))).message).toBe("章节标题不能超过100个字");
    expect((await domainError(renameChapter(owner.id, work.id, id, " "))).message).toBe("请输入章节标题");
  });

  it("deletes a chapter: readers there continue at the next chapter, and positions elsewhere survive reorders", async () => {
    const work = await imported(owner.id, 4);
    const [c1, c2, c3, c4] = await rowsOf(work.id);
    const someoneElse = await createUser();
    await saveProgress(reader.id, work.id, c2.id, 7);
    await saveProgress(someoneElse.id, work.id, c4.id, 3);
    // A reorder keeps the saved chapter; the link follows its new number.
    await moveChapter(owner.id, work.id, c4.id, 1);
    expect(await getProgress(someoneElse.id, work.id)).toMatchObject({ chapterOrder: 1, chapterTitle: "第4章", paragraph: 3 });
    await deleteChapter(owner.id, work.id, c2.id);
    expect(await titles(work.id)).toEqual(["第4章", "第1章", "第3章"]);
    expect(await getProgress(reader.id, work.id)).toMatchObject({ chapterTitle: "第3章", chapterOrder: 3, paragraph: 0 });
    // The last chapter's readers go back to the one before it.
    await deleteChapter(owner.id, work.id, c3.id);
    expect(await getProgress(reader.id, work.id)).toMatchObject({ chapterTitle: "第1章", chapterOrder: 2 });
    const [row] = await db.select().from(works).where(eq(works.id, work.id));
    expect(row.chapterCount).toBe(2);
    expect(c1).toBeTruthy();
  });

  it("refuses another user's work and a chapter of another work with 404, changing nothing", async () => {
    const work = await imported(owner.id, 3);
    const elsewhere = await imported(owner.id, 2);
    const foreign = (await rowsOf(elsewhere.id))[0].id;
    const mine = (await rowsOf(work.id))[0].id;
    expect((await domainError(moveChapter(other.id, work.id, mine, 2))).status).toBe(404);
    expect((await domainError(deleteChapter(other.id, work.id, mine))).status).toBe(404);
    expect((await domainError(renameChapter(other.id, work.id, mine, "偷改"))).status).toBe(404);
    const e = await domainError(moveChapter(owner.id, work.id, foreign, 1));
    expect([e.status, e.message]).toEqual([404, "章节不存在"]);
    expect((await domainError(deleteChapter(owner.id, work.id, foreign))).status).toBe(404);
    expect(await titles(work.id)).toEqual(["第1章", "第2章", "第3章"]);
    expect(await titles(elsewhere.id)).toEqual(["第1章", "第2章"]);
  });
});

describe("volumes", () => {
  it("groups chapters into volumes, moves chapters and volumes between them, and removes a heading", async () => {
    const work = await imported(owner.id, 6);
    const ids = (await rowsOf(work.id)).map((r) => r.id);
    const v1 = await createVolume(owner.id, work.id, "第一卷", ids[0]);
    const v2 = await createVolume(owner.id, work.id, "第二卷", ids[3]);
    const shape = async () =>
      (await managerPage(owner.id, work.id, 1)).rows.map((r) => (r.kind === "volume" ? `[${r.title}]` : r.title));
    expect(await shape()).toEqual(["[第一卷]", "第1章", "第2章", "第3章", "[第二卷]", "第4章", "第5章", "第6章"]);
    // The first chapter of a volume steps up into the end of the one before.
    await stepChapter(owner.id, work.id, ids[3], "up");
    expect(await shape()).toEqual(["[第一卷]", "第1章", "第2章", "第3章", "第4章", "[第二卷]", "第5章", "第6章"]);
    await stepChapter(owner.id, work.id, ids[3], "down");
    expect(await shape()).toEqual(["[第一卷]", "第1章", "第2章", "第3章", "[第二卷]", "第4章", "第5章", "第6章"]);
    await moveChapterToVolume(owner.id, work.id, ids[0], v2);
    expect(await shape()).toEqual(["[第一卷]", "第2章", "第3章", "[第二卷]", "第4章", "第5章", "第6章", "第1章"]);
    await moveVolume(owner.id, work.id, v2, "up");
    expect(await shape()).toEqual(["[第二卷]", "第4章", "第5章", "第6章", "第1章", "[第一卷]", "第2章", "第3章"]);
    expect((await domainError(moveVolume(owner.id, work.id, v2, "up"))).message).toBe("已经是第一卷了");
    // Moving to a place lands in the volume of the chapter it takes the place of.
    await moveChapter(owner.id, work.id, ids[1], 1);
    expect(await shape()).toEqual(["[第二卷]", "第2章", "第4章", "第5章", "第6章", "第1章", "[第一卷]", "第3章"]);
    // The reader's table of contents shows the headings before their first chapter.
    expect((await tableOfContents(work.id, false)).volumes).toEqual([
      { id: v2, title: "第二卷", at: 1 },
      { id: v1, title: "第一卷", at: 6 },
    ]);
    await deleteVolume(owner.id, work.id, v1);
    expect(await shape()).toEqual(["[第二卷]", "第2章", "第4章", "第5章", "第6章", "第1章", "第3章"]);
    expect(await db.select().from(volumes).where(eq(volumes.id, v1))).toEqual([]);
  });
});

describe("/works/:id/chapters", () => {
  it("answers the owner's forms with a notice, bad input with a Chinese 4xx, another user with 404", async () => {
    const work = await imported(owner.id, 3);
    const cookie = await sessionCookieFor(owner.id);
    const path = `/works/${work.id}/chapters`;
    const [c1, , c3] = await rowsOf(work.id);
    const ok = await post(managerAction, cookie, path, { intent: "move", chapterId: String(c3.id), to: "1", page: "1" });
    expect(statusOf(ok)).toBe(302);
    expect((ok as Response).headers.get("Location")).toBe(`${path}?page=1#c-${c3.id}`);
    for (const [fields, status, message] of [
      [{ intent: "move", chapterId: String(c1.id), to: "0" }, 400, "位置不能小于1"],
      [{ intent: "move", chapterId: String(c1.id), to: "abc" }, 400, "请输入有效的位置（从1开始的整数）"],
      [{ intent: "move", chapterId: String(c1.id), to: "9" }, 400, "请输入1到3之间的位置"],
      [{ intent: "rename", chapterId: String(c1.id), title: "长".repeat(101) }, 400, "章节标题不能超过100个字"],
      [{ intent: "delete", chapterId: "999999999" }, 404, "章节不存在"],
      [{ intent: "explode", chapterId: String(c1.id) }, 400, undefined],
    ] as const) {
      const result = await post(managerAction, cookie, path, fields);
      expect(statusOf(result), JSON.stringify(fields)).toBe(status);
      const error = (result as { data: { error: string } }).data.error;
      if (message) expect(error).toBe(message);
      else expect(error).toMatch(/[\u4e00-\u9fff]/);
    }
    expect(await titles(work.id)).toEqual(["第3章", "第1章", "第2章"]);
    const stranger = await post(managerAction, await sessionCookieFor(other.id), path, { intent: "delete", chapterId: String(c1.id) });
    expect(statusOf(stranger)).toBe(404);
    await expect(callThroughRoutes(managerLoader, { request: userRequest(await sessionCookieFor(other.id), path) })).rejects.toSatisfy(
      (r: unknown) => (r as { init?: { status?: number } }).init?.status === 404,
    );
    expect(await titles(work.id)).toEqual(["第3章", "第1章", "第2章"]);
  });

  it("inserts a new chapter at a place from the new-chapter form", async () => {
    const work = await imported(owner.id, 2);
    const cookie = await sessionCookieFor(owner.id);
    const result = await post(newChapterAction, cookie, `/works/${work.id}/chapters/new`, { title: "楔子", content: "开篇", at: "1" });
    expect(statusOf(result)).toBe(302);
    expect(await titles(work.id)).toEqual(["楔子", "第1章", "第2章"]);
    const refused = await post(newChapterAction, cookie, `/works/${work.id}/chapters/new`, { title: "尾声", content: "完", at: "0" });
    expect(statusOf(refused)).toBe(400);
    expect(await titles(work.id)).toEqual(["楔子", "第1章", "第2章"]);
  });
});

describe("two tabs reordering at once", () => {
  it("never corrupts the order: every chapter once, distinct positions, the result of some serial order", async () => {
    const work = await imported(owner.id, 30);
    const ids = (await rowsOf(work.id)).map((r) => r.id);
    // Two connections on PostgreSQL (a pool), PGlite takes them in turn.
    const moves = Array.from({ length: 12 }, (_, i) => ({ id: ids[(i * 7) % 30], to: ((i * 11) % 30) + 1 }));
    const results = await Promise.allSettled(moves.map((m) => moveChapter(owner.id, work.id, m.id, m.to)));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const rows = await rowsOf(work.id);
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(ids));
    expect(new Set(rows.map((r) => r.position)).size).toBe(30);

    // Two tabs moving different chapters to the first place: one ends first, the other second.
    const [a, b] = [rows[10].id, rows[20].id];
    await Promise.all([moveChapter(owner.id, work.id, a, 1), moveChapter(owner.id, work.id, b, 1)]);
    const top = (await rowsOf(work.id)).slice(0, 2).map((r) => r.id);
    expect(new Set(top)).toEqual(new Set([a, b]));
    if (databaseKind === "postgres") expect(top).toHaveLength(2);
  });

  it("keeps reading progress pointing at live chapters while deletes and moves race", async () => {
    const work = await imported(owner.id, 10);
    const rows = await rowsOf(work.id);
    await saveProgress(reader.id, work.id, rows[4].id, 2);
    const results = await Promise.allSettled([
      deleteChapter(owner.id, work.id, rows[4].id),
      moveChapter(owner.id, work.id, rows[5].id, 1),
      deleteChapter(owner.id, work.id, rows[5].id),
    ]);
    // The move may come after the chapter's delete: then it is told 章节不存在, nothing else.
    for (const r of results) {
      if (r.status === "rejected") expect([r.reason instanceof DomainError, (r.reason as DomainError).message]).toEqual([true, "章节不存在"]);
    }
    expect(results.filter((r, i) => i !== 1 && r.status === "rejected")).toEqual([]);
    const [progress] = await db
      .select()
      .from(readingProgress)
      .where(and(eq(readingProgress.userId, reader.id), eq(readingProgress.workId, work.id)));
    const live = (await rowsOf(work.id)).map((r) => r.id);
    expect(live).toContain(progress.chapterId);
  });
});
