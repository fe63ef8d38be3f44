import { and, asc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { chapterSummaries, chapters, plotThreads, prompts, storyEntities, storyEntityNames, storyFacts, storyProposals, summaryJobs } from "~/db/schema";
import { action as bibleAction, loader as bibleLoader } from "~/routes/shell/studio/bible";
import { loader as chaptersLoader } from "~/routes/shell/studio/chapters";
import { loader as contextLoader } from "~/routes/shell/studio/context";
import { loader as seriesLoader } from "~/routes/shell/writing/series-writing";
import { SERIES_MESSAGES } from "~/schemas/series";
import { BIBLE_MESSAGES, SUMMARY_REQUEST_IDS } from "~/schemas/bible";
import { deletePrompt, updatePrompt } from "~/server/admin/prompts.server";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { fakeTokenCount, type FakeAiProvider } from "../fakes/ai-provider";
import {
  BIBLE_PAGE_SIZE,
  bibleScreen,
  deleteEntity,
  overdueThreads,
  saveChapterSummary,
  saveEntity,
  saveFact,
  saveThread,
  saveVolumeSummary,
  setAiSummaries,
  setThreadStatus,
} from "~/server/studio/bible.server";
import { createVolume, deleteChapter, insertChapter } from "~/server/studio/chapters.server";
import { assembleContinuationContext, DEFAULT_CONTEXT_TOKENS } from "~/server/studio/context.server";
import {
  acceptProposal,
  claimSummaryJob,
  parseSummaryReply,
  rejectProposal,
  runSummaryJobs,
  SUMMARY_JOB_ATTEMPTS,
  SUMMARY_MESSAGES,
} from "~/server/studio/summary-jobs.server";
import { CHAPTER_PUBLISHED_TOPIC, subscribe } from "~/server/platform/events.server";
import { startSummaryJobs, stopSummaryJobs } from "~/server/jobs/summary-poller.server";
import { createWork } from "~/server/catalog/works.server";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { aiRows, setTokens, tokensOf } from "./ai-helpers";
import { statusOf, bodyOf, callAs } from "./route-chain";
import { testActor } from "./admin-fixtures";
import { waitFor } from "../fixtures/wait";
import { useFakeAiProvider } from "../fixtures/fake-ai";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

function serial(userId: string, n: number, text = (i: number) => `第${i}章的正文。`) {
  const list = Array.from({ length: n }, (_, i) => ({ title: `第${i + 1}章`, content: text(i + 1) }));
  return createWork(userId, { ...base, title: "长夜行", type: "series", status: "ongoing" }, list, null);
}
async function chapterIds(workId: number) {
  const rows = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, workId)).orderBy(asc(chapters.position), asc(chapters.id));
  return rows.map((r) => r.id);
}

let owner: { id: string };
let other: { id: string };
let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f));
beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
});

