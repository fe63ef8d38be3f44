import { and, asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, continuityFindings, continuityWaivers, storyLadderRungs, storyProposals, storyStates } from "~/db/schema";
import { action as bibleAction, loader as bibleLoader } from "~/routes/shell/studio/bible";
import { action as continuityAction, loader as continuityLoader } from "~/routes/shell/studio/continuity";
import { action as editAction, loader as editLoader } from "~/routes/shell/studio/chapter-edit";
import { CONTINUITY_MESSAGES } from "~/schemas/continuity-rules";
import { saveEntity, setAiSummaries } from "~/server/studio/bible.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { chapterFindings, deleteState, saveLadder, saveState } from "~/server/studio/continuity.server";
import { acceptProposal, parseSummaryReply, runSummaryJobs } from "~/server/studio/summary-jobs.server";
import { createWork } from "~/server/catalog/works.server";
import type { FakeAiProvider } from "../fakes/ai-provider";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { useFakeAiProvider } from "../fixtures/fake-ai";
import { setTokens } from "./ai-helpers";
import { bodyOf, locationOf, statusOf, callAs } from "./route-chain";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

function serial(userId: string, n: number) {
  const list = Array.from({ length: n }, (_, i) => ({ title: `第${i + 1}章`, content: `第${i + 1}章的正文。` }));
  return createWork(userId, { ...base, title: "长夜行", type: "series", status: "ongoing" }, list, null);
}
const errorOf = (result: unknown) => bodyOf<{ error: string }>(result).error;

let owner: { id: string };
let other: { id: string };
let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f));
beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
});

