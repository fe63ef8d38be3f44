import { and, asc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { outlineJobs, outlines, outlineVersions } from "~/db/schema";
import { action as outlineAction, loader as outlineLoader } from "~/routes/shell/studio/outline";
import { loader as seriesLoader } from "~/routes/shell/writing/series-writing";
import { PLAN_MAX_CHARS } from "~/schemas/bible";
import { beatCoverage, beatPlan, beatsText, OUTLINE_LIMITS, OUTLINE_MESSAGES, stripBeatMarkers } from "~/schemas/outline";
import { createWork } from "~/server/catalog/works.server";
import { saveContinuation } from "~/server/studio/continuation.server";
import { claimOutlineJob, OUTLINE_JOB_ATTEMPTS, OUTLINE_JOB_MESSAGES, parseOutlineReply, runOutlineJobs } from "~/server/studio/outline-jobs.server";
import {
  OUTLINE_QUEUED_TOPIC,
  chapterOutlineBeats,
  outlineScreen,
  requestOutlineDraft,
  restoreOutlineVersion,
  saveChapterOutline,
  saveSeriesOutline,
  saveVolumeOutline,
} from "~/server/studio/outlines.server";
import { saveEntity } from "~/server/studio/bible.server";
import { chapters } from "~/db/schema";
import { outlineJob } from "~/server/jobs/outline-poller.server";
import { subscribe } from "~/server/platform/events.server";
import { waitFor } from "../fixtures/wait";
import { fakeTokenCount, outlineReply, type FakeAiProvider } from "../fakes/ai-provider";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { useFakeAiProvider } from "../fixtures/fake-ai";
import { newFormToken } from "~/server/platform/form-tokens.server";
import { aiRows, setTokens, tokensOf } from "./ai-helpers";
import { bodyOf, locationOf, statusOf, callAs } from "./route-chain";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };
const serial = (userId: string, n = 2) =>
  createWork(userId, { ...base, title: "长夜行", type: "series", status: "ongoing" }, Array.from({ length: n }, (_, i) => ({ title: `第${i + 1}章`, content: `第${i + 1}章的正文。` })), null);

let owner: { id: string };
let other: { id: string };
let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f));
beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
});

const versionsOf = (outlineId: number) => db.select().from(outlineVersions).where(eq(outlineVersions.outlineId, outlineId)).orderBy(asc(outlineVersions.version));
const outlineRow = async (id: number) => (await db.select().from(outlines).where(eq(outlines.id, id)))[0];

