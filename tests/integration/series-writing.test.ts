import { randomBytes } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { apiConfigs, chapters, formSubmissions, sessions } from "~/db/schema";
import { action as continueAction } from "~/routes/api/continue";
import { action as seriesAction, loader as seriesLoader } from "~/routes/shell/writing/series-writing";
import { BIBLE_MESSAGES } from "~/schemas/bible";
import { SERIES_MESSAGES } from "~/schemas/series";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { TOKEN_MESSAGES } from "~/server/economy/ledger.server";
import { saveChapterSummary, saveEntity, saveFact, saveThread } from "~/server/studio/bible.server";
import { exportOwnWorkTxt } from "~/server/studio/author-export.server";
import { createWork } from "~/server/catalog/works.server";
import { fakeTokenCount, storyText, type FakeAiProvider } from "../fakes/ai-provider";

import { aiRows, readEvents, setTokens, textOf, tokensOf, writer } from "./ai-helpers";
import { callThroughRoutes, statusOf, bodyOf, locationOf, callAs } from "./route-chain";
import { useFakeAiProvider } from "../fixtures/fake-ai";

/**
 * 连载续写 (issue 19 part 1, decisions 141-142): the next chapter of the author's own serial
 * from the P04 prompt, streamed and metered on the provider's usage, saved as 存稿 or
 * published with its AI label; one request key is charged once; bad input is refused.
 */

let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f), { timings: { retryBaseMs: 10, retryJitterMs: 5, idleMs: 2_000, firstByteMs: 3_000 } });

const key = () => randomBytes(12).toString("base64url");
const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

async function serial(userId: string, n: number) {
  const list = Array.from({ length: n }, (_, i) => ({
    title: `第${i + 1}章`,
    content: i === n - 1 ? `雨一直下。\n老周摸索着走到门口，停住了。` : `第${i + 1}章的正文。`,
  }));
  return createWork(userId, { ...base, title: "长夜行", type: "series", status: "ongoing" }, list, null);
}

async function author(tokens = 1_000_000) {
  const user = await writer(tokens);
  const work = await serial(user.id, 100);
  return { user, work };
}

function continueRequest(cookie: string | null, fields: Record<string, string>) {
  const headers: Record<string, string> = { Origin: "http://localhost" };
  if (cookie) headers.Cookie = cookie;
  return new Request("http://localhost/api/continue", { method: "POST", headers, body: new URLSearchParams(fields) });
}
async function continueStream(cookie: string | null, fields: Record<string, string>) {
  return (await callThroughRoutes(continueAction, { request: continueRequest(cookie, fields) })) as Response;
}
const chaptersOf = (workId: number) => db.select().from(chapters).where(eq(chapters.workId, workId)).orderBy(asc(chapters.position), asc(chapters.id));

type PageData = {
  page: {
    chapter: number;
    counts: { published: number; unpublished: number };
    context: {
      summaries: string;
      entities: { name: string; reason: string; facts: string[]; sent: boolean }[];
      threads: { title: string; overdue: boolean; sent: boolean }[];
      missingSummaries: { n: number; id: number }[];
      excerpts: number[];
    } | null;
    estimate: { tokens: number; promptTokens: number; outputTokens: number };
    result: { text: string; charged: number; notice: string | null } | null;
    resultMissing: string | null;
    chapterError: string | null;
  } | null;
};