describe("story bible: entities and facts", () => {
  it("keeps names and aliases unique within a work, and a refused save changes nothing", async () => {
    const work = await serial(owner.id, 3);
    const linWan = await saveEntity(owner.id, work.id, { kind: "character", name: " 林晚 ", aliases: "阿晚，林姑娘、阿晚", description: "女主角" });
    const names = await db.select().from(storyEntityNames).where(eq(storyEntityNames.entityId, linWan));
    expect(names.map((n) => [n.name, n.isAlias]).sort()).toEqual([["林姑娘", true], ["林晚", false], ["阿晚", true]]);

    // An alias another entity has: a clear message naming who has it; no second entity.
    const shared = await domainError(saveEntity(owner.id, work.id, { kind: "character", name: "沈舟", aliases: "阿晚" }));
    expect(shared.status).toBe(409);
    expect(shared.message).toBe("名称或别名「阿晚」已被「林晚」使用");
    expect(shared.field).toBe("aliases");
    const entities = await db.select().from(storyEntities).where(eq(storyEntities.workId, work.id));
    expect(entities.map((e) => e.name)).toEqual(["林晚"]);

    // Editing the entity to drop an alias frees it for another.
    await saveEntity(owner.id, work.id, { id: linWan, kind: "character", name: "林晚", aliases: ["林姑娘"], description: "" });
    const shenZhou = await saveEntity(owner.id, work.id, { kind: "character", name: "沈舟", aliases: "阿晚" });
    expect(shenZhou).toBeGreaterThan(linWan);
    // A failed edit keeps the old names (林晚 keeps 林姑娘 after trying to take 阿晚).
    expect((await domainError(saveEntity(owner.id, work.id, { id: linWan, kind: "character", name: "林晚", aliases: "阿晚" }))).status).toBe(409);
    const kept = await db.select({ name: storyEntityNames.name }).from(storyEntityNames).where(eq(storyEntityNames.entityId, linWan));
    expect(kept.map((k) => k.name).sort()).toEqual(["林姑娘", "林晚"]);

    // Another work may use the same names.
    const otherWork = await serial(owner.id, 1);
    await saveEntity(owner.id, otherWork.id, { kind: "character", name: "林晚", aliases: "阿晚" });

    expect((await domainError(saveEntity(owner.id, work.id, { kind: "character", name: "   ", aliases: "" }))).message).toBe(BIBLE_MESSAGES.nameRequired);
    expect((await domainError(saveEntity(owner.id, work.id, { kind: "place", name: "长".repeat(51), aliases: "" }))).message).toBe(BIBLE_MESSAGES.nameTooLong);
    expect((await domainError(saveEntity(owner.id, work.id, { kind: "monster" as never, name: "怪", aliases: "" }))).message).toBe(BIBLE_MESSAGES.kindInvalid);
    // Someone else's work is not found; so is an entity of another work.
    expect((await domainError(saveEntity(other.id, work.id, { kind: "character", name: "路人", aliases: "" }))).status).toBe(404);
    expect((await domainError(deleteEntity(owner.id, otherWork.id, linWan))).status).toBe(404);
  });

  it("two tabs giving the same alias to two new entities at once: one wins, the other is refused whole", async () => {
    const work = await serial(owner.id, 1);
    const results = await Promise.allSettled([
      saveEntity(owner.id, work.id, { kind: "character", name: "甲", aliases: "同名" }),
      saveEntity(owner.id, work.id, { kind: "character", name: "乙", aliases: "同名" }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason.status).toBe(409);
    const entities = await db.select({ name: storyEntities.name }).from(storyEntities).where(eq(storyEntities.workId, work.id));
    expect(entities).toHaveLength(1);
    const names = await db.select({ name: storyEntityNames.name }).from(storyEntityNames).where(eq(storyEntityNames.workId, work.id));
    expect(names.map((n) => n.name).sort()).toEqual([entities[0].name, "同名"].sort());
  });

  it("checks a fact's chapter range and its entity", async () => {
    const work = await serial(owner.id, 2);
    const entity = await saveEntity(owner.id, work.id, { kind: "character", name: "老周", aliases: "" });
    const backwards = await domainError(saveFact(owner.id, work.id, { entityId: entity, content: "受伤", fromChapter: 40, untilChapter: 37 }));
    expect([backwards.status, backwards.message, backwards.field]).toEqual([400, BIBLE_MESSAGES.rangeBackwards, "untilChapter"]);
    expect((await domainError(saveFact(owner.id, work.id, { entityId: entity, content: "受伤", fromChapter: 0 }))).message).toBe(BIBLE_MESSAGES.chapterNumber);
    expect((await domainError(saveFact(owner.id, work.id, { entityId: entity, content: "  " }))).message).toBe(BIBLE_MESSAGES.factRequired);
    const elsewhere = await serial(other.id, 1);
    const foreign = await saveEntity(other.id, elsewhere.id, { kind: "item", name: "剑", aliases: "" });
    expect((await domainError(saveFact(owner.id, work.id, { entityId: foreign, content: "断了" }))).status).toBe(404);
    expect(await db.select().from(storyFacts).where(eq(storyFacts.entityId, entity))).toHaveLength(0);

    const fact = await saveFact(owner.id, work.id, { entityId: entity, content: "双目失明", fromChapter: 37 });
    await saveFact(owner.id, work.id, { id: fact, entityId: entity, content: "双目失明", fromChapter: 37, untilChapter: 37 });
    const [row] = await db.select().from(storyFacts).where(eq(storyFacts.id, fact));
    expect([row.fromChapter, row.untilChapter, row.source]).toEqual([37, 37, "author"]);
    // Deleting the entity takes its facts and names.
    await deleteEntity(owner.id, work.id, entity);
    expect(await db.select().from(storyFacts).where(eq(storyFacts.entityId, entity))).toHaveLength(0);
  });

  it("answers the screen's bad input with Chinese messages and 4xx, and others' works with 404", async () => {
    const work = await serial(owner.id, 2);
    const cookie = await sessionCookieFor(owner.id);
    const path = `/works/${work.id}/bible`;
    const entity = await saveEntity(owner.id, work.id, { kind: "character", name: "林晚", aliases: "阿晚" });

    const shared = await callAs(bibleAction, cookie, path, { intent: "entity-save", kind: "character", name: "沈舟", aliases: "阿晚", description: "" });
    expect(statusOf(shared)).toBe(409);
    expect(bodyOf<{ error: string }>(shared).error).toBe("名称或别名「阿晚」已被「林晚」使用");
    const backwards = await callAs(bibleAction, cookie, path, { intent: "fact-save", entityId: String(entity), content: "失明", fromChapter: "9", untilChapter: "3" });
    expect([statusOf(backwards), bodyOf<{ error: string }>(backwards).error]).toEqual([400, BIBLE_MESSAGES.rangeBackwards]);
    const notNumber = await callAs(bibleAction, cookie, path, { intent: "fact-save", entityId: String(entity), content: "失明", fromChapter: "三" });
    expect([statusOf(notNumber), bodyOf<{ error: string }>(notNumber).error]).toEqual([400, BIBLE_MESSAGES.chapterNumber]);
    const unknown = await callAs(bibleAction, cookie, path, { intent: "drop-tables" });
    expect([statusOf(unknown), bodyOf<{ error: string }>(unknown).error]).toEqual([400, BIBLE_MESSAGES.unknownAction]);
    const due = await callAs(bibleAction, cookie, path, { intent: "thread-save", title: "三年之约", note: "", plantedChapter: "5", dueChapter: "2" });
    expect([statusOf(due), bodyOf<{ error: string }>(due).error]).toEqual([400, BIBLE_MESSAGES.dueBeforePlanted]);
    expect(await db.select().from(plotThreads).where(eq(plotThreads.workId, work.id))).toHaveLength(0);

    const added = await callAs(bibleAction, cookie, path, { intent: "fact-save", entityId: String(entity), content: "双目失明", fromChapter: "37", untilChapter: "" });
    expect(statusOf(added)).toBe(302);
    expect((added as Response).headers.get("Location")).toBe(`${path}#e-${entity}`);

    const otherCookie = await sessionCookieFor(other.id);
    expect(statusOf(await callAs(bibleLoader, otherCookie, path))).toBe(404);
    expect(statusOf(await callAs(bibleAction, otherCookie, path, { intent: "entity-save", kind: "character", name: "路人", aliases: "", description: "" }))).toBe(404);
    expect(statusOf(await callAs(contextLoader, otherCookie, `/works/${work.id}/context`))).toBe(404);

    const page = bodyOf<Awaited<ReturnType<typeof bibleScreen>>>(await callAs(bibleLoader, cookie, path));
    expect(page.entities?.entities[0]).toMatchObject({ name: "林晚", aliases: ["阿晚"], facts: [{ content: "双目失明", fromChapter: 37, untilChapter: null }] });
  });
});

describe("the bible screen's pages", () => {
  type Screen = Awaited<ReturnType<typeof bibleScreen>>;
  it("lists BIBLE_PAGE_SIZE entities or threads a page: page 2 holds what page 1 does not, and a save goes back to its page", async () => {
    const work = await serial(owner.id, 3);
    const cookie = await sessionCookieFor(owner.id);
    const path = `/works/${work.id}/bible`;
    const count = BIBLE_PAGE_SIZE + 5;
    const ids: number[] = [];
    for (let i = 1; i <= count; i++) ids.push(await saveEntity(owner.id, work.id, { kind: "character", name: `角色${i}`, aliases: `阿${i}` }));
    await saveFact(owner.id, work.id, { entityId: ids.at(-1)!, content: "最后一位的事实" });
    for (let i = 1; i <= count; i++) await saveThread(owner.id, work.id, { title: `伏笔${i}`, plantedChapter: 1, dueChapter: i });

    const load = async (query: string) => bodyOf<Screen>(await callAs(bibleLoader, cookie, `${path}${query}`));
    const first = (await load("")).entities!;
    const second = (await load("?page=2")).entities!;
    expect([first.page, first.pageCount, first.total, second.page]).toEqual([1, 2, count, 2]);
    expect(first.entities.map((e) => e.name)).toEqual(Array.from({ length: BIBLE_PAGE_SIZE }, (_, i) => `角色${i + 1}`));
    expect(second.entities.map((e) => e.name)).toEqual(Array.from({ length: 5 }, (_, i) => `角色${BIBLE_PAGE_SIZE + i + 1}`));
    // Each page brings its own entities' aliases and facts.
    expect(second.entities.at(-1)).toMatchObject({ aliases: [`阿${count}`], facts: [{ content: "最后一位的事实" }] });
    // A page past the last shows the last; nonsense shows the first.
    expect((await load("?page=99")).entities!.page).toBe(2);
    expect((await load("?page=abc")).entities!.page).toBe(1);

    const threadsFirst = (await load("?tab=threads")).threads!;
    const threadsSecond = (await load("?tab=threads&page=2")).threads!;
    expect([threadsFirst.threads.length, threadsSecond.threads.length, threadsSecond.total]).toEqual([BIBLE_PAGE_SIZE, 5, count]);
    expect(threadsSecond.threads.map((t) => t.title)).toEqual(Array.from({ length: 5 }, (_, i) => `伏笔${BIBLE_PAGE_SIZE + i + 1}`));
    expect(threadsFirst.threads.some((t) => threadsSecond.threads.some((u) => u.id === t.id))).toBe(false);
    // The badge counts every overdue thread, not only this page's: due by chapter 1..3, 3 are published.
    expect((await load("?tab=threads&page=2")).overdue).toBe(3);

    // Saving an entity listed on page 2 (from page 1's address) goes back to page 2, to its card.
    const last = ids.at(-1)!;
    const saved = await callAs(bibleAction, cookie, path, { intent: "entity-save", id: String(last), kind: "character", name: `角色${count}`, aliases: "", description: "改过" });
    expect((saved as Response).headers.get("Location")).toBe(`${path}?page=2#e-${last}`);
    const thread = threadsSecond.threads[0];
    const resolved = await callAs(bibleAction, cookie, `${path}?tab=threads`, { intent: "thread-status", id: String(thread.id), status: "resolved" });
    // Resolved threads sort after the open ones: still on page 2.
    expect((resolved as Response).headers.get("Location")).toBe(`${path}?tab=threads&page=2#t-${thread.id}`);
    // A deletion stays on the page it was made from.
    const deleted = await callAs(bibleAction, cookie, `${path}?page=2`, { intent: "entity-delete", id: String(ids[BIBLE_PAGE_SIZE]) });
    expect((deleted as Response).headers.get("Location")).toBe(`${path}?page=2`);
    expect((await load("?page=2")).entities!.entities.map((e) => e.name)).toEqual(Array.from({ length: 4 }, (_, i) => `角色${BIBLE_PAGE_SIZE + i + 2}`));
  });
});

describe("plot threads and summaries", () => {
  it("flags open threads whose due chapter is published, in the chapter manager too", async () => {
    const work = await serial(owner.id, 5);
    const overdue = await saveThread(owner.id, work.id, { title: "三年之约", plantedChapter: 1, dueChapter: 4 });
    await saveThread(owner.id, work.id, { title: "玉佩的来历", plantedChapter: 2, dueChapter: 9 });
    const resolved = await saveThread(owner.id, work.id, { title: "失踪的信", plantedChapter: 1, dueChapter: 3 });
    await setThreadStatus(owner.id, work.id, resolved, "resolved");
    expect((await overdueThreads(work.id)).map((t) => t.id)).toEqual([overdue]);
    const manager = bodyOf<{ overdue: { title: string }[] }>(await callAs(chaptersLoader, await sessionCookieFor(owner.id), `/works/${work.id}/chapters`));
    expect(manager.overdue.map((t) => t.title)).toEqual(["三年之约"]);
    expect((await domainError(saveThread(owner.id, work.id, { title: "", plantedChapter: 1 }))).message).toBe(BIBLE_MESSAGES.threadTitleRequired);
    expect((await domainError(saveThread(owner.id, work.id, { title: "x" }))).message).toBe(BIBLE_MESSAGES.plantedRequired);
    expect((await domainError(setThreadStatus(other.id, work.id, overdue, "resolved"))).status).toBe(404);
  });

  it("saves chapter and volume summaries, refuses a deleted chapter's and another work's", async () => {
    const work = await serial(owner.id, 3);
    const [c1, c2] = await chapterIds(work.id);
    await saveChapterSummary(owner.id, work.id, c1, "  林晚离开小镇。 ");
    expect((await db.select().from(chapterSummaries).where(eq(chapterSummaries.chapterId, c1)))[0].summary).toBe("林晚离开小镇。");
    await saveChapterSummary(owner.id, work.id, c1, "");
    expect(await db.select().from(chapterSummaries).where(eq(chapterSummaries.chapterId, c1))).toHaveLength(0);

    await deleteChapter(owner.id, work.id, c2);
    const gone = await domainError(saveChapterSummary(owner.id, work.id, c2, "不存在的章节"));
    expect([gone.status, gone.message]).toEqual([404, BIBLE_MESSAGES.chapterGone]);
    const elsewhere = await serial(other.id, 1);
    const [foreign] = await chapterIds(elsewhere.id);
    expect((await domainError(saveChapterSummary(owner.id, work.id, foreign, "别人的章节"))).status).toBe(404);
    expect(await db.select().from(chapterSummaries).where(eq(chapterSummaries.workId, work.id))).toHaveLength(0);

    const volume = await createVolume(owner.id, work.id, "第一卷", c1);
    await saveVolumeSummary(owner.id, work.id, volume, "小镇篇");
    expect((await domainError(saveVolumeSummary(owner.id, work.id, volume + 999, "x"))).message).toBe(BIBLE_MESSAGES.volumeGone);
    expect((await domainError(saveChapterSummary(owner.id, work.id, c1, "长".repeat(2001)))).message).toBe(BIBLE_MESSAGES.summaryTooLong);
  });
});

describe("assembleContinuationContext (本次上下文)", () => {
  it("sends the plan, summaries, the facts in force for named entities, open threads and the previous ending", async () => {
    const work = await serial(owner.id, 40, (i) => (i === 40 ? `${"雨一直下。".repeat(300)}\n老周摸索着走到门口，阿晚扶住了他。` : `第${i}章正文。`));
    const ids = await chapterIds(work.id);
    await createVolume(owner.id, work.id, "第一卷 小镇", ids[0]);
    const volume2 = await createVolume(owner.id, work.id, "第二卷 京城", ids[20]);
    for (let i = 0; i < 40; i++) await saveChapterSummary(owner.id, work.id, ids[i], `第${i + 1}章摘要：${"事".repeat(100)}`);
    await saveVolumeSummary(owner.id, work.id, volume2, "林晚进京，老周受伤。");

    const zhou = await saveEntity(owner.id, work.id, { kind: "character", name: "周伯", aliases: "老周" });
    await saveFact(owner.id, work.id, { entityId: zhou, content: "双目失明", fromChapter: 37 });
    await saveFact(owner.id, work.id, { entityId: zhou, content: "能看见远处的灯", untilChapter: 36 });
    await saveFact(owner.id, work.id, { entityId: zhou, content: "将在第50章死去", fromChapter: 50 });
    const lin = await saveEntity(owner.id, work.id, { kind: "character", name: "林晚", aliases: "阿晚" });
    await saveFact(owner.id, work.id, { entityId: lin, content: "左手有疤" });
    const shen = await saveEntity(owner.id, work.id, { kind: "character", name: "沈舟", aliases: "" });
    await saveFact(owner.id, work.id, { entityId: shen, content: "已经离开京城" });
    const place = await saveEntity(owner.id, work.id, { kind: "place", name: "清河镇", aliases: "" });
    await saveFact(owner.id, work.id, { entityId: place, content: "被大水淹过" });
    await saveThread(owner.id, work.id, { title: "三年之约", note: "沈舟许诺回来", plantedChapter: 3, dueChapter: 40 });
    await saveThread(owner.id, work.id, { title: "玉佩", plantedChapter: 10 });
    const done = await saveThread(owner.id, work.id, { title: "失踪的信", plantedChapter: 1, dueChapter: 5 });
    await setThreadStatus(owner.id, work.id, done, "resolved");
    await saveThread(owner.id, work.id, { title: "以后的事", plantedChapter: 60 });

    const context = await assembleContinuationContext(work.id, 41, "清河镇来了客人。");
    const user = context.prompt.user;
    expect(user).toContain("请为《长夜行》续写第41章");
    expect(user).toContain("清河镇来了客人。");
    // Named in the plan (清河镇) or the previous ending (老周, 阿晚): their facts in force at 41.
    expect(context.namedEntities.sort()).toEqual(["周伯", "林晚", "清河镇"].sort());
    expect(user).toContain("【周伯】角色（又称：老周）");
    expect(user).toContain("- 从第37章起：双目失明");
    expect(user).not.toContain("能看见远处的灯");
    expect(user).not.toContain("将在第50章死去");
    expect(user).toContain("左手有疤");
    expect(user).toContain("被大水淹过");
    expect(user).not.toContain("沈舟】");
    // Open threads planted by now, the overdue one first; not the resolved one or a later one.
    expect(user).toContain("- 三年之约（第3章埋下，应在第40章前回收，已逾期）：沈舟许诺回来");
    expect(user).toContain("- 玉佩（第10章埋下，未定回收章节）");
    expect(user).not.toContain("失踪的信");
    expect(user).not.toContain("以后的事");
    // Recent chapters in full (31..40), older ones by volume: 21..30 by 第二卷's summary, 1..20 briefly.
    expect(user).toContain(`第40章：第40章摘要：${"事".repeat(100)}`);
    expect(user).toContain(`第31章：第31章摘要`);
    expect(user).toContain("【第二卷 京城】林晚进京，老周受伤。");
    expect(user).not.toContain("第25章：");
    expect(user).toContain(`第1章：第1章摘要：${"事".repeat(74)}…`);
    expect(user).toContain("老周摸索着走到门口，阿晚扶住了他。");
    expect(context.sections.find((s) => s.key === "earlier-summaries")).toMatchObject({ available: 21, included: 21 });
    expect(context.estimatedTokens).toBe(Math.ceil(context.chars / 4));
    expect(context.budgetTokens).toBe(DEFAULT_CONTEXT_TOKENS);

    // A small budget drops the older summaries first, then the recent ones, keeping the ending and the facts.
    const small = await assembleContinuationContext(work.id, 41, "清河镇来了客人。", { budgetTokens: context.estimatedTokens - 300 });
    expect(small.estimatedTokens).toBeLessThanOrEqual(context.estimatedTokens - 300);
    const earlier = small.sections.find((s) => s.key === "earlier-summaries")!;
    expect(earlier.included).toBeLessThan(earlier.available);
    expect(small.prompt.user).toContain("双目失明");
    expect(small.prompt.user).toContain("第40章：");
    expect(small.prompt.user).not.toContain("第1章：");
    const summaryChars = context.sections.filter((s) => s.key.endsWith("summaries")).reduce((n, s) => n + s.text.length, 0);
    const tinyBudget = Math.ceil((context.chars - summaryChars) / 4);
    const tiny = await assembleContinuationContext(work.id, 41, "清河镇来了客人。", { budgetTokens: tinyBudget });
    expect(tiny.sections.find((s) => s.key === "recent-summaries")!.included).toBe(0);
    expect(tiny.sections.find((s) => s.key === "earlier-summaries")!.included).toBeLessThan(21);
    expect(tiny.prompt.user).toContain("阿晚扶住了他");
    expect(tiny.prompt.user).toContain("三年之约");
    expect(tiny.estimatedTokens).toBeLessThanOrEqual(tinyBudget);
    // Smaller still: the previous ending is cut from its start, the plan stays.
    const cut = await assembleContinuationContext(work.id, 41, "清河镇来了客人。", { budgetTokens: tinyBudget - 200 });
    expect(cut.prompt.user).toContain("阿晚扶住了他");
    expect(cut.prompt.user).toContain("清河镇来了客人。");
    expect(cut.estimatedTokens).toBeLessThanOrEqual(tinyBudget - 200);

    // At chapter 20 the blindness is not yet in force, and 能看见远处的灯 is.
    const early = await assembleContinuationContext(work.id, 20, "老周出门。");
    expect(early.prompt.user).toContain("能看见远处的灯");
    expect(early.prompt.user).not.toContain("双目失明");
    expect(early.prompt.user).toContain("第19章正文。");

    expect((await domainError(assembleContinuationContext(work.id, 0, ""))).message).toBe(BIBLE_MESSAGES.chapterNumber);
    expect((await domainError(assembleContinuationContext(work.id, 1.5, ""))).message).toBe(BIBLE_MESSAGES.chapterNumber);
    expect((await domainError(assembleContinuationContext(work.id, 41, "长".repeat(5001)))).message).toBe(BIBLE_MESSAGES.planTooLong);
    expect((await domainError(assembleContinuationContext(work.id, 41, "", { budgetTokens: 10 }))).message).toBe(BIBLE_MESSAGES.budgetTooSmall);

    // The page shows the same, with the admin's context size of the default API config.
    await db.execute(sql`update api_configs set context_tokens = 5000`);
    const page = bodyOf<{ result: { prompt: { user: string }; budgetTokens: number }; error: string | null }>(
      await callAs(contextLoader, await sessionCookieFor(owner.id), `/works/${work.id}/context?plan=${encodeURIComponent("清河镇来了客人。")}`),
    );
    expect(page.result.budgetTokens).toBe(5000);
    expect(page.result.prompt.user).toContain("请为《长夜行》续写第41章");
    const bad = await callAs(contextLoader, await sessionCookieFor(owner.id), `/works/${work.id}/context?chapter=abc`);
    expect([statusOf(bad), bodyOf<{ error: string }>(bad).error]).toEqual([400, BIBLE_MESSAGES.chapterNumber]);
    await db.execute(sql`update api_configs set context_tokens = ${DEFAULT_CONTEXT_TOKENS}`);
  });

  it("P04 and P10 cannot be deleted or renamed in the back office", async () => {
    const [p04] = await db.select().from(prompts).where(eq(prompts.code, "P04"));
    const refused = await domainError(deletePrompt(testActor, p04.id));
    expect([refused.status, refused.message]).toEqual([409, ADMIN_MESSAGES.builtInPromptDelete]);
    const renamed = await domainError(updatePrompt(testActor, p04.id, { code: "P99", title: p04.title, systemContent: p04.systemContent, userContent: p04.userContent, type: p04.type, isSystem: true }));
    expect([renamed.status, renamed.message]).toEqual([400, ADMIN_MESSAGES.builtInPromptCode]);
    await updatePrompt(testActor, p04.id, { code: "P04", title: "连载续写（改）", systemContent: p04.systemContent, userContent: `${p04.userContent}\n额外要求：多写对话。`, type: p04.type, isSystem: true });
    const work = await serial(owner.id, 1);
    expect((await assembleContinuationContext(work.id, 2, "")).prompt.user).toContain("额外要求：多写对话。");
    await updatePrompt(testActor, p04.id, { code: "P04", title: p04.title, systemContent: p04.systemContent, userContent: p04.userContent, type: p04.type, isSystem: true });
    expect(await db.select().from(prompts).where(eq(prompts.code, "P04"))).toHaveLength(1);
  });
});

describe("what the continuation sends, and what the pages say it sends (issue 28 section 10)", () => {
  it("总是带上 sends the protagonist though nobody names her; 从不带上 keeps a named one out; the lists are the prompt's", async () => {
    const work = await serial(owner.id, 3, (i) => (i === 3 ? "雨停了，老周推开门。" : `第${i}章的正文。`));
    const cookie = await sessionCookieFor(owner.id);
    const lin = await saveEntity(owner.id, work.id, { kind: "character", name: "林晚", aliases: "阿晚" });
    await saveFact(owner.id, work.id, { entityId: lin, content: "左手有疤" });
    const zhou = await saveEntity(owner.id, work.id, { kind: "character", name: "周伯", aliases: "老周" });
    await saveFact(owner.id, work.id, { entityId: zhou, content: "双目失明" });
    const shen = await saveEntity(owner.id, work.id, { kind: "character", name: "沈舟", aliases: "" });
    await saveFact(owner.id, work.id, { entityId: shen, content: "已经离开京城" });

    // By default only the named one (老周 ends chapter 3) is sent: the protagonist drops out.
    const before = await assembleContinuationContext(work.id, 4, "码头来了客人。");
    expect(before.entities.map((e) => e.name)).toEqual(["周伯"]);
    expect(before.prompt.user).not.toContain("左手有疤");

    // The bible form (no JavaScript needed: radio buttons) marks 林晚 总是带上 and 周伯 从不带上.
    const edit = (id: number, name: string, aliases: string, promptMode: string) =>
      callAs(bibleAction, cookie, `/works/${work.id}/bible`, { intent: "entity-save", id: String(id), kind: "character", name, aliases, description: "", promptMode });
    expect(statusOf(await edit(lin, "林晚", "阿晚", "always"))).toBe(302);
    expect(statusOf(await edit(zhou, "周伯", "老周", "never"))).toBe(302);
    const refused = await edit(shen, "沈舟", "", "sometimes");
    expect([statusOf(refused), bodyOf<{ error: string }>(refused).error]).toEqual([400, BIBLE_MESSAGES.promptModeInvalid]);
    // A save without the field (an older form) keeps the mode.
    await saveEntity(owner.id, work.id, { id: lin, kind: "character", name: "林晚", aliases: "阿晚", description: "女主角" });
    const [row] = await db.select({ promptMode: storyEntities.promptMode }).from(storyEntities).where(eq(storyEntities.id, lin));
    expect(row.promptMode).toBe("always");

    const after = await assembleContinuationContext(work.id, 4, "老周在码头等人。");
    expect(after.prompt.user).toContain("【林晚】角色（又称：阿晚）：女主角");
    expect(after.prompt.user).toContain("左手有疤");
    expect(after.prompt.user).not.toContain("双目失明");
    expect(after.prompt.user).not.toContain("已经离开京城");
    expect(after.entities).toEqual([expect.objectContaining({ name: "林晚", reason: "always", sent: true, facts: [expect.objectContaining({ content: "左手有疤" })] })]);

    // 连载续写's 「第4章有效的设定」 and 本次上下文 list exactly that set (沈舟's fact is in force but not sent).
    const series = bodyOf<{ page: { context: { entities: { name: string; facts: string[] }[] } } }>(
      await callAs(seriesLoader, cookie, `/series-writing?work=${work.id}&plan=${encodeURIComponent("老周在码头等人。")}`),
    );
    expect(series.page.context.entities.map((e) => [e.name, e.facts])).toEqual([["林晚", ["左手有疤"]]]);
    const preview = bodyOf<{ result: { view: { entities: { name: string }[] } } }>(
      await callAs(contextLoader, cookie, `/works/${work.id}/context?plan=${encodeURIComponent("老周在码头等人。")}`),
    );
    expect(preview.result.view.entities.map((e) => e.name)).toEqual(["林晚"]);

    // The bible screen shows the mode.
    const screen = bodyOf<{ entities: { entities: { name: string; promptMode: string }[] } }>(await callAs(bibleLoader, cookie, `/works/${work.id}/bible`));
    expect(screen.entities.entities.map((e) => [e.name, e.promptMode])).toEqual([["林晚", "always"], ["周伯", "never"], ["沈舟", "auto"]]);
  });

  it("names the chapters without a summary, sends recent ones as an excerpt within the budget, and 让AI补写这些摘要 queues them", async () => {
    const work = await serial(owner.id, 6, (i) => `${"前情".repeat(200)}第${i}章结尾：船靠岸了。`);
    const cookie = await sessionCookieFor(owner.id);
    const ids = await chapterIds(work.id);
    await saveChapterSummary(owner.id, work.id, ids[0], "第一章摘要。");
    await saveChapterSummary(owner.id, work.id, ids[1], "第二章摘要。");

    const context = await assembleContinuationContext(work.id, 7, "");
    expect(context.missingSummaries.map((m) => m.n)).toEqual([3, 4, 5, 6]);
    // 6 is the previous chapter: its end goes as 上一章结尾 anyway.
    expect(context.excerpts).toEqual([3, 4, 5]);
    expect(context.prompt.user).toContain("第3章（无摘要，结尾节选）：…");
    expect(context.prompt.user).toContain("第3章结尾：船靠岸了。");
    expect(context.prompt.user).toContain("第2章：第二章摘要。");
    // The excerpt is bounded (EXCERPT_CHARS), and a small budget drops the oldest first.
    const line = context.prompt.user.split("\n").find((l) => l.startsWith("第3章（无摘要"))!;
    expect(Array.from(line).length).toBeLessThan(330);
    const small = await assembleContinuationContext(work.id, 7, "", { budgetTokens: context.estimatedTokens - 100 });
    expect(small.excerpts).not.toContain(3);
    expect(small.estimatedTokens).toBeLessThanOrEqual(context.estimatedTokens - 100);

    // 本次上下文 says so, and offers the summaries; the form queues jobs and turns AI summaries on.
    const preview = bodyOf<{ result: { view: { missingSummaries: { n: number; id: number }[]; excerpts: number[] } } }>(
      await callAs(contextLoader, cookie, `/works/${work.id}/context`),
    );
    expect(preview.result.view.missingSummaries.map((m) => m.n)).toEqual([3, 4, 5, 6]);
    const chapterIdsField = preview.result.view.missingSummaries.map((m) => m.id).join(",");
    const queued = await callAs(bibleAction, cookie, `/works/${work.id}/bible`, { intent: "summaries-request", chapterIds: chapterIdsField });
    expect(statusOf(queued)).toBe(302);
    const jobs = await db.select().from(summaryJobs).where(eq(summaryJobs.workId, work.id));
    expect(jobs.map((j) => j.chapterId).sort()).toEqual(ids.slice(2).sort());
    expect(jobs.every((j) => j.state === "pending")).toBe(true);
    // Someone else cannot queue jobs on this work; a malformed list is refused.
    expect(statusOf(await callAs(bibleAction, await sessionCookieFor(other.id), `/works/${work.id}/bible`, { intent: "summaries-request", chapterIds: chapterIdsField }))).toBe(404);
    expect(statusOf(await callAs(bibleAction, cookie, `/works/${work.id}/bible`, { intent: "summaries-request", chapterIds: "1;drop" }))).toBe(400);
    // At most SUMMARY_REQUEST_IDS a request (the page sends the latest ones).
    const tooMany = Array.from({ length: SUMMARY_REQUEST_IDS + 1 }, (_, i) => i + 1).join(",");
    expect(statusOf(await callAs(bibleAction, cookie, `/works/${work.id}/bible`, { intent: "summaries-request", chapterIds: tooMany }))).toBe(400);
    const { works } = await import("~/db/schema");
    const [{ aiSummaries }] = await db.select({ aiSummaries: works.aiSummaries }).from(works).where(eq(works.id, work.id));
    expect(aiSummaries).toBe(true);
    // The jobs are the background runner's (tested below); the next tests count theirs alone.
    await db.delete(summaryJobs).where(eq(summaryJobs.workId, work.id));
  });

  it("本次上下文 refuses a chapter past the next one in Chinese (第9章 of 3)", async () => {
    const work = await serial(owner.id, 3);
    const cookie = await sessionCookieFor(owner.id);
    const ninth = await callAs(contextLoader, cookie, `/works/${work.id}/context?chapter=9`);
    expect([statusOf(ninth), bodyOf<{ error: string; result: unknown }>(ninth).error]).toEqual([400, SERIES_MESSAGES.chapterRange(4)]);
    expect(bodyOf<{ result: unknown }>(ninth).result).toBeNull();
    expect(statusOf(await callAs(contextLoader, cookie, `/works/${work.id}/context?chapter=4`))).toBe(200);
  });
});

describe("AI summaries after publication (background job)", () => {
  const reply = JSON.stringify({ 摘要: "老周在雨夜失明，林晚决定留下。", 设定: [{ 名称: "老周", 类型: "角色", 内容: "双目失明" }, { 名称: "青石巷", 类型: "地点", 内容: "积水成河" }] });

  async function publishOne(workId: number, title = "新的一章") {
    return insertChapter(owner.id, workId, { title, content: "雨夜，老周看不见了。林晚扶着他。", release: { mode: "now" } }, "end");
  }

  it("runs only when turned on, proposes a summary and facts, charges the reported usage, and the author accepts or rejects", async () => {
    await setTokens(owner.id, 100_000);
    const work = await serial(owner.id, 2);
    await publishOne(work.id, "关着时");
    expect(await db.select().from(summaryJobs).where(eq(summaryJobs.workId, work.id))).toHaveLength(0);

    await setAiSummaries(owner.id, work.id, true);
    const zhou = await saveEntity(owner.id, work.id, { kind: "character", name: "周伯", aliases: "老周" });
    const chapterId = await publishOne(work.id);
    const before = await tokensOf(owner.id);
    fake.enqueue({ reply });
    expect(await runSummaryJobs()).toBe(1);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].user).toContain("第4章「新的一章」");
    expect(fake.requests[0].user).toContain("已有的设定名称：周伯（老周）");
    const [job] = await db.select().from(summaryJobs).where(eq(summaryJobs.chapterId, chapterId));
    expect([job.state, job.attempts]).toEqual(["done", 1]);
    const charged = fakeTokenCount(fake.requests[0].system + fake.requests[0].user) + fakeTokenCount(reply);
    expect(before - (await tokensOf(owner.id))).toBe(charged);
    expect((await aiRows(owner.id)).at(-1)).toMatchObject({ metering: "actual", description: "章节摘要：新的一章" });

    const proposals = await db.select().from(storyProposals).where(eq(storyProposals.workId, work.id)).orderBy(asc(storyProposals.id));
    expect(proposals.map((p) => [p.kind, p.entityName, p.content, p.fromChapter])).toEqual([
      ["summary", null, "老周在雨夜失明，林晚决定留下。", null],
      ["fact", "老周", "双目失明", 4],
      ["fact", "青石巷", "积水成河", 4],
    ]);
    await acceptProposal(owner.id, work.id, proposals[0].id);
    expect((await db.select().from(chapterSummaries).where(eq(chapterSummaries.chapterId, chapterId)))[0].summary).toBe("老周在雨夜失明，林晚决定留下。");
    // 老周 is an alias of 周伯: the fact goes to him, from chapter 4.
    await acceptProposal(owner.id, work.id, proposals[1].id);
    const facts = await db.select().from(storyFacts).where(eq(storyFacts.entityId, zhou));
    expect(facts.map((f) => [f.content, f.fromChapter, f.source])).toEqual([["双目失明", 4, "ai"]]);
    await rejectProposal(owner.id, work.id, proposals[2].id);
    expect(await db.select().from(storyProposals).where(eq(storyProposals.workId, work.id))).toHaveLength(0);
    expect((await domainError(acceptProposal(owner.id, work.id, proposals[2].id))).message).toBe(BIBLE_MESSAGES.proposalNotFound);
    expect(await runSummaryJobs()).toBe(0);
  });

  it("skips an author without tokens with a visible reason and no charge", async () => {
    const poor = await createUser();
    await setTokens(poor.id, 0);
    const work = await createWork(poor.id, { ...base, title: "穷作者", type: "series", status: "ongoing" }, [{ title: "一", content: "正文" }], null);
    await setAiSummaries(poor.id, work.id, true);
    await insertChapter(poor.id, work.id, { title: "二", content: "又一章。", release: { mode: "now" } }, "end");
    const rowsBefore = (await aiRows(poor.id)).length;
    expect(await runSummaryJobs()).toBe(1);
    expect(fake.requests).toHaveLength(0);
    const [job] = await db.select().from(summaryJobs).where(eq(summaryJobs.workId, work.id));
    expect([job.state, job.reason]).toEqual(["skipped", SUMMARY_MESSAGES.noTokens]);
    expect(await tokensOf(poor.id)).toBe(0);
    expect(await aiRows(poor.id)).toHaveLength(rowsBefore);
    const view = await bibleScreen(poor.id, work.id, "summaries", 1);
    expect(view.jobs[0]).toMatchObject({ state: "skipped", reason: SUMMARY_MESSAGES.noTokens });
  });

  it("a provider failure never blocks publishing, refunds, and is retried with backoff up to the limit", async () => {
    await setTokens(owner.id, 100_000);
    const work = await serial(owner.id, 1);
    await setAiSummaries(owner.id, work.id, true);
    const chapterId = await publishOne(work.id);
    expect((await db.select().from(chapters).where(eq(chapters.id, chapterId)))[0].state).toBe("published");
    const balance = await tokensOf(owner.id);
    const due = () => db.execute(sql`update summary_jobs set next_attempt_at = now() where chapter_id = ${chapterId}`);

    fake.enqueue({ status: 429 });
    expect(await runSummaryJobs()).toBe(1);
    let [job] = await db.select().from(summaryJobs).where(eq(summaryJobs.chapterId, chapterId));
    expect([job.state, job.attempts]).toEqual(["pending", 1]);
    expect(job.reason).toBeTruthy();
    expect(job.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(await tokensOf(owner.id)).toBe(balance);
    // Not due yet: nothing runs.
    expect(await runSummaryJobs()).toBe(0);

    // An unreadable reply is a failure too.
    await due();
    fake.enqueue({ reply: "我不会输出 JSON" });
    expect(await runSummaryJobs()).toBe(1);
    [job] = await db.select().from(summaryJobs).where(eq(summaryJobs.chapterId, chapterId));
    expect([job.state, job.attempts, job.reason]).toEqual(["pending", 2, SUMMARY_MESSAGES.unreadable]);
    expect(await tokensOf(owner.id)).toBe(balance);

    for (let attempt = 3; attempt <= SUMMARY_JOB_ATTEMPTS; attempt++) {
      await due();
      fake.enqueue({ status: 429 });
      await runSummaryJobs();
    }
    [job] = await db.select().from(summaryJobs).where(eq(summaryJobs.chapterId, chapterId));
    expect([job.state, job.attempts]).toEqual(["failed", SUMMARY_JOB_ATTEMPTS]);
    expect(job.reason).toMatch(/^多次尝试失败，已放弃：/);
    expect(await tokensOf(owner.id)).toBe(balance);
    await due();
    expect(await runSummaryJobs()).toBe(0);
  });

  it("each job runs exactly once when two workers claim at once (two connections on PostgreSQL)", async () => {
    await setTokens(owner.id, 1_000_000);
    const work = await serial(owner.id, 1);
    await setAiSummaries(owner.id, work.id, true);
    const jobs = 6;
    for (let i = 0; i < jobs; i++) await publishOne(work.id, `并发${i}`);
    for (let i = 0; i < jobs; i++) fake.enqueue({ reply, headersDelayMs: 50 });
    const before = (await aiRows(owner.id)).length;

    // Two claims at once take different jobs (FOR UPDATE SKIP LOCKED), never the same one.
    const [a, b] = await Promise.all([claimSummaryJob(), claimSummaryJob()]);
    expect(a && b && a.id !== b.id).toBe(true);
    await db.execute(sql`update summary_jobs set locked_until = null, attempts = 0 where work_id = ${work.id}`);

    const [x, y] = await Promise.all([runSummaryJobs(), runSummaryJobs()]);
    expect(x + y).toBe(jobs);
    if (databaseKind === "postgres") expect(Math.min(x, y)).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(jobs);
    const rows = await db.select().from(summaryJobs).where(eq(summaryJobs.workId, work.id));
    expect(rows.map((r) => [r.state, r.attempts])).toEqual(Array.from({ length: jobs }, () => ["done", 1]));
    const summaries = await db
      .select()
      .from(storyProposals)
      .where(and(eq(storyProposals.workId, work.id), eq(storyProposals.kind, "summary")));
    expect(summaries).toHaveLength(jobs);
    expect((await aiRows(owner.id)).length - before).toBe(jobs);
  });

  it("the background runner picks up a publication on its own and stops cleanly", async () => {
    await setTokens(owner.id, 100_000);
    const work = await serial(owner.id, 1);
    await setAiSummaries(owner.id, work.id, true);
    fake.enqueue({ reply });
    startSummaryJobs(60_000);
    // The process listens for events once; this resolves when it does (the runner's own
    // subscription is registered at once and shares that listening).
    const off = await subscribe(CHAPTER_PUBLISHED_TOPIC, () => {});
    try {
      const chapterId = await publishOne(work.id, "自动摘要");
      // Woken by the chapter-published event, not the (one-minute) timer.
      await waitFor(
        "the summary job to be done",
        async () => (await db.select({ state: summaryJobs.state }).from(summaryJobs).where(eq(summaryJobs.chapterId, chapterId)))[0]?.state === "done",
        { timeout: 10_000, interval: 100 },
      );
      const [job] = await db.select().from(summaryJobs).where(eq(summaryJobs.chapterId, chapterId));
      expect([job.state, job.attempts, job.reason]).toEqual(["done", 1, null]);
      expect(await db.select().from(storyProposals).where(eq(storyProposals.chapterId, chapterId))).toHaveLength(3);
    } finally {
      off();
      await stopSummaryJobs();
    }
  });

  it("reads the AI's reply leniently and refuses one without a summary", () => {
    expect(parseSummaryReply("```json\n" + reply + "\n```").facts.map((f) => f.kind)).toEqual(["character", "place"]);
    expect(() => parseSummaryReply('{"设定": []}')).toThrow();
    expect(() => parseSummaryReply("没有JSON")).toThrow();
  });
});