describe("state ledgers", () => {
  it("records a character's states, refuses contradictions, a realm off the ladder and a ladder with a cycle, changing nothing", async () => {
    const work = await serial(owner.id, 3);
    const lin = await saveEntity(owner.id, work.id, { kind: "character", name: "林晚", aliases: "阿晚" });
    const alley = await saveEntity(owner.id, work.id, { kind: "place", name: "青石巷", aliases: "" });
    await saveLadder(owner.id, work.id, "炼气\n筑基→金丹、元婴");
    expect((await db.select().from(storyLadderRungs).where(eq(storyLadderRungs.workId, work.id)).orderBy(asc(storyLadderRungs.rank))).map((r) => r.name)).toEqual(["炼气", "筑基", "金丹", "元婴"]);

    const realm = await saveState(owner.id, work.id, { entityId: lin, kind: "realm", chapter: 2, value: "筑基" });
    // The same entry sent again is the same entry; a different one in the same chapter contradicts it.
    expect(await saveState(owner.id, work.id, { entityId: lin, kind: "realm", chapter: 2, value: "筑基" })).toBe(realm);
    const clash = await domainError(saveState(owner.id, work.id, { entityId: lin, kind: "realm", chapter: 2, value: "金丹" }));
    expect([clash.status, clash.message]).toEqual([409, CONTINUITY_MESSAGES.contradicts("境界", 2, "筑基")]);
    expect((await domainError(saveState(owner.id, work.id, { entityId: lin, kind: "realm", chapter: 3, value: "化神" }))).message).toBe(CONTINUITY_MESSAGES.notOnLadder("化神"));
    expect((await domainError(saveState(owner.id, work.id, { entityId: alley, kind: "life", chapter: 3, value: "死亡" }))).message).toBe(CONTINUITY_MESSAGES.entityKindMismatch);
    expect((await domainError(saveState(owner.id, work.id, { entityId: lin, kind: "life", chapter: 3, value: "昏迷" }))).message).toBe(CONTINUITY_MESSAGES.lifeInvalid);
    expect((await domainError(saveState(owner.id, work.id, { entityId: lin, kind: "age", chapter: 3, value: "十七" }))).message).toBe(CONTINUITY_MESSAGES.numInvalid);
    expect((await domainError(saveState(owner.id, work.id, { entityId: lin, kind: "item", chapter: 3, value: "青冥剑", action: "given" }))).message).toBe(CONTINUITY_MESSAGES.recipientRequired);
    expect((await domainError(saveState(owner.id, work.id, { entityId: lin, kind: "location", chapter: 0, value: "京城" }))).message).toBe(CONTINUITY_MESSAGES.chapterRequired);
    expect(await saveState(owner.id, work.id, { entityId: lin, kind: "age", chapter: 1, value: "16岁" })).toBeGreaterThan(0);
    // Only the author.
    expect((await domainError(saveState(other.id, work.id, { entityId: lin, kind: "location", chapter: 1, value: "京城" }))).status).toBe(404);
    expect((await domainError(deleteState(other.id, work.id, realm))).status).toBe(404);

    // A ladder with a cycle, or without a rung in use, is refused whole.
    expect((await domainError(saveLadder(owner.id, work.id, "炼气\n筑基\n炼气"))).message).toBe(CONTINUITY_MESSAGES.ladderCycle("炼气"));
    expect((await domainError(saveLadder(owner.id, work.id, "炼气\n金丹"))).message).toBe(CONTINUITY_MESSAGES.ladderInUse("筑基"));
    expect(await db.select().from(storyLadderRungs).where(eq(storyLadderRungs.workId, work.id))).toHaveLength(4);
    expect((await db.select().from(storyStates).where(eq(storyStates.workId, work.id))).map((s) => [s.kind, s.value, s.num])).toEqual([
      ["realm", "筑基", null],
      ["age", "", 16],
    ]);
  });

  it("the bible's forms record and delete states for the author only; bad input gets a Chinese message", async () => {
    const work = await serial(owner.id, 2);
    const lin = await saveEntity(owner.id, work.id, { kind: "character", name: "林晚", aliases: "" });
    const cookie = await sessionCookieFor(owner.id);
    const path = `/works/${work.id}/bible`;
    const saved = await callAs(bibleAction, cookie, path, { intent: "state-save", entityId: String(lin), kind: "life", chapter: "2", value: "死亡", action: "", note: "" });
    expect([statusOf(saved), locationOf(saved)]).toEqual([302, `${path}#e-${lin}`]);
    const bad = await callAs(bibleAction, cookie, path, { intent: "state-save", entityId: String(lin), kind: "mood", chapter: "2", value: "开心" });
    expect([statusOf(bad), errorOf(bad)]).toEqual([400, CONTINUITY_MESSAGES.kindInvalid]);
    const noChapter = await callAs(bibleAction, cookie, path, { intent: "state-save", entityId: String(lin), kind: "location", chapter: "", value: "京城" });
    expect([statusOf(noChapter), errorOf(noChapter)]).toEqual([400, CONTINUITY_MESSAGES.chapterRequired]);
    expect(statusOf(await callAs(bibleAction, await sessionCookieFor(other.id), path, { intent: "state-save", entityId: String(lin), kind: "life", chapter: "1", value: "存活" }))).toBe(404);

    const page = bodyOf<{ entities: { entities: { id: number; states: { id: number; text: string; chapter: number }[] }[] } }>(await callAs(bibleLoader, cookie, `${path}?entity=${lin}`));
    const [state] = page.entities.entities.find((e) => e.id === lin)!.states;
    expect([state.chapter, state.text]).toEqual([2, "生死：死亡"]);
    const deleted = await callAs(bibleAction, cookie, path, { intent: "state-delete", id: String(state.id) });
    expect(statusOf(deleted)).toBe(302);
    const again = await callAs(bibleAction, cookie, path, { intent: "state-delete", id: String(state.id) });
    expect([statusOf(again), errorOf(again)]).toEqual([404, CONTINUITY_MESSAGES.stateNotFound]);
  });
});