describe("生成下一章", () => {
  it("continues a 100-chapter serial: the prompt knows who is blind since 37 and which promise is due, the charge is the reported usage, it lands as 存稿 and published with its AI label", async () => {
    const { user, work } = await author();
    const ids = (await chaptersOf(work.id)).map((c) => c.id);
    await saveChapterSummary(user.id, work.id, ids[99], "老周在雨夜回到清河镇。");
    const zhou = await saveEntity(user.id, work.id, { kind: "character", name: "周伯", aliases: "老周" });
    await saveFact(user.id, work.id, { entityId: zhou, content: "双目失明", fromChapter: 37 });
    await saveFact(user.id, work.id, { entityId: zhou, content: "能看见远处的灯", untilChapter: 36 });
    await saveThread(user.id, work.id, { title: "三年之约", note: "沈舟许诺回来", plantedChapter: 3, dueChapter: 100 });
    await saveThread(user.id, work.id, { title: "以后的事", plantedChapter: 120 });

    // The page: chapter 101 (100 published), the summary, the facts in force, the threads.
    const page = bodyOf<PageData>(await callAs(seriesLoader, user.cookie, `/series-writing?work=${work.id}`)).page!;
    expect(page.chapter).toBe(101);
    expect(page.counts).toEqual({ published: 100, unpublished: 0 });
    expect(page.context!.summaries).toContain("第100章：老周在雨夜回到清河镇。");
    // The sidebar lists what the prompt sends (老周 ends chapter 100), from the same function.
    expect(page.context!.entities).toEqual([expect.objectContaining({ name: "周伯", reason: "named", facts: ["从第37章起：双目失明"], sent: true })]);
    // Overdue in one word, 已逾期, on the page and in the prompt.
    expect(page.context!.threads).toEqual([expect.objectContaining({ title: "三年之约", overdue: true, sent: true })]);
    // Chapters 1-99 have no summary: listed; 91-99 (the recent ones) go as excerpts of their end.
    expect(page.context!.missingSummaries.map((m) => m.n)).toEqual(Array.from({ length: 99 }, (_, i) => i + 1));
    expect(page.context!.excerpts).toEqual([91, 92, 93, 94, 95, 96, 97, 98, 99]);
    expect(page.context!.summaries).toContain("第99章（无摘要，结尾节选）：…第99章的正文。");
    // 预计消耗: the prompt and a chapter of 3,000 characters.
    expect(page.estimate).toMatchObject({ outputTokens: 750, tokens: page.estimate.promptTokens + 750 });

    const reply = storyText(1200);
    fake.enqueue({ text: reply, chunkCount: 6 });
    const before = await tokensOf(user.id);
    const response = await continueStream(user.cookie, { workId: String(work.id), chapter: "101", plan: "老周去码头等人。", requestKey: key() });
    expect(response.headers.get("Content-Type")).toContain("text/event-stream");
    const events = await readEvents(response);
    expect(textOf(events)).toBe(reply);
    expect(events.find((e) => e.event === "start")?.data).toMatchObject({ chapter: 101 });
    const done = events.find((e) => e.event === "done")?.data as { charged: number; metering: string };
    expect(done.metering).toBe("actual");

    const sent = fake.requests[0];
    expect(sent.user).toContain("续写第101章");
    expect(sent.user).toContain("老周去码头等人。");
    expect(sent.user).toContain("从第37章起：双目失明");
    expect(sent.user).not.toContain("能看见远处的灯");
    expect(sent.user).toContain("三年之约（第3章埋下，应在第100章前回收，已逾期）");
    expect(sent.user).toContain("第99章（无摘要，结尾节选）：…第99章的正文。");
    expect(sent.user).not.toContain("以后的事");

    // Charged what the provider reported (实际), on one ledger row.
    const rows = await aiRows(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].metering).toBe("actual");
    expect(rows[0].description).toBe("AI续写：《长夜行》第101章");
    const charged = fakeTokenCount(sent.system + sent.user) + fakeTokenCount(reply);
    expect(-Number(rows[0].amount)).toBe(charged);
    expect(done.charged).toBe(charged);
    expect(await tokensOf(user.id)).toBe(before - charged);

    // Edited, then 存为草稿: a 存稿 chapter at the end, labelled AI生成 from the generation log.
    const edited = `作者加的一句开头。\n${reply}`;
    const draft = await callAs(seriesAction, user.cookie, "/series-writing", { intent: "save", workId: String(work.id), chapter: "101", title: "", content: edited, mode: "draft", formToken: key() });
    const draftLocation = locationOf(draft)!;
    expect(draftLocation).toMatch(new RegExp(`^/series-writing\\?work=${work.id}&saved=\\d+-draft$`));
    let list = await chaptersOf(work.id);
    expect(list).toHaveLength(101);
    expect(list[100]).toMatchObject({ title: "第101章", state: "draft", content: edited, aiLevel: "generated" });

    // 发布 (another form): published at once, the work's 101st chapter; the export says so.
    const token = key();
    const fields = { intent: "save", workId: String(work.id), chapter: "102", title: "码头", content: reply, mode: "publish", formToken: token };
    const published = await callAs(seriesAction, user.cookie, "/series-writing", fields);
    expect(locationOf(published)).toMatch(/saved=\d+-publish$/);
    // The same form posted again makes no second chapter.
    expect(locationOf(await callAs(seriesAction, user.cookie, "/series-writing", fields))).toBe(locationOf(published));
    list = await chaptersOf(work.id);
    expect(list).toHaveLength(102);
    expect(list[101]).toMatchObject({ title: "码头", state: "published", aiLevel: "generated" });
    const download = await exportOwnWorkTxt(user.id, work.id, { drafts: false });
    const txt = await new Response(download.body as ReadableStream).text();
    expect(txt).toContain("码头");
    expect(txt).toMatch(/AI生成/);
  });

  it("without JavaScript: the form runs to completion and the page shows the text by its key; posted again it charges nothing; an empty plan is allowed", async () => {
    const { user, work } = await author();
    const reply = storyText(300, 50);
    fake.enqueue({ text: reply, chunkCount: 3 });
    const requestKey = key();
    const fields = { intent: "generate", workId: String(work.id), chapter: "101", plan: "", requestKey };
    const first = await callAs(seriesAction, user.cookie, "/series-writing", fields);
    const location = locationOf(first)!;
    expect(location).toBe(`/series-writing?work=${work.id}&chapter=101&result=${requestKey}`);
    expect(fake.requests[0].user).toContain("续写第101章");
    const page = bodyOf<PageData>(await callAs(seriesLoader, user.cookie, location)).page!;
    expect(page.result?.text).toBe(reply);
    const charged = -Number((await aiRows(user.id))[0].amount);
    expect(page.result?.charged).toBe(charged);

    // The same key again: through the page or the stream, no provider call, no charge.
    expect(locationOf(await callAs(seriesAction, user.cookie, "/series-writing", fields))).toBe(location);
    const again = await continueStream(user.cookie, { workId: String(work.id), chapter: "101", plan: "", requestKey });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: SERIES_MESSAGES.submitted, text: reply, charged });
    expect(fake.requests).toHaveLength(1);
    expect(await aiRows(user.id)).toHaveLength(1);

    // Another user cannot read the result by its key.
    const other = await writer();
    expect(statusOf(await callAs(seriesLoader, other.cookie, location))).toBe(404);
    expect(page.result?.notice).toBeNull();

    // A reported usage beyond the balance: the page says in one line what was not charged (decision 153).
    const balance = await tokensOf(user.id);
    fake.enqueue({ text: storyText(100), usage: { inputTokens: balance, outputTokens: 5_000 } });
    const shortKey = key();
    const short = await callAs(seriesAction, user.cookie, "/series-writing", { ...fields, requestKey: shortKey });
    const shortPage = bodyOf<PageData>(await callAs(seriesLoader, user.cookie, locationOf(short)!)).page!;
    expect(shortPage.result?.charged).toBe(balance);
    expect(shortPage.result?.notice).toBe(AI_MESSAGES.usageNotCovered(balance + 5_000, balance, 5_000, false));
    expect(await tokensOf(user.id)).toBe(0);
  });

  it("two tabs sending one key at once start one generation", async () => {
    const { user, work } = await author();
    fake.enqueue({ text: storyText(200), chunkCount: 2, delayMs: 30 });
    const fields = { workId: String(work.id), chapter: "101", plan: "", requestKey: key() };
    const [a, b] = await Promise.all([continueStream(user.cookie, fields), continueStream(user.cookie, fields)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const stream = a.status === 200 ? a : b;
    await readEvents(stream);
    expect(fake.requests).toHaveLength(1);
    expect(await aiRows(user.id)).toHaveLength(1);
  });
});