describe("outlines: 总纲, 卷纲, 细纲 and their versions", () => {
  it("keeps each replaced text as a version, writes none for an unchanged save, and restores one", async () => {
    const work = await serial(owner.id);
    const series = await saveSeriesOutline(owner.id, work.id, "林晚寻找写信的人。");
    expect(await saveSeriesOutline(owner.id, work.id, "  林晚寻找写信的人。\r\n")).toBe(series);
    expect(await versionsOf(series)).toHaveLength(0);
    await saveSeriesOutline(owner.id, work.id, "林晚找到沈舟，两人重建小镇。");
    expect((await outlineRow(series)).version).toBe(2);
    const [v1] = await versionsOf(series);
    expect([v1.version, v1.body]).toEqual([1, "林晚寻找写信的人。"]);

    const restored = await restoreOutlineVersion(owner.id, work.id, v1.id);
    expect(restored.id).toBe(series);
    const after = await outlineRow(series);
    expect([after.version, after.body]).toEqual([3, "林晚寻找写信的人。"]);
    expect((await versionsOf(series)).map((v) => [v.version, v.body])).toEqual([
      [1, "林晚寻找写信的人。"],
      [2, "林晚找到沈舟，两人重建小镇。"],
    ]);

    const volume = await saveVolumeOutline(owner.id, work.id, { title: "第一卷 雨夜", fromChapter: "1", toChapter: "20", body: "雨夜来信。" });
    // 新建卷纲 sent twice saves onto the one it created.
    expect(await saveVolumeOutline(owner.id, work.id, { title: "第一卷 雨夜", fromChapter: 1, toChapter: 20, body: "雨夜来信。" })).toBe(volume);
    await saveVolumeOutline(owner.id, work.id, { id: volume, title: "第一卷 雨夜", fromChapter: 1, toChapter: 30, body: "雨夜来信。" });
    // A changed span alone is no new text: no version.
    expect([(await outlineRow(volume)).toChapter, (await versionsOf(volume)).length]).toEqual([30, 0]);

    const chapter = await saveChapterOutline(owner.id, work.id, "3", "林晚收到信 | 400\n\n她去河边｜ 600\n巷口的人影开口");
    expect((await outlineRow(chapter)).beats).toEqual([
      { text: "林晚收到信", words: 400 },
      { text: "她去河边", words: 600 },
      { text: "巷口的人影开口", words: 500 },
    ]);
    await saveChapterOutline(owner.id, work.id, 3, [{ text: "林晚收到信", words: 300 }]);
    expect((await versionsOf(chapter)).map((v) => v.beats.length)).toEqual([3]);
    expect(await chapterOutlineBeats(work.id, 3)).toEqual([{ text: "林晚收到信", words: 300 }]);
    expect(await chapterOutlineBeats(work.id, 4)).toBeNull();

    const screen = await outlineScreen(owner.id, work.id, { volume, history: chapter });
    expect(screen.chapters).toHaveLength(30);
    expect(screen.chapters[2]).toMatchObject({ chapter: 3, version: 2 });
    expect(screen.history?.versions).toHaveLength(1);
  });

  it("keeps only the newest versions", async () => {
    const work = await serial(owner.id);
    let id = 0;
    for (let i = 0; i <= OUTLINE_LIMITS.versions + 2; i++) id = await saveSeriesOutline(owner.id, work.id, `第${i}稿`);
    const versions = await versionsOf(id);
    expect(versions).toHaveLength(OUTLINE_LIMITS.versions);
    expect(versions.at(-1)?.body).toBe(`第${OUTLINE_LIMITS.versions + 1}稿`);
  });

  it("refuses bad input with a clear message and writes nothing", async () => {
    const work = await serial(owner.id);
    const many = Array.from({ length: 10_000 }, (_, i) => `节拍${i} | 300`).join("\n");
    const cases: [Promise<unknown>, string][] = [
      [saveChapterOutline(owner.id, work.id, 1, many), OUTLINE_MESSAGES.tooManyBeats(10_000)],
      [saveChapterOutline(owner.id, work.id, 1, "开场 | 300\n | 200"), OUTLINE_MESSAGES.emptyBeat(2)],
      [saveChapterOutline(owner.id, work.id, 1, "开场 | 10"), OUTLINE_MESSAGES.beatWords(1)],
      [saveChapterOutline(owner.id, work.id, 1, "开场 | 九百"), OUTLINE_MESSAGES.beatWords(1)],
      [saveChapterOutline(owner.id, work.id, 1, "开场 | 99999"), OUTLINE_MESSAGES.beatWords(1)],
      [saveChapterOutline(owner.id, work.id, 1, "\n  \n"), OUTLINE_MESSAGES.noBeats],
      [saveChapterOutline(owner.id, work.id, 1, `${"长".repeat(OUTLINE_LIMITS.beatText + 1)} | 300`), OUTLINE_MESSAGES.beatTooLong(1)],
      [saveChapterOutline(owner.id, work.id, "0", "开场 | 300"), OUTLINE_MESSAGES.chapter],
      [saveVolumeOutline(owner.id, work.id, { title: "卷", fromChapter: "9", toChapter: "3", body: "" }), OUTLINE_MESSAGES.span],
      [saveVolumeOutline(owner.id, work.id, { title: "卷", fromChapter: "1", toChapter: "1000", body: "" }), OUTLINE_MESSAGES.spanTooLong],
      [saveVolumeOutline(owner.id, work.id, { title: " ", fromChapter: "1", toChapter: "2", body: "" }), OUTLINE_MESSAGES.titleEmpty],
      [saveSeriesOutline(owner.id, work.id, "长".repeat(OUTLINE_LIMITS.seriesBody + 1)), OUTLINE_MESSAGES.seriesTooLong],
    ];
    for (const [attempt, message] of cases) {
      const error = await domainError(attempt);
      expect([error.message, error.status]).toEqual([message, 400]);
    }
    expect(await db.select().from(outlines).where(eq(outlines.workId, work.id))).toHaveLength(0);
    // Another author's work is not found; a work that is not a serial has no outline.
    expect((await domainError(saveSeriesOutline(other.id, work.id, "总纲"))).status).toBe(404);
    const single = await createWork(owner.id, { ...base, title: "短篇", type: "single_chapter", status: "completed" }, [{ title: "一", content: "正文" }], null);
    expect((await domainError(saveSeriesOutline(owner.id, single.id, "总纲"))).message).toBe(OUTLINE_MESSAGES.notSeries);
  });

  it("the page's forms: a refused 细纲 comes back with the message and the text as sent; a saved one redirects", async () => {
    const work = await serial(owner.id);
    const volume = await saveVolumeOutline(owner.id, work.id, { title: "第一卷", fromChapter: 1, toChapter: 3, body: "" });
    const cookie = await sessionCookieFor(owner.id);
    const path = `/works/${work.id}/outline?volume=${volume}`;
    const refused = await callAs(outlineAction, cookie, path, { intent: "chapter-save", volume: String(volume), chapter: "2", beats: "开场 | 1" });
    expect(statusOf(refused)).toBe(400);
    expect(bodyOf<{ error: string; fields: Record<string, string> }>(refused)).toMatchObject({ error: OUTLINE_MESSAGES.beatWords(1), fields: { beats: "开场 | 1" } });
    const saved = await callAs(outlineAction, cookie, path, { intent: "chapter-save", volume: String(volume), chapter: "2", beats: "开场 | 300" });
    expect(statusOf(saved)).toBe(302);
    expect(locationOf(saved)).toBe(`/works/${work.id}/outline?volume=${volume}#chapter-2`);
    expect(statusOf(await callAs(outlineAction, cookie, path, { intent: "nonsense" }))).toBe(400);
    expect(statusOf(await callAs(outlineLoader, cookie, path))).toBe(200);
    expect(statusOf(await callAs(outlineLoader, await sessionCookieFor(other.id), path))).toBe(404);
  });
});