describe("continuity checks on save and publish", () => {
  it("finds a dead character speaking when a chapter is published and saved, shows it in the editor and the studio, and keeps a waiver", async () => {
    const work = await serial(owner.id, 3);
    const zhou = await saveEntity(owner.id, work.id, { kind: "character", name: "周伯", aliases: "老周" });
    await saveState(owner.id, work.id, { entityId: zhou, kind: "life", chapter: 2, value: "死亡" });
    const chapterId = await insertChapter(owner.id, work.id, { title: "夜归", content: "夜深了。\n老周说：“你回来了。”", release: { mode: "now" } }, "end");
    // Published: checked in the publishing transaction, as chapter 4.
    const [found] = await db.select().from(continuityFindings).where(eq(continuityFindings.chapterId, chapterId));
    expect([found.rule, found.chapterNumber, found.quote, found.facts]).toEqual(["dead-acts", 4, "老周说：“你回来了。”", [{ chapter: 2, text: "生死：死亡", entityId: zhou }]]);

    const cookie = await sessionCookieFor(owner.id);
    const editor = `/works/${work.id}/chapters/${chapterId}`;
    const view = bodyOf<{ findings: { id: number; message: string; waived: boolean }[] }>(await callAs(editLoader, cookie, editor));
    expect(view.findings.map((f) => [f.message, f.waived])).toEqual([["周伯已在第2章死亡，本章却有言行", false]]);
    const studio = bodyOf<{ counts: { open: number; waived: number }; findings: { chapterTitle: string }[] }>(await callAs(continuityLoader, cookie, `/works/${work.id}/continuity`));
    expect([studio.counts, studio.findings.map((f) => f.chapterTitle)]).toEqual([{ open: 1, waived: 0 }, ["夜归"]]);

    // 有意安排 with a note, from the editor: back to the editor; the studio lists it as waived.
    const path = `/works/${work.id}/continuity`;
    const tooLong = await callAs(continuityAction, cookie, path, { intent: "finding-waive", id: String(view.findings[0].id), note: "长".repeat(201), back: "chapter" });
    expect([statusOf(tooLong), errorOf(tooLong)]).toEqual([400, CONTINUITY_MESSAGES.waiverNoteTooLong]);
    expect(statusOf(await callAs(continuityAction, await sessionCookieFor(other.id), path, { intent: "finding-waive", id: String(view.findings[0].id), note: "", back: "chapter" }))).toBe(404);
    const waived = await callAs(continuityAction, cookie, path, { intent: "finding-waive", id: String(view.findings[0].id), note: "这是他的鬼魂", back: "chapter" });
    expect([statusOf(waived), locationOf(waived)]).toEqual([302, `${editor}#continuity`]);
    expect((await chapterFindings(work.id, chapterId)).map((f) => [f.waived, f.waiverNote])).toEqual([[true, "这是他的鬼魂"]]);

    // Saved again (the same sentence): the finding is found again and stays waived; a new sentence is a new finding.
    const [row] = await db.select({ revision: chapters.revision }).from(chapters).where(eq(chapters.id, chapterId));
    const saved = await callAs(editAction, cookie, editor, { title: "夜归", content: "夜深了。\n老周说：“你回来了。”\n周伯点头。", authorNote: "", revision: String(row.revision) });
    expect(statusOf(saved)).toBe(302);
    const after = await chapterFindings(work.id, chapterId);
    expect(after.map((f) => [f.quote, f.waived])).toEqual([
      ["周伯点头。", false],
      ["老周说：“你回来了。”", true],
    ]);
    const list = bodyOf<{ counts: { open: number; waived: number } }>(await callAs(continuityLoader, cookie, `${path}?show=waived`));
    expect(list.counts).toEqual({ open: 1, waived: 1 });

    // Recorded alive again before this chapter: 重新检查 clears it.
    await saveState(owner.id, work.id, { entityId: zhou, kind: "life", chapter: 3, value: "存活", note: "被神医救活" });
    const rechecked = await callAs(continuityAction, cookie, path, { intent: "recheck", chapterId: String(chapterId), back: "work" });
    expect([statusOf(rechecked), locationOf(rechecked)]).toEqual([302, path]);
    expect(await chapterFindings(work.id, chapterId)).toEqual([]);
  });

  it("a draft is checked as the next chapter on 保存; the ladder and the story's time are set on the studio page", async () => {
    const work = await serial(owner.id, 2);
    const lin = await saveEntity(owner.id, work.id, { kind: "character", name: "林晚", aliases: "阿晚" });
    const cookie = await sessionCookieFor(owner.id);
    const path = `/works/${work.id}/continuity`;
    const cycle = await callAs(continuityAction, cookie, path, { intent: "ladder-save", ladder: "炼气\n筑基\n金丹\n筑基" });
    expect([statusOf(cycle), errorOf(cycle)]).toEqual([400, CONTINUITY_MESSAGES.ladderCycle("筑基")]);
    expect(statusOf(await callAs(continuityAction, cookie, path, { intent: "ladder-save", ladder: "炼气\n筑基\n金丹" }))).toBe(302);
    expect(statusOf(await callAs(continuityAction, cookie, path, { intent: "time-save", chapter: "1", num: "1", value: "天元元年" }))).toBe(302);
    expect(statusOf(await callAs(continuityAction, cookie, path, { intent: "time-save", chapter: "3", num: "3", value: "天元三年" }))).toBe(302);
    const badYear = await callAs(continuityAction, cookie, path, { intent: "time-save", chapter: "2", num: "很久以后", value: "" });
    expect([statusOf(badYear), errorOf(badYear)]).toEqual([400, CONTINUITY_MESSAGES.numInvalid]);
    const unknown = await callAs(continuityAction, cookie, path, { intent: "drop-everything" });
    expect([statusOf(unknown), errorOf(unknown)]).toEqual([400, CONTINUITY_MESSAGES.unknownAction]);
    expect(statusOf(await callAs(continuityAction, await sessionCookieFor(other.id), path, { intent: "ladder-save", ladder: "一" }))).toBe(404);
    expect(statusOf(await callAs(continuityLoader, await sessionCookieFor(other.id), path))).toBe(404);

    await saveState(owner.id, work.id, { entityId: lin, kind: "realm", chapter: 1, value: "金丹" });
    await saveState(owner.id, work.id, { entityId: lin, kind: "age", chapter: 1, value: "16" });
    const draft = await insertChapter(owner.id, work.id, { title: "存稿", content: "草稿。", release: { mode: "draft" } }, "end");
    const saved = await saveChapter(owner.id, work.id, draft, { kind: "save", content: "阿晚不过筑基修为。林晚今年十六岁。" });
    expect(saved.openFindings).toBe(2);
    const found = await chapterFindings(work.id, draft);
    expect(found.map((f) => [f.rule, f.chapterNumber, f.facts.map((x) => x.text)])).toEqual([
      ["realm-drop", 3, ["境界：金丹"]],
      ["timeline", 3, ["年龄：16岁", "故事时间：天元三年"]],
    ]);
    // An autosave does not check.
    await saveChapter(owner.id, work.id, draft, { kind: "autosave", content: "阿晚已是金丹。", baseRevision: saved.revision });
    expect(await chapterFindings(work.id, draft)).toHaveLength(2);
    expect((await saveChapter(owner.id, work.id, draft, { kind: "save", content: "阿晚已是金丹。" })).openFindings).toBe(0);
  });
});

