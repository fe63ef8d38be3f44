import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, workPurchases, writingProjects } from "~/db/schema";
import { action as generateAction } from "~/routes/api/generate";
import { action as shortAction } from "~/routes/shell/writing/short-writing";
import { prepareGeneration } from "~/server/ai/generation.server";
import { REFERENCE_SAMPLE_CHARS } from "~/server/ai/render";
import { analyzeSource, listSourceWorks, resolveSource } from "~/server/ai/analysis.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { countChars, tokensForChars } from "~/utils/ai-tokens";
import { createProject, listCharacters, listPlots, loadWorkspace, saveCharacter } from "~/server/ai/writing-projects.server";
import { analysisReply, fakeTokenCount, type FakeAiProvider } from "../fakes/ai-provider";
import { userRequest } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { aiRows, aiRowsSum, generateRequest, readEvents, textOf, tokensOf, writer } from "./ai-helpers";
import { callThroughRoutes } from "./route-chain";
import { domainError } from "../fixtures/domain-error";
import { useFakeAiProvider } from "../fixtures/fake-ai";

let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f));

const viewer = (id: string) => ({ id, showR18: false, showAi: true });

async function addChapter(workId: number, content: string) {
  await db.insert(chapters).values({ workId, title: "正文", content, position: 1 });
}


const SOURCE = "林晚撑着伞走在河边。沈舟站在巷口，等了她很多年。";

