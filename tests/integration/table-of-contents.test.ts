import { asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters } from "~/db/schema";
import { parseTocOrder, tableOfContents, TOC_PAGE_SIZE } from "~/server/reading/reader.server";
import { createVolume } from "~/server/studio/chapters.server";
import { createWork } from "~/server/catalog/works.server";
import { createUser } from "../fixtures/accounts";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

let owner: { id: string };
beforeAll(async () => {
  owner = await createUser();
});

/** A completed work of `n` chapters 第1章 … 第n章. */
async function work(n: number) {
  const list = Array.from({ length: n }, (_, i) => ({ title: `第${i + 1}章`, content: `内容${i + 1}` }));
  const w = await createWork(owner.id, { ...base, title: "长篇", type: "multi_chapter", status: "completed" }, list, null);
  const ids = (await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, w.id)).orderBy(asc(chapters.position), asc(chapters.id))).map((r) => r.id);
  return { id: w.id, ids };
}

describe("the table of contents' order (docs/product.md#reading)", () => {
  it("reads ?order=: desc is 倒序, anything else 正序", () => {
    expect(parseTocOrder("desc")).toBe("desc");
    expect(parseTocOrder("asc")).toBe("asc");
    expect(parseTocOrder(null)).toBe("asc");
    expect(parseTocOrder("DESC; drop table")).toBe("asc");
  });

  it("倒序 lists the newest first, 100 a page, each chapter keeping its number; 最新章节 is the newest on every page", async () => {
    const { id } = await work(TOC_PAGE_SIZE + 5);
    const first = await tableOfContents(id, false, 1, "desc");
    expect(first.order).toBe("desc");
    expect(first.pageCount).toBe(2);
    expect(first.chapters.slice(0, 2).map((c) => [c.order, c.title])).toEqual([[105, "第105章"], [104, "第104章"]]);
    expect(first.chapters.at(-1)).toMatchObject({ order: 6, title: "第6章" });
    const second = await tableOfContents(id, false, 2, "desc");
    expect(second.chapters.map((c) => [c.order, c.title])).toEqual([5, 4, 3, 2, 1].map((n) => [n, `第${n}章`]));
    for (const page of [first, second, await tableOfContents(id, false, 1), await tableOfContents(id, false, 2)]) {
      expect(page.latest).toEqual({ title: "第105章", order: 105 });
    }
    // 正序 as before.
    expect((await tableOfContents(id, false, 1)).chapters.slice(0, 2).map((c) => c.order)).toEqual([1, 2]);
  });

  it("shows each 卷 heading where its volume starts in the order read: before its first chapter, or in 倒序 its last", async () => {
    const { id, ids } = await work(6);
    const v1 = await createVolume(owner.id, id, "第一卷", ids[0]);
    const v2 = await createVolume(owner.id, id, "第二卷", ids[3]);
    expect((await tableOfContents(id, false, 1, "asc")).volumes).toEqual([
      { id: v1, title: "第一卷", at: 1 },
      { id: v2, title: "第二卷", at: 4 },
    ]);
    expect((await tableOfContents(id, false, 1, "desc")).volumes).toEqual([
      { id: v1, title: "第一卷", at: 3 },
      { id: v2, title: "第二卷", at: 6 },
    ]);
  });
});
