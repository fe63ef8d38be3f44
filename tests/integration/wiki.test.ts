import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapterPurchases, chapterSummaries, readingProgress, storyEntities, storyFacts, storyStates } from "~/db/schema";
import { getWorkForViewer } from "~/server/catalog/works.server";
import { recapFor } from "~/server/reading/recap.server";
import { wikiEntity, workWiki } from "~/server/reading/wiki.server";
import { bibleActionSchema } from "~/schemas/bible";
import { runBibleAction } from "~/server/studio/bible-actions.server";
import { setEntityWiki } from "~/server/studio/bible.server";
import { quickUsers } from "../fixtures/ledger";
import { serialByChapter, viewerOf } from "../fixtures/works";

const DAY = 86_400_000;
const COUNT = 20;
const VIP_FROM = 8;

/** A serial of 20 chapters, VIP from 第8章, each summarized. */
async function serial() {
  const [author] = await quickUsers(1);
  const { workId, chapterIds } = await serialByChapter(author.id, { count: COUNT, vipFrom: VIP_FROM });
  await db.insert(chapterSummaries).values(chapterIds.map((chapterId, i) => ({ chapterId, workId, summary: `第${i + 1}章梗概` })));
  return { author, workId, chapterIds };
}

async function character(workId: number, name: string, wikiFrom: number | null) {
  const [row] = await db.insert(storyEntities).values({ workId, kind: "character", name, description: `${name}的简介`, wikiFrom }).returning({ id: storyEntities.id });
  return row.id;
}

async function placeAt(userId: string, workId: number, chapterId: number, daysAgo = 10) {
  const updatedAt = new Date(Date.now() - daysAgo * DAY);
  await db
    .insert(readingProgress)
    .values({ userId, workId, chapterId, paragraph: 0, updatedAt })
    .onConflictDoUpdate({ target: [readingProgress.userId, readingProgress.workId], set: { chapterId, updatedAt } });
}

