import { randomInt } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapterPurchases, chapterSummaries, readingProgress } from "~/db/schema";
import { getWorkForViewer } from "~/server/catalog/works.server";
import { purchaseWork } from "~/server/economy/ledger.server";
import { RECAP_CHAPTERS, recapFor } from "~/server/reading/recap.server";
import { fund, quickUsers } from "../fixtures/ledger";
import { insertWorks, serialByChapter, viewerOf } from "../fixtures/works";

const DAY = 86_400_000;
const COUNT = 20;
const VIP_FROM = 8;

/** A serial of 20 chapters, VIP from 第8章, each chapter summarized by its author. */
async function summarizedSerial() {
  const [author] = await quickUsers(1);
  const { workId, chapterIds } = await serialByChapter(author.id, { count: COUNT, vipFrom: VIP_FROM });
  await db.insert(chapterSummaries).values(chapterIds.map((chapterId, i) => ({ chapterId, workId, summary: `第${i + 1}章梗概：主角走到第${i + 1}座山。` })));
  return { author, workId, chapterIds };
}

/** The reader's position at the `order`-th chapter, saved `daysAgo` days ago. */
async function placeAt(userId: string, workId: number, chapterId: number, daysAgo: number) {
  const updatedAt = new Date(Date.now() - daysAgo * DAY);
  await db
    .insert(readingProgress)
    .values({ userId, workId, chapterId, paragraph: 0, updatedAt })
    .onConflictDoUpdate({ target: [readingProgress.userId, readingProgress.workId], set: { chapterId, updatedAt } });
}

async function recapOf(userId: string, workId: number) {
  const view = await getWorkForViewer(workId, await viewerOf(userId));
  return recapFor(view, userId);
}

describe("前情提要", () => {
  it("a reader back after 7 days gets the summaries of the last chapters read, stopping at their chapter", async () => {
    const { workId, chapterIds } = await summarizedSerial();
    const [reader] = await quickUsers(1);
    await placeAt(reader.id, workId, chapterIds[5 - 1], 8);
    const recap = await recapOf(reader.id, workId);
    expect(recap?.upTo).toEqual({ order: 5, title: "第5章" });
    expect(recap?.unread).toBe(COUNT - 5);
    expect(recap?.chapters.map((c) => c.order)).toEqual([1, 2, 3, 4, 5]);
    expect(recap?.chapters[4]).toEqual({ order: 5, title: "第5章", summary: "第5章梗概：主角走到第5座山。" });
  });

  it("is told after 10 unread chapters even the same day, and not to a reader who is reading along", async () => {
    const { workId, chapterIds } = await summarizedSerial();
    const [behind, along] = await quickUsers(2);
    await placeAt(behind.id, workId, chapterIds[7 - 1], 0);
    expect((await recapOf(behind.id, workId))?.chapters.map((c) => c.order)).toEqual([3, 4, 5, 6, 7]);
    // 第12章 leaves 8 unread, read an hour ago: no recap.
    await placeAt(along.id, workId, chapterIds[12 - 1], 0.04);
    expect(await recapOf(along.id, workId)).toBeNull();
  });

  it("is not told without a position, to the author, or when no chapter read has a summary", async () => {
    const { author, workId, chapterIds } = await summarizedSerial();
    const [reader] = await quickUsers(1);
    expect(await recapOf(reader.id, workId)).toBeNull();
    await placeAt(author.id, workId, chapterIds[3], 30);
    expect(await recapOf(author.id, workId)).toBeNull();
    const [other] = await quickUsers(1);
    const [plain] = await insertWorks([{ userId: other.id, title: "无梗概" }]);
    const { addChapter } = await import("../fixtures/works");
    const first = await addChapter(plain);
    await placeAt(reader.id, plain, first, 30);
    expect(await recapOf(reader.id, plain)).toBeNull();
  });

  it("never tells a chapter past the reader's position or a paid one they do not own (random positions and purchases)", async () => {
    const { workId, chapterIds } = await summarizedSerial();
    const readers = await quickUsers(40);
    for (const reader of readers) {
      // Each reader owns a random set of VIP chapters (rows as a purchase writes them) and
      // stands at a random chapter, some of them at one they do not own.
      const owned = new Set<number>();
      for (let order = VIP_FROM; order <= COUNT; order++) if (randomInt(3) === 0) owned.add(order);
      if (owned.size > 0) {
        await db.insert(chapterPurchases).values(
          [...owned].map((order) => ({ userId: reader.id, chapterId: chapterIds[order - 1], workId, price: 1 })),
        );
      }
      const at = 1 + randomInt(COUNT);
      await placeAt(reader.id, workId, chapterIds[at - 1], 8 + randomInt(30));
      const readable = (order: number) => order < VIP_FROM || owned.has(order);
      const expected = Array.from({ length: at }, (_, i) => i + 1).filter(readable).slice(-RECAP_CHAPTERS);
      const recap = await recapOf(reader.id, workId);
      const told = recap?.chapters.map((c) => c.order) ?? [];
      expect(told, `at 第${at}章 owning ${[...owned].join(",")}`).toEqual(expected);
      for (const order of told) {
        expect(order).toBeLessThanOrEqual(at);
        expect(readable(order)).toBe(true);
      }
    }
  });

  it("a reader who bought the whole work is told its VIP chapters too", async () => {
    const { workId, chapterIds } = await summarizedSerial();
    const [reader] = await quickUsers(1);
    // Sold whole from here on: the buyer of the work may read every chapter.
    await db.execute(sql`update works set sale_mode = 'whole', price = 10 where id = ${workId}`);
    await fund(reader.id, 100);
    await purchaseWork(reader.id, workId);
    await placeAt(reader.id, workId, chapterIds[15 - 1], 10);
    expect((await recapOf(reader.id, workId))?.chapters.map((c) => c.order)).toEqual([11, 12, 13, 14, 15]);
  });
});