describe("AI 细纲 drafting in batches (background job)", () => {
  async function volumeOf(chaptersTo: number) {
    const work = await serial(owner.id);
    await saveSeriesOutline(owner.id, work.id, "林晚寻找写信的人。");
    await saveEntity(owner.id, work.id, { kind: "character", name: "林晚", aliases: "", description: "裁缝铺的女儿" });
    const volume = await saveVolumeOutline(owner.id, work.id, { title: "第一卷 雨夜", fromChapter: 1, toChapter: chaptersTo, body: "雨夜来信，河岸重逢。" });
    return { work, volume };
  }
  const jobOf = async (volume: number) => (await db.select().from(outlineJobs).where(eq(outlineJobs.volumeId, volume)))[0];

  it("drafts N chapters at a time from the 总纲, 卷纲 and bible, charges each batch, and resumes after a restart", async () => {
    await setTokens(owner.id, 100_000);
    const { work, volume } = await volumeOf(5);
    await saveChapterOutline(owner.id, work.id, 1, "作者自己写的节拍 | 800");
    await requestOutlineDraft(owner.id, work.id, volume, "2");
    expect((await domainError(requestOutlineDraft(owner.id, work.id, volume, "2"))).message).toBe(OUTLINE_MESSAGES.jobRunning);
    expect((await domainError(requestOutlineDraft(owner.id, work.id, volume, "11"))).message).toBe(OUTLINE_MESSAGES.batch);

    // A process claims the first batch and dies before answering: its lease holds the job...
    const claimed = await claimOutlineJob();
    expect(claimed).toMatchObject({ nextChapter: 1, batch: 2 });
    expect(await runOutlineJobs()).toBe(0);
    // ...until it runs out; then another process resumes it, one batch per claim.
    await db.execute(sql`update outline_jobs set locked_until = now() - interval '1 second' where volume_id = ${volume}`);
    const before = await tokensOf(owner.id);
    expect(await runOutlineJobs(1)).toBe(1);
    const first = fake.requests[0].user;
    expect(first).toContain("林晚寻找写信的人。");
    expect(first).toContain("雨夜来信，河岸重逢。");
    expect(first).toContain("林晚：裁缝铺的女儿");
    expect(first).toContain("请为第1章到第2章写细纲");
    expect(before - (await tokensOf(owner.id))).toBe(fakeTokenCount(fake.requests[0].system + first) + fakeTokenCount(outlineReply(first)!));
    expect(await jobOf(volume)).toMatchObject({ state: "pending", nextChapter: 3, attempts: 0 });

    // A restart between batches: the next run picks up at chapter 3, with chapter 2's 细纲 as the one before.
    expect(await runOutlineJobs()).toBe(2);
    expect(fake.requests.map((r) => /请为第(\d+)章到第(\d+)章/.exec(r.user)?.slice(1).join("-"))).toEqual(["1-2", "3-4", "5-5"]);
    expect(fake.requests[1].user).toContain("上一章（第2章）细纲");
    expect(await jobOf(volume)).toMatchObject({ state: "done", nextChapter: 6, reason: null });
    const drafted = await db
      .select()
      .from(outlines)
      .where(and(eq(outlines.workId, work.id), eq(outlines.kind, "chapter")))
      .orderBy(asc(outlines.fromChapter));
    expect(drafted.map((o) => [o.fromChapter, o.beats.length, o.source, o.version])).toEqual([
      [1, 3, "ai", 2],
      [2, 3, "ai", 1],
      [3, 3, "ai", 1],
      [4, 3, "ai", 1],
      [5, 3, "ai", 1],
    ]);
    // The author's own 细纲 of chapter 1 is kept as a version.
    expect((await versionsOf(drafted[0].id)).map((v) => [v.source, v.beats])).toEqual([["author", [{ text: "作者自己写的节拍", words: 800 }]]]);
    expect((await aiRows(owner.id)).filter((r) => r.description?.startsWith("细纲：第一卷 雨夜"))).toHaveLength(3);
    // Once done, the volume may be drafted again.
    expect(await requestOutlineDraft(owner.id, work.id, volume, 5)).toBeGreaterThan(0);
    await db.delete(outlineJobs).where(eq(outlineJobs.volumeId, volume));
  });

  it("an answer that is not the expected JSON is refunded, says so, and is retried up to the limit with nothing written", async () => {
    await setTokens(owner.id, 100_000);
    const { work, volume } = await volumeOf(2);
    await requestOutlineDraft(owner.id, work.id, volume, 2);
    const balance = await tokensOf(owner.id);
    const due = () => db.execute(sql`update outline_jobs set next_attempt_at = now() where volume_id = ${volume}`);
    const replies = [
      "好的，下面是细纲：第一章……",
      JSON.stringify({ 细纲: [{ 章: 1, 节拍: [{ 内容: "开场", 字数: 300 }] }] }),
      JSON.stringify({ 细纲: [{ 章: 1, 节拍: [{ 内容: "开场", 字数: 300 }] }, { 章: 2, 节拍: [{ 内容: "", 字数: 300 }] }] }),
    ];
    const reasons = [OUTLINE_JOB_MESSAGES.unreadable, OUTLINE_JOB_MESSAGES.missingChapter(2), OUTLINE_JOB_MESSAGES.badChapter(2, OUTLINE_MESSAGES.emptyBeat(1))];
    for (let attempt = 1; attempt <= OUTLINE_JOB_ATTEMPTS; attempt++) {
      if (attempt > 1) await due();
      fake.enqueue({ reply: replies[attempt - 1] });
      expect(await runOutlineJobs()).toBe(1);
      const job = await jobOf(volume);
      expect(await tokensOf(owner.id)).toBe(balance);
      if (attempt < OUTLINE_JOB_ATTEMPTS) expect([job.state, job.attempts, job.reason, job.nextChapter]).toEqual(["pending", attempt, reasons[attempt - 1], 1]);
      else expect([job.state, job.reason]).toEqual(["failed", OUTLINE_JOB_MESSAGES.gaveUp(reasons[attempt - 1])]);
    }
    expect(fake.requests).toHaveLength(OUTLINE_JOB_ATTEMPTS);
    expect(await db.select().from(outlines).where(and(eq(outlines.workId, work.id), eq(outlines.kind, "chapter")))).toHaveLength(0);
    expect((await outlineScreen(owner.id, work.id, { volume })).job).toMatchObject({ state: "failed" });
  });

  it("an author without tokens is stopped with the reason and charged nothing", async () => {
    const { work, volume } = await volumeOf(2);
    await setTokens(owner.id, 0);
    await requestOutlineDraft(owner.id, work.id, volume, 1);
    expect(await runOutlineJobs()).toBe(1);
    expect(fake.requests).toHaveLength(0);
    expect(await jobOf(volume)).toMatchObject({ state: "skipped", reason: OUTLINE_JOB_MESSAGES.noTokens });
    expect(await tokensOf(owner.id)).toBe(0);
  });

  it("the background runner picks up a queued draft on its own and a stopped runner's job is resumed by the next", async () => {
    await setTokens(owner.id, 100_000);
    const { work, volume } = await volumeOf(2);
    // The runner listens for the wake-up event; the (one-minute) timer is not what runs it.
    const off = await subscribe(OUTLINE_QUEUED_TOPIC, () => {});
    outlineJob.start(60_000);
    try {
      await requestOutlineDraft(owner.id, work.id, volume, 1);
      await waitFor("the draft job to be done", async () => (await jobOf(volume))?.state === "done", { timeout: 10_000, interval: 100 });
      expect(fake.requests).toHaveLength(2);
    } finally {
      off();
      await outlineJob.stop();
    }
    // A job left pending by a stopped process (its lease still held) waits for the lease, then resumes.
    await saveVolumeOutline(owner.id, work.id, { id: volume, title: "第一卷 雨夜", fromChapter: 1, toChapter: 3, body: "雨夜来信，河岸重逢。" });
    await requestOutlineDraft(owner.id, work.id, volume, 2);
    await db.execute(sql`update outline_jobs set next_chapter = 3, locked_until = now() + interval '5 minutes', attempts = 1 where volume_id = ${volume} and state = 'pending'`);
    expect(await runOutlineJobs()).toBe(0);
    await db.execute(sql`update outline_jobs set locked_until = now() - interval '1 second' where volume_id = ${volume} and state = 'pending'`);
    expect(await runOutlineJobs()).toBe(1);
    expect(fake.requests.at(-1)?.user).toContain("请为第3章到第3章写细纲");
    expect((await db.select().from(outlineJobs).where(eq(outlineJobs.volumeId, volume)).orderBy(asc(outlineJobs.id))).map((j) => j.state)).toEqual(["done", "done"]);
  });

  it("parseOutlineReply reads a code block and ignores chapters not asked for", () => {
    const reply = "```json\n" + JSON.stringify({ 细纲: [{ 章: 9, 节拍: [] }, { 章: 4, 节拍: [{ 内容: "开场", 字数: "300" }] }] }) + "\n```";
    expect(parseOutlineReply(reply, [4])).toEqual(new Map([[4, [{ text: "开场", words: 300 }]]]));
  });
});