describe("角色百科", () => {
  it("the author opts an entity in from the chapter it appears in, and out again; a missing chapter is refused", async () => {
    const { author, workId } = await serial();
    const id = await character(workId, "林晚", null);
    await expect(runBibleAction(author.id, workId, { intent: "entity-wiki", id, enabled: "on", wikiFrom: undefined })).rejects.toThrow("请填写这个设定在第几章出场");
    const done = await runBibleAction(author.id, workId, { intent: "entity-wiki", id, enabled: "on", wikiFrom: 3 });
    expect(done.notice).toBe("已在读者百科公开：读到第3章的读者可以看到");
    expect((await workWiki(null, workId, 5)).entities.map((e) => e.name)).toEqual(["林晚"]);
    await runBibleAction(author.id, workId, { intent: "entity-wiki", id, enabled: "off" });
    expect((await workWiki(null, workId, 5)).entities).toEqual([]);
    const [stranger] = await quickUsers(1);
    await expect(setEntityWiki(stranger.id, workId, id, 1)).rejects.toMatchObject({ status: 404 });
    await expect(setEntityWiki(author.id, workId, id, 0)).rejects.toThrow("章节号必须是 1 以上的整数");
  });

  it("a reader sees what was recorded up to their chapter: not a later entity, fact, end or ledger entry, nor an undated fact", async () => {
    const { workId, chapterIds } = await serial();
    const lin = await character(workId, "林晚", 2);
    await character(workId, "沈舟", 6);
    await character(workId, "私密", null);
    await db.insert(storyFacts).values([
      { workId, entityId: lin, content: "左手受伤", fromChapter: 3, untilChapter: 4 },
      { workId, entityId: lin, content: "拜入青云宗", fromChapter: 5, untilChapter: 9 },
      { workId, entityId: lin, content: "其实是魔尊之女", fromChapter: 6 },
      { workId, entityId: lin, content: "作者备注：没有章节" },
    ]);
    await db.insert(storyStates).values([
      { workId, entityId: lin, kind: "location", chapter: 2, value: "青石镇" },
      { workId, entityId: lin, kind: "life", chapter: 6, value: "dead" },
    ]);
    const [reader] = await quickUsers(1);
    await placeAt(reader.id, workId, chapterIds[5 - 1]);
    const viewer = await viewerOf(reader.id);
    const wiki = await workWiki(viewer, workId, null);
    expect(wiki).toMatchObject({ upTo: 5, max: 5, basis: "position" });
    expect(wiki.entities.map((e) => e.name)).toEqual(["林晚"]);
    const page = await wikiEntity(viewer, workId, lin, null);
    expect(page.entries).toEqual([
      { chapter: 2, until: null, text: "位置：青石镇" },
      { chapter: 3, until: 4, text: "左手受伤" },
      // Ends at 第9章, past the reader: shown as from 第5章 only.
      { chapter: 5, until: null, text: "拜入青云宗" },
    ]);
    // Asking for more than the position gives the position; asking for less gives less.
    expect((await wikiEntity(viewer, workId, lin, 19)).upTo).toBe(5);
    expect((await wikiEntity(viewer, workId, lin, 2)).entries.map((e) => e.chapter)).toEqual([2]);
    // 沈舟 first appears at 第6章: not there for this reader, even by address.
    const shen = (await workWiki(null, workId, 7)).entities.find((e) => e.name === "沈舟")!.id;
    await expect(wikiEntity(viewer, workId, shen, null)).rejects.toMatchObject({ status: 404, message: "这个词条不存在，或在你读到的章节里还没有出场" });
  });

  it("a visitor sees chapter 1 unless they choose a later free chapter, never a VIP one; the author previews any chapter", async () => {
    const { author, workId } = await serial();
    const lin = await character(workId, "林晚", 1);
    await db.insert(storyStates).values([
      { workId, entityId: lin, kind: "location", chapter: 1, value: "地点1" },
      { workId, entityId: lin, kind: "location", chapter: 7, value: "地点7" },
      { workId, entityId: lin, kind: "location", chapter: 8, value: "地点8" },
    ]);
    expect(await wikiEntity(null, workId, lin, null)).toMatchObject({ upTo: 1, max: VIP_FROM - 1, basis: "free", entries: [{ chapter: 1 }] });
    expect((await wikiEntity(null, workId, lin, 20)).entries.map((e) => e.text)).toEqual(["位置：地点1", "位置：地点7"]);
    // A signed-in reader who has not started is a visitor here.
    const [reader] = await quickUsers(1);
    expect((await wikiEntity(await viewerOf(reader.id), workId, lin, 20)).upTo).toBe(VIP_FROM - 1);
    const preview = await wikiEntity(await viewerOf(author.id), workId, lin, null);
    expect(preview).toMatchObject({ upTo: COUNT, basis: "author" });
    expect(preview.entries.map((e) => e.chapter)).toEqual([1, 7, 8]);
    await expect(workWiki(null, 999_999_999, null)).rejects.toMatchObject({ status: 404 });
    // Bad addresses: a chapter below 1 is chapter 1, an entity that is no number is not found.
    expect((await workWiki(null, workId, -5)).upTo).toBe(1);
    await expect(wikiEntity(null, workId, Number("abc"), null)).rejects.toMatchObject({ status: 404 });
    const parsed = bibleActionSchema.safeParse({ intent: "entity-wiki", id: String(lin), enabled: "maybe", wikiFrom: "2" });
    expect(parsed.success).toBe(false);
    expect(bibleActionSchema.safeParse({ intent: "entity-wiki", id: String(lin), enabled: "on", wikiFrom: "第二章" }).error?.issues[0].message).toBe("章节号必须是 1 以上的整数");
  });

  it("neither the wiki nor the recap ever shows anything past the reader's chapter or from a paid chapter they do not own (random positions and purchases)", async () => {
    const { workId, chapterIds } = await serial();
    // Entities appearing at random chapters, each with facts and ledger entries at random
    // chapters; every text names its chapter, so what is shown can be checked against it.
    const entities: { id: number; from: number }[] = [];
    for (let i = 0; i < 8; i++) {
      const from = 1 + randomInt(COUNT);
      entities.push({ id: await character(workId, `角色${i}`, from), from });
    }
    for (const e of entities) {
      const chaptersOf = Array.from({ length: 6 }, () => 1 + randomInt(COUNT));
      await db.insert(storyFacts).values(
        chaptersOf.map((c, k) => {
          const until = randomInt(2) ? Math.min(COUNT, c + randomInt(6)) : null;
          return { workId, entityId: e.id, content: `事实@${c}#${k}`, fromChapter: c, untilChapter: until };
        }),
      );
      await db.insert(storyStates).values(
        [...new Set(chaptersOf)].map((c) => ({ workId, entityId: e.id, kind: "knowledge" as const, chapter: c, value: `知道@${c}` })),
      );
    }
    const readers = await quickUsers(30);
    for (const reader of readers) {
      const owned = new Set<number>();
      for (let order = VIP_FROM; order <= COUNT; order++) if (randomInt(3) === 0) owned.add(order);
      if (owned.size) {
        await db.insert(chapterPurchases).values([...owned].map((order) => ({ userId: reader.id, chapterId: chapterIds[order - 1], workId, price: 1 })));
      }
      const at = 1 + randomInt(COUNT);
      await placeAt(reader.id, workId, chapterIds[at - 1], 8 + randomInt(20));
      const readable = (order: number) => order <= at && (order < VIP_FROM || owned.has(order));
      const viewer = await viewerOf(reader.id);
      const context = `at 第${at}章 owning ${[...owned].join(",")}`;
      // Any chapter asked for: never more than the position.
      const asked = randomInt(2) ? null : 1 + randomInt(COUNT);
      const upTo = asked === null ? at : Math.min(asked, at);
      const wiki = await workWiki(viewer, workId, asked);
      expect(wiki.upTo, context).toBe(upTo);
      const seen = (order: number) => order <= upTo && readable(order);
      expect(wiki.entities.map((e) => e.id).sort(), context).toEqual(entities.filter((e) => seen(e.from)).map((e) => e.id).sort());
      for (const e of entities) {
        if (!seen(e.from)) {
          await expect(wikiEntity(viewer, workId, e.id, asked), context).rejects.toMatchObject({ status: 404 });
          continue;
        }
        const page = await wikiEntity(viewer, workId, e.id, asked);
        const facts = await db.query.storyFacts.findMany({ where: (f, { eq }) => eq(f.entityId, e.id) });
        const expected = facts.filter((f) => seen(f.fromChapter!)).length + new Set(facts.map((f) => f.fromChapter!).filter(seen)).size;
        expect(page.entries.length, context).toBe(expected);
        for (const entry of page.entries) {
          const recorded = Number(/@(\d+)/u.exec(entry.text)![1]);
          expect(recorded, context).toBe(entry.chapter);
          expect(seen(entry.chapter), `${context}: ${entry.text}`).toBe(true);
          if (entry.until !== null) expect(seen(entry.until), `${context}: ${entry.text} until ${entry.until}`).toBe(true);
        }
      }
      // The recap of the same reader: only chapters they reached and may read.
      const recap = await recapFor(await getWorkForViewer(workId, viewer), reader.id);
      for (const c of recap?.chapters ?? []) expect(readable(c.order), context).toBe(true);
      expect(recap?.upTo.order ?? at, context).toBe(at);
      // A visitor on the same work: only free chapters, whatever is asked.
      const visitor = await workWiki(null, workId, asked);
      expect(visitor.upTo).toBeLessThan(VIP_FROM);
      for (const e of visitor.entities) expect(e.from).toBeLessThanOrEqual(visitor.upTo);
    }
  });
});