describe("analysis (分析): P02 fills the characters and plots", () => {
  it("replaces the project's characters and plots, matched by name, and charges the reported usage", async () => {
    const user = await writer(50_000);
    const project = await createProject(user.id, "short", "仿写");
    await saveCharacter(user.id, project.id, { name: "旧角色", personality: "x", appearance: "y", other: "" });
    const reply = analysisReply();
    fake.enqueue({ reply });

    const result = await analyzeSource(viewer(user.id), project.id, { sourceText: SOURCE });
    expect(result).toMatchObject({ characters: 2, plots: 2 });
    const request = fake.requests[0];
    expect(request.stream).toBe(false);
    expect(request.user).toContain(SOURCE);
    expect(request.system).toContain("小说编辑");

    const { characters, plots, project: saved } = await loadWorkspace(user.id, project.id);
    expect(characters.map((c) => c.name)).toEqual(["林晚", "沈舟"]);
    expect(plots.map((p) => [p.title, p.expectedWords])).toEqual([
      ["雨夜来信", 1000],
      ["河岸重逢", 1000],
    ]);
    const byName = new Map(characters.map((c) => [c.id, c.name]));
    expect(plots[1].characterIds.map((id) => byName.get(id))).toEqual(["林晚", "沈舟"]);
    expect(saved.sourceTitle).toBe(`粘贴的文本（${SOURCE.length}字）`);

    // The provider reported its usage (the fake counts 1 token per 2 characters): that is the charge.
    const inputTokens = fakeTokenCount(request.system + request.user);
    const outputTokens = fakeTokenCount(reply);
    const charged = inputTokens + outputTokens;
    expect(result.charged).toBe(charged);
    expect(await tokensOf(user.id)).toBe(50_000 - charged);
    const rows = await aiRows(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: "generation",
      amount: -charged,
      plotId: null,
      model: "inkstone-fake",
      outputChars: countChars(reply),
      inputTokens,
      outputTokens,
      metering: "actual",
    });
  });

  it("without a reported usage, charges the estimate and says so", async () => {
    const user = await writer(50_000);
    const project = await createProject(user.id, "short", "估算");
    const reply = analysisReply();
    fake.enqueue({ reply, usage: false });
    const result = await analyzeSource(viewer(user.id), project.id, { sourceText: SOURCE });
    const request = fake.requests[0];
    const promptTokens = tokensForChars(countChars(request.system) + countChars(request.user));
    const charged = promptTokens + tokensForChars(countChars(reply));
    expect(result.charged).toBe(charged);
    expect((await aiRows(user.id))[0]).toMatchObject({ amount: -charged, inputTokens: promptTokens, metering: "estimate" });
  });

  it("tolerates a reply in ``` fences", async () => {
    const user = await writer();
    const project = await createProject(user.id, "short", "围栏");
    fake.enqueue({ reply: "```json\n" + analysisReply() + "\n```" });
    await analyzeSource(viewer(user.id), project.id, { sourceText: SOURCE });
    expect((await listCharacters(project.id)).length).toBe(2);
  });

  it.each([
    [{ reply: "" }, AI_MESSAGES.analysisEmpty],
    [{ reply: "这篇小说讲的是……" }, AI_MESSAGES.analysisBadFormat],
    [{ reply: JSON.stringify({ message: "success", 角色设定: [] }) }, AI_MESSAGES.analysisBadFormat],
    [{ reply: JSON.stringify({ message: "error", 角色设定: [], 大纲: [] }) }, AI_MESSAGES.analysisFailed],
    [{ status: 401 }, "API密钥无效或已过期"],
    [{ status: 429 }, "API调用次数超限"],
  ])("%o: %s, nothing charged, nothing replaced", async (scenario, message) => {
    const user = await writer(50_000);
    const project = await createProject(user.id, "short", "失败");
    await saveCharacter(user.id, project.id, { name: "留下", personality: "x", appearance: "y", other: "" });
    fake.enqueue(scenario);
    const result = (await callThroughRoutes(shortAction, {
      request: userRequest(user.cookie, "/short-writing", { intent: "analyze", projectId: project.id, sourceText: SOURCE }),
    })) as { data: { intent: string; error: string } };
    expect(result.data).toEqual({ intent: "analyze", error: message });
    expect(await tokensOf(user.id)).toBe(50_000);
    expect(await aiRowsSum(user.id)).toBe(0);
    expect((await listCharacters(project.id)).map((c) => c.name)).toEqual(["留下"]);
  });

  it("needs a source, and the balance for the prompt", async () => {
    const user = await writer(3);
    const project = await createProject(user.id, "short", "无源");
    const empty = (await callThroughRoutes(shortAction, {
      request: userRequest(user.cookie, "/short-writing", { intent: "analyze", projectId: project.id, sourceText: "  " }),
    })) as { data: { result: { error: Record<string, string[]> } } };
    expect(empty.data.result.error).toEqual({ sourceWorkId: ["请选择一篇参考作品或粘贴文本"] });
    expect((await domainError(analyzeSource(viewer(user.id), project.id, { sourceText: SOURCE }))).message).toBe("Tokens余额不足，请充值");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("the reference-work picker (docs/product.md, Rules)", () => {
  it("offers own, bought and followed free single-chapter works under 20,000 characters, and finds free ones", async () => {
    const me = await writer();
    const author = await writer();
    const [mine, minePrivate, bought, notBought, freeOne, long, multi] = await insertWorks([
      { userId: me.id, title: "我的短篇 pickerA" },
      { userId: me.id, title: "我的私稿 pickerA", visibility: "private" },
      { userId: author.id, title: "买过的 pickerA", visibility: "public-vip", price: 5 },
      { userId: author.id, title: "没买的 pickerA", visibility: "public-vip", price: 5 },
      { userId: author.id, title: "免费的 pickerA" },
      { userId: author.id, title: "太长的 pickerA" },
      { userId: author.id, title: "多章的 pickerA" },
    ]);
    await db.insert(workPurchases).values({ userId: me.id, workId: bought, price: 5 });
    const { works } = await import("~/db/schema");
    await db.update(works).set({ wordCount: 20_000 }).where(eq(works.id, long));
    await db.update(works).set({ type: "multi_chapter" }).where(eq(works.id, multi));

    const listed = await listSourceWorks(viewer(me.id));
    expect(listed.map((w) => [w.id, w.relation]).sort()).toEqual(
      [
        [mine, "own"],
        [minePrivate, "own"],
        [bought, "purchased"],
      ].sort(),
    );
    const found = await listSourceWorks(viewer(me.id), "pickerA");
    expect(found.map((w) => w.id).sort()).toEqual([mine, minePrivate, bought, freeOne].sort());
    expect(found.map((w) => w.id)).not.toContain(notBought);
  });

  it("refuses, on the server, a work the user may not read in full or that is not a short single chapter", async () => {
    const me = await writer();
    const author = await writer();
    const [privateOther, paid, bought, multi, free, long, empty] = await insertWorks([
      { userId: author.id, title: "别人的私稿", visibility: "private" },
      { userId: author.id, title: "付费未买", visibility: "public-vip", price: 3 },
      { userId: author.id, title: "付费已买", visibility: "public-vip", price: 3 },
      { userId: author.id, title: "多章" },
      { userId: author.id, title: "免费" },
      { userId: author.id, title: "太长" },
      { userId: author.id, title: "空的" },
    ]);
    await db.insert(workPurchases).values({ userId: me.id, workId: bought, price: 3 });
    const { works } = await import("~/db/schema");
    await db.update(works).set({ type: "multi_chapter" }).where(eq(works.id, multi));
    for (const id of [paid, bought, multi, free]) await addChapter(id, SOURCE);
    await addChapter(long, "字".repeat(20_000));
    await addChapter(empty, "   ");

    const error = (workId: number) => domainError(resolveSource(viewer(me.id), { sourceWorkId: workId })).then((e) => e.message);
    expect(await error(privateOther)).toBe("作品不存在");
    expect(await error(paid)).toBe("无法使用该作品：只能选择自己的、已购买的或免费的作品");
    expect(await error(multi)).toBe("只能选择单章作品作为参考");
    expect(await error(long)).toBe("参考作品需少于20000字");
    expect(await error(empty)).toBe("作品内容为空");
    expect((await resolveSource(viewer(me.id), { sourceWorkId: bought })).text).toBe(SOURCE);
    expect((await resolveSource(viewer(me.id), { sourceWorkId: free })).title).toBe("免费");
    expect((await domainError(resolveSource(viewer(me.id), { sourceText: "字".repeat(20_000) }))).message).toBe("参考作品需少于20000字");

    const project = await createProject(me.id, "short", "来源");
    fake.enqueue({ reply: analysisReply() });
    await analyzeSource(viewer(me.id), project.id, { sourceWorkId: bought });
    expect((await loadWorkspace(me.id, project.id)).project).toMatchObject({ sourceWorkId: bought, sourceTitle: "付费已买" });
    expect((await listPlots(project.id)).length).toBe(2);
    expect(fake.requests).toHaveLength(1);
  });
});

describe("短篇仿写 sends what it imitates (issue 28 section 10)", () => {
  async function generateFirstPlot(cookie: string, projectId: string) {
    const [plot] = await listPlots(projectId);
    const { saveTheme } = await import("~/server/ai/writing-projects.server");
    const [{ userId }] = await db.select({ userId: writingProjects.userId }).from(writingProjects).where(eq(writingProjects.id, projectId));
    await saveTheme(userId, projectId, "江南小镇的一段旧事。");
    fake.enqueue({ text: "新写的一段。" });
    const response = (await callThroughRoutes(generateAction, { request: generateRequest(cookie, { projectId, plotId: plot.id }) })) as Response;
    expect(response.status, await response.clone().text()).toBe(200);
    const events = await readEvents(response);
    expect(textOf(events)).toBe("新写的一段。");
    return { plot, request: fake.requests.at(-1)! };
  }

  it("a bounded sample of pasted reference text is in the prompt and counted in 预计消耗", async () => {
    const user = await writer(200_000);
    const project = await createProject(user.id, "short", "仿写样本");
    const long = Array.from({ length: 120 }, (_, i) => `第${i + 1}句，雨落在青石板上。`).join("");
    fake.enqueue({ reply: analysisReply() });
    await analyzeSource(viewer(user.id), project.id, { sourceText: long });

    const { plot, request } = await generateFirstPlot(user.cookie, project.id);
    expect(request.user).toContain("第1句，雨落在青石板上。第2句");
    // Bounded: the start of the text, ended at a sentence, not all of it.
    expect(request.user).not.toContain("第120句");
    const sample = request.user.slice(request.user.indexOf("第1句"));
    expect(Array.from(sample.slice(0, sample.indexOf("……"))).length).toBeLessThanOrEqual(REFERENCE_SAMPLE_CHARS);
    expect(sample.slice(0, sample.indexOf("……")).endsWith("。")).toBe(true);

    // The estimate the page shows counts it, and says how much of it there is.
    const prepared = await prepareGeneration(user.id, project.id, plot.id, "short");
    expect(prepared.referenceChars).toBeGreaterThan(REFERENCE_SAMPLE_CHARS - 200);
    expect(prepared.prompt.user).toContain("第1句，雨落在青石板上。");
  });

  it("a reference work's text is sent too, even with a P03 edited before the placeholder existed", async () => {
    const me = await writer(200_000);
    const author = await writer();
    const [free] = await insertWorks([{ userId: author.id, title: "免费参考" }]);
    await addChapter(free, SOURCE);
    const project = await createProject(me.id, "short", "来源作品");
    fake.enqueue({ reply: analysisReply() });
    await analyzeSource(viewer(me.id), project.id, { sourceWorkId: free });
    const { request } = await generateFirstPlot(me.cookie, project.id);
    expect(request.user).toContain(SOURCE);

    const { prompts } = await import("~/db/schema");
    const [p03] = await db.select().from(prompts).where(eq(prompts.code, "P03"));
    try {
      await db.update(prompts).set({ userContent: "请仿照参考作品的风格写：{|key-moment|}" }).where(eq(prompts.code, "P03"));
      const again = await generateFirstPlot(me.cookie, project.id);
      expect(again.request.user).toContain(`【参考作品节选（仅供模仿文风，不要照抄）】\n${SOURCE}`);
    } finally {
      await db.update(prompts).set({ userContent: p03.userContent }).where(eq(prompts.code, "P03"));
    }
  });
});