describe("AI state proposals after publication", () => {
  const reply = JSON.stringify({
    摘要: "林晚破境，老周身死。",
    设定: [],
    状态: [
      { 名称: "林晚", 类型: "境界", 值: "金丹" },
      { 名称: "老周", 类型: "生死", 值: "死亡" },
      { 名称: "林晚", 类型: "物品", 值: "青冥剑", 动作: "交给", 备注: "沈舟" },
      { 名称: "林晚", 类型: "心情", 值: "开心" },
      { 名称: "林晚", 类型: "年龄", 值: "很老" },
    ],
  });

  it("parses 状态, drops what it cannot read, and the author accepts entries that are checked like her own", async () => {
    expect(parseSummaryReply(reply).states.map((s) => [s.name, s.state.kind, s.state.value, s.state.action, s.state.note])).toEqual([
      ["林晚", "realm", "金丹", null, ""],
      ["老周", "life", "dead", null, ""],
      ["林晚", "item", "青冥剑", "given", "沈舟"],
    ]);
    expect(parseSummaryReply(JSON.stringify({ 摘要: "只有摘要。" })).states).toEqual([]);

    await setTokens(owner.id, 100_000);
    const work = await serial(owner.id, 1);
    await setAiSummaries(owner.id, work.id, true);
    const zhou = await saveEntity(owner.id, work.id, { kind: "character", name: "周伯", aliases: "老周" });
    await insertChapter(owner.id, work.id, { title: "破境", content: "林晚破境。老周倒下了。", release: { mode: "now" } }, "end");
    fake.enqueue({ reply });
    expect(await runSummaryJobs()).toBe(1);
    expect(fake.requests[0].user).toContain("本作品的境界阶梯（从低到高）：（未设定）");
    const proposals = await db.select().from(storyProposals).where(and(eq(storyProposals.workId, work.id), eq(storyProposals.kind, "state"))).orderBy(asc(storyProposals.id));
    expect(proposals.map((p) => [p.entityName, p.content, p.fromChapter])).toEqual([
      ["林晚", "境界：金丹", 2],
      ["老周", "生死：死亡", 2],
      ["林晚", "交出：青冥剑（交给沈舟）", 2],
    ]);
    // 金丹 is not on the (empty) ladder: refused, the proposal stays.
    expect((await domainError(acceptProposal(owner.id, work.id, proposals[0].id))).message).toBe(CONTINUITY_MESSAGES.notOnLadder("金丹"));
    expect(await db.select().from(storyProposals).where(eq(storyProposals.id, proposals[0].id))).toHaveLength(1);
    // 老周 is 周伯's alias: the entry goes to him; 林晚 is new and becomes a character.
    await acceptProposal(owner.id, work.id, proposals[1].id);
    await acceptProposal(owner.id, work.id, proposals[2].id);
    const states = await db.select().from(storyStates).where(eq(storyStates.workId, work.id)).orderBy(asc(storyStates.id));
    expect(states.map((s) => [s.entityId === zhou, s.kind, s.value, s.chapter, s.source])).toEqual([
      [true, "life", "dead", 2, "ai"],
      [false, "item", "青冥剑", 2, "ai"],
    ]);
    expect((await domainError(acceptProposal(other.id, work.id, proposals[0].id))).status).toBe(404);
  });
});

describe("waivers go with their chapter", () => {
  it("deleting the chapter removes its findings and waivers", async () => {
    const work = await serial(owner.id, 2);
    const zhou = await saveEntity(owner.id, work.id, { kind: "character", name: "周伯", aliases: "" });
    await saveState(owner.id, work.id, { entityId: zhou, kind: "life", chapter: 1, value: "死亡" });
    const chapterId = await insertChapter(owner.id, work.id, { title: "三", content: "周伯笑了。", release: { mode: "now" } }, "end");
    const [f] = await chapterFindings(work.id, chapterId);
    const cookie = await sessionCookieFor(owner.id);
    await callAs(continuityAction, cookie, `/works/${work.id}/continuity`, { intent: "finding-waive", id: String(f.id), note: "", back: "work" });
    expect(await db.select().from(continuityWaivers).where(eq(continuityWaivers.chapterId, chapterId))).toHaveLength(1);
    await db.delete(chapters).where(eq(chapters.id, chapterId));
    expect(await db.select().from(continuityWaivers).where(eq(continuityWaivers.chapterId, chapterId))).toHaveLength(0);
  });
});