describe("连载续写 from a 细纲: beats covered and words per beat", () => {
  it("counts the text under each beat's marker, the plan fits 本章计划 at the limit, and the saved chapter has no markers", async () => {
    const beats = [
      { text: "开场", words: 300 },
      { text: "中段", words: 400 },
      { text: "结尾", words: 300 },
    ];
    const text = "前言两字\n【节拍1】\n林晚收到信。\n【节拍3】\n\n巷口有人。\n【节拍9】多余";
    const coverage = beatCoverage(beats, text);
    expect(coverage.beats.map((b) => [b.n, b.words, b.covered])).toEqual([
      [1, 6, true],
      [2, 0, false],
      [3, 5, true],
    ]);
    expect([coverage.before, coverage.covered]).toEqual([4, 2]);
    expect(stripBeatMarkers(text)).toBe("前言两字\n林晚收到信。\n\n巷口有人。\n多余");

    const longest = Array.from({ length: OUTLINE_LIMITS.beats }, () => ({ text: "长".repeat(OUTLINE_LIMITS.beatText), words: OUTLINE_LIMITS.maxWords }));
    expect(Array.from(beatPlan(longest)).length).toBeLessThanOrEqual(PLAN_MAX_CHARS);

    const work = await serial(owner.id, 1);
    const saved = await saveContinuation(owner.id, { workId: work.id, mode: "draft", content: text, formToken: newFormToken() }, 2);
    const [row] = await db.select({ content: chapters.content }).from(chapters).where(eq(chapters.id, saved.chapterId));
    expect(row.content).not.toContain("【节拍");
  });

  it("连载续写 opens a chapter with a 细纲 with its beats as the plan", async () => {
    const work = await serial(owner.id, 2);
    await saveChapterOutline(owner.id, work.id, 3, "林晚收到信 | 400\n巷口的人影开口 | 500");
    const cookie = await sessionCookieFor(owner.id);
    const page = bodyOf<{ page: { plan: string; beats: unknown } }>(await callAs(seriesLoader, cookie, `/series-writing?work=${work.id}&chapter=3`)).page;
    expect(page.beats).toEqual([
      { text: "林晚收到信", words: 400 },
      { text: "巷口的人影开口", words: 500 },
    ]);
    expect(page.plan).toBe(beatPlan([{ text: "林晚收到信", words: 400 }, { text: "巷口的人影开口", words: 500 }]));
    expect(page.plan).toContain("【节拍2】（约500字）巷口的人影开口");
    // A chapter without one starts from an empty plan.
    expect(bodyOf<{ page: { plan: string; beats: unknown } }>(await callAs(seriesLoader, cookie, `/series-writing?work=${work.id}&chapter=2`)).page).toMatchObject({ plan: "", beats: null });
    expect(beatsText([{ text: "林晚收到信", words: 400 }])).toBe("林晚收到信 | 400");
  });
});