describe("failures and bad input", () => {
  it("refuses other users' works (404), works that are not series, bad chapters, keys and plans, with nothing charged", async () => {
    const { user, work } = await author();
    const other = await writer();
    const single = await createWork(user.id, { ...base, title: "短篇", type: "single_chapter", status: "completed" }, [{ title: "全文", content: "正文。" }], null);
    const ok = { workId: String(work.id), chapter: "101", plan: "", requestKey: key() };

    expect(statusOf(await callAs(seriesLoader, other.cookie, `/series-writing?work=${work.id}`))).toBe(404);
    expect(statusOf(await callAs(seriesLoader, user.cookie, `/series-writing?work=abc`))).toBe(404);
    expect(statusOf(await callAs(seriesLoader, user.cookie, `/series-writing?work=${single.id}`))).toBe(400);
    const badChapter = await callAs(seriesLoader, user.cookie, `/series-writing?work=${work.id}&chapter=205`);
    expect(statusOf(badChapter)).toBe(400);
    expect(bodyOf<PageData>(badChapter).page?.chapterError).toBe(SERIES_MESSAGES.chapterRange(101));

    const refusals: [Record<string, string>, number, string][] = [
      [{ ...ok, workId: String(work.id) }, 404, "作品不存在"],
      [{ ...ok, workId: String(single.id) }, 400, SERIES_MESSAGES.notSeries],
      [{ ...ok, workId: "x" }, 404, SERIES_MESSAGES.workMissing],
      [{ ...ok, chapter: "0" }, 400, SERIES_MESSAGES.chapterRange(100_000)],
      [{ ...ok, chapter: "102" }, 400, SERIES_MESSAGES.chapterRange(101)],
      [{ ...ok, requestKey: "short" }, 400, SERIES_MESSAGES.requestKey],
      [{ ...ok, plan: "计".repeat(5001) }, 400, "本章计划不能超过 5000 字"],
    ];
    for (const [i, [fields, status, message]] of refusals.entries()) {
      const cookie = i === 0 ? other.cookie : user.cookie;
      const response = await continueStream(cookie, { ...fields, requestKey: fields.requestKey === "short" ? "short" : key() });
      expect([i, response.status]).toEqual([i, status]);
      expect([i, ((await response.json()) as { error: string }).error]).toEqual([i, message]);
    }
    expect((await continueStream(null, ok)).status).toBe(401);
    // A signed cookie whose session has ended (logged out elsewhere): 请先登录 before anything else.
    const ended = await writer();
    await db.delete(sessions).where(eq(sessions.userId, ended.id));
    const afterLogout = await continueStream(ended.cookie, { ...ok, workId: "x", requestKey: key() });
    expect([afterLogout.status, ((await afterLogout.json()) as { error: string }).error]).toEqual([401, "请先登录"]);
    // The page's form answers the same way, without a 500.
    const pageRefusal = await callAs(seriesAction, user.cookie, "/series-writing", { intent: "generate", ...ok, chapter: "0" });
    expect(statusOf(pageRefusal)).toBe(400);
    expect(bodyOf<{ error: string }>(pageRefusal).error).toBe(SERIES_MESSAGES.chapterRange(100_000));
    expect(fake.requests).toHaveLength(0);
    expect(await aiRows(user.id)).toHaveLength(0);
    // A refused request claimed no key (the claim is in the checks' statement, decision 278).
    for (const id of [user.id, other.id]) expect(await db.select().from(formSubmissions).where(eq(formSubmissions.userId, id))).toHaveLength(0);

    // Saving: empty text, another's work, a bad mode, an unknown intent: messages, no chapter.
    const save = { intent: "save", workId: String(work.id), chapter: "101", title: "", content: "正文", mode: "draft" };
    const cases: [string, Record<string, string>, number, string][] = [
      [user.cookie, { ...save, content: "  \n " }, 400, SERIES_MESSAGES.emptyText],
      [other.cookie, save, 404, "作品不存在"],
      [user.cookie, { ...save, mode: "later" }, 400, SERIES_MESSAGES.mode],
      [user.cookie, { ...save, title: "长".repeat(101) }, 400, SERIES_MESSAGES.titleTooLong],
      [user.cookie, { ...save, intent: "nope" }, 400, "未知操作"],
    ];
    for (const [i, [cookie, fields, status, message]] of cases.entries()) {
      const result = await callAs(seriesAction, cookie, "/series-writing", fields);
      expect([i, statusOf(result), bodyOf<{ error: string }>(result).error]).toEqual([i, status, message]);
    }
    // The text typed comes back with the refusal.
    const refused = await callAs(seriesAction, user.cookie, "/series-writing", { ...save, mode: "later", content: "我写的字" });
    expect(bodyOf<{ content: string }>(refused).content).toBe("我写的字");
    expect(await chaptersOf(work.id)).toHaveLength(100);
  });

  it("no tokens: today's message, nothing charged; a provider failure: today's message, refunded, and the key may be used again", async () => {
    const { user, work } = await author(0);
    const fields = { workId: String(work.id), chapter: "101", plan: "", requestKey: key() };
    const poor = await continueStream(user.cookie, fields);
    expect(poor.status).toBe(402);
    expect(((await poor.json()) as { error: string }).error).toBe(TOKEN_MESSAGES.insufficient);
    expect(fake.requests).toHaveLength(0);
    expect(await db.select().from(formSubmissions).where(eq(formSubmissions.token, fields.requestKey))).toHaveLength(0);

    // A prompt that cannot be assembled (a context budget too small for it) frees the key,
    // though the key was claimed while the prompt was still being assembled.
    const configs = await db.select({ id: apiConfigs.id, contextTokens: apiConfigs.contextTokens }).from(apiConfigs);
    await db.update(apiConfigs).set({ contextTokens: 10 });
    try {
      const cramped = await continueStream(user.cookie, fields);
      expect([cramped.status, ((await cramped.json()) as { error: string }).error]).toEqual([422, BIBLE_MESSAGES.budgetTooSmall]);
    } finally {
      for (const c of configs) await db.update(apiConfigs).set({ contextTokens: c.contextTokens }).where(eq(apiConfigs.id, c.id));
    }
    expect(await db.select().from(formSubmissions).where(eq(formSubmissions.token, fields.requestKey))).toHaveLength(0);
    expect(fake.requests).toHaveLength(0);

    await setTokens(user.id, 100_000);
    fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const failed = await continueStream(user.cookie, fields);
    expect(failed.status).toBe(502);
    expect(((await failed.json()) as { error: string }).error).toBe(AI_MESSAGES.serverError);
    const rows = await aiRows(user.id);
    expect(rows.map((r) => r.type)).toEqual(["generation", "refund"]);
    expect(await tokensOf(user.id)).toBe(100_000);

    // The same key works once the provider is back.
    fake.reset();
    fake.enqueue({ text: storyText(100), chunkCount: 2 });
    const retried = await continueStream(user.cookie, fields);
    expect(retried.status).toBe(200);
    await readEvents(retried);
    expect(
      await db
        .select()
        .from(formSubmissions)
        .where(and(eq(formSubmissions.token, fields.requestKey), eq(formSubmissions.kind, "continuation"))),
    ).toHaveLength(1);
  });
});
