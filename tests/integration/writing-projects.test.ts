import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { plotVersions, writingPlotCharacters, writingPlots, writingProjects } from "~/db/schema";
import { action as freeAction, loader as freeLoader } from "~/routes/shell/writing/free-writing";
import {
  createProject,
  deleteCharacter,
  deleteProject,
  getVersion,
  listPlots,
  listProjects,
  listVersions,
  loadWorkspace,
  movePlot,
  renameProject,
  reorderPlots,
  saveCharacter,
  saveDraft,
  savePlot,
  savePlotContent,
  useVersion,
} from "~/server/ai/writing-projects.server";
import type { FakeAiProvider } from "../fakes/ai-provider";
import { userRequest } from "../fixtures/accounts";
import { aiRows, readyProject, tokensOf, writer } from "./ai-helpers";
import { callThroughRoutes } from "./route-chain";
import { domainError } from "../fixtures/domain-error";
import { useFakeAiProvider } from "../fixtures/fake-ai";

let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f));

async function post(cookie: string, fields: Record<string, string | string[]>, path = "/free-writing") {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
  const response = await callThroughRoutes(freeAction, { request: userRequest(cookie, path, form) });
  return response as unknown;
}

function location(result: unknown): string | null {
  return result instanceof Response ? result.headers.get("Location") : null;
}

interface ActionData {
  data: { intent: string; error?: string; result?: { error?: Record<string, string[]> } };
  init: { status: number } | null;
}
const fieldErrors = (result: unknown) => (result as ActionData).data.result?.error ?? {};

const character = { name: "林晚", personality: "倔强", appearance: "清瘦", other: "" };
const plotInput = (over: Record<string, unknown> = {}) => ({
  title: "雨夜来信",
  summary: "收到信",
  environment: "雨夜",
  expectedWords: 1000,
  characterIds: [] as string[],
  additionalNotes: "",
  ...over,
});

describe("projects, per user", () => {
  it("are created, listed by kind, renamed, reopened and deleted by their owner only", async () => {
    const a = await writer();
    const b = await writer();
    const first = await createProject(a.id, "free", "第一本");
    const second = await createProject(a.id, "free", "第二本");
    await createProject(a.id, "short", "仿写");
    expect((await listProjects(a.id, "free")).map((p) => p.name).sort()).toEqual(["第一本", "第二本"]);
    expect(await listProjects(b.id, "free")).toEqual([]);

    await renameProject(a.id, first.id, "改名了");
    expect((await loadWorkspace(a.id, first.id)).project.name).toBe("改名了");
    expect((await domainError(renameProject(b.id, first.id, "偷改"))).message).toBe("写作项目不存在");
    expect((await domainError(loadWorkspace(b.id, first.id))).status).toBe(404);
    expect((await domainError(loadWorkspace(a.id, first.id, "short"))).status).toBe(404);
    expect((await domainError(deleteProject(b.id, second.id))).status).toBe(404);

    await deleteProject(a.id, second.id);
    expect((await listProjects(a.id, "free")).map((p) => p.name)).toEqual(["改名了"]);
  });

  it("the page opens the latest project, or offers to start one; a stale id goes back to the list", async () => {
    const user = await writer();
    const empty = (await callThroughRoutes(freeLoader, { request: userRequest(user.cookie, "/free-writing") })) as {
      workspace: unknown;
    };
    expect(empty.workspace).toBeNull();

    const created = await post(user.cookie, { intent: "create-project", name: "  我的故事 " });
    const url = location(created)!;
    expect(url).toMatch(/^\/free-writing\?project=[0-9a-f-]{36}$/);
    const redirected = await callThroughRoutes(freeLoader, { request: userRequest(user.cookie, "/free-writing") }).catch((r) => r);
    expect(location(redirected)).toBe(url);
    const stale = await callThroughRoutes(freeLoader, {
      request: userRequest(user.cookie, "/free-writing?project=00000000-0000-4000-8000-000000000000"),
    }).catch((r) => r);
    expect(location(stale)).toBe("/free-writing");
  });

  it("keeps the draft", async () => {
    const user = await writer();
    const project = await createProject(user.id, "free", "草稿");
    await post(user.cookie, { intent: "save-draft", projectId: project.id, draft: "在此粘贴的文本\n第二行" });
    expect((await loadWorkspace(user.id, project.id)).project.draft).toBe("在此粘贴的文本\n第二行");
    const tooLong = await post(user.cookie, { intent: "save-draft", projectId: project.id, draft: "字".repeat(200_001) });
    expect(fieldErrors(tooLong).draft).toEqual(["草稿不能超过200000个字符"]);
  });
});

describe("characters and plots", () => {
  it("validates the character form with docs/product.md's messages", async () => {
    const user = await writer();
    const project = await createProject(user.id, "free", "角色");
    const result = await post(user.cookie, { intent: "save-character", projectId: project.id, name: "", personality: " ", appearance: "" });
    expect(fieldErrors(result)).toEqual({ name: ["请输入角色姓名"], personality: ["请输入角色性格"], appearance: ["请输入角色外貌"] });
    const ok = await post(user.cookie, { intent: "save-character", projectId: project.id, ...character });
    expect(location(ok)).toBe(`/free-writing?project=${project.id}`);
    expect((await loadWorkspace(user.id, project.id)).characters.map((c) => c.name)).toEqual(["林晚"]);
  });

  it("validates the plot form: required fields, expected words 100 to 20000, at most 50 characters, own characters only", async () => {
    const user = await writer();
    const other = await writer();
    const project = await createProject(user.id, "free", "情节");
    const foreign = await readyProject(other.id);
    const base = { intent: "save-plot", projectId: project.id };

    expect(fieldErrors(await post(user.cookie, { ...base }))).toEqual({
      title: ["请输入情节标题"],
      summary: ["请输入情节概要"],
      environment: ["请输入情节环境"],
    });
    const fields = { ...base, title: "标题", summary: "概要", environment: "环境" };
    expect(fieldErrors(await post(user.cookie, { ...fields, expectedWords: "0" }))).toEqual({ expectedWords: ["预计字数不能少于100字"] });
    expect(fieldErrors(await post(user.cookie, { ...fields, expectedWords: "10000000" }))).toEqual({ expectedWords: ["预计字数不能超过20000字"] });
    const many = Array.from({ length: 500 }, (_, i) => `0b7a8a4e-4a53-4f6e-9e55-${String(i).padStart(12, "0")}`);
    expect(fieldErrors(await post(user.cookie, { ...fields, characterIds: many }))).toEqual({ characterIds: ["每个情节最多选择50个角色"] });
    const stolen = (await post(user.cookie, { ...fields, characterIds: [foreign.characterId] })) as ActionData;
    expect(stolen.data.error).toBe("所选角色不存在，请刷新页面后重试");
    expect(await listPlots(project.id)).toEqual([]);

    const saved = await post(user.cookie, { ...fields, expectedWords: "不是数字" });
    const plots = await listPlots(project.id);
    expect(plots.map((p) => [p.title, p.expectedWords])).toEqual([["标题", 1000]]);
    expect(location(saved)).toBe(`/free-writing?project=${project.id}&plot=${plots[0].id}`);
  });

  it("deleting a character removes it from every plot", async () => {
    const user = await writer();
    const project = await createProject(user.id, "free", "删除角色");
    const a = await saveCharacter(user.id, project.id, character);
    const b = await saveCharacter(user.id, project.id, { ...character, name: "沈舟" });
    const p1 = await savePlot(user.id, project.id, plotInput({ characterIds: [a.id, b.id] }));
    const p2 = await savePlot(user.id, project.id, plotInput({ title: "重逢", characterIds: [a.id] }));
    const result = await post(user.cookie, { intent: "delete-character", projectId: project.id, characterId: a.id, selectedPlotId: p2 });
    expect(location(result)).toBe(`/free-writing?project=${project.id}&plot=${p2}`);
    const plots = await listPlots(project.id);
    expect(plots.find((p) => p.id === p1)!.characterIds).toEqual([b.id]);
    expect(plots.find((p) => p.id === p2)!.characterIds).toEqual([]);
    const links = await db.select().from(writingPlotCharacters).where(eq(writingPlotCharacters.characterId, a.id));
    expect(links).toEqual([]);
    expect((await domainError(deleteCharacter(user.id, project.id, a.id))).message).toBe("角色不存在");
  });

  it("reorders plots with up/down and with a full order; deletes after the confirmation form", async () => {
    const user = await writer();
    const project = await createProject(user.id, "free", "排序");
    const ids: string[] = [];
    for (const title of ["一", "二", "三"]) ids.push(await savePlot(user.id, project.id, plotInput({ title })));
    const titles = async () => (await listPlots(project.id)).map((p) => p.title);

    await post(user.cookie, { intent: "move-plot", projectId: project.id, plotId: ids[2], direction: "up" });
    expect(await titles()).toEqual(["一", "三", "二"]);
    await movePlot(user.id, project.id, ids[0], "up");
    expect(await titles()).toEqual(["一", "三", "二"]);
    await reorderPlots(user.id, project.id, [ids[1], ids[0]]);
    expect(await titles()).toEqual(["二", "一", "三"]);
    const fetcher = (await post(user.cookie, { intent: "reorder-plots", projectId: project.id, order: [ids[2], ids[1], ids[0]].join(","), fetcher: "1" })) as ActionData;
    expect(fetcher.data).toEqual({ intent: "reorder-plots", ok: true });
    expect(await titles()).toEqual(["三", "二", "一"]);

    await post(user.cookie, { intent: "delete-plot", projectId: project.id, plotId: ids[1] });
    expect(await titles()).toEqual(["三", "一"]);
  });
});

describe("plot text and versions", () => {
  it("keeps saved text as versions; a version can be looked at and made current", async () => {
    const user = await writer();
    const other = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    await savePlotContent(user.id, projectId, plotId, "初稿");
    await savePlotContent(user.id, projectId, plotId, "初稿");
    await post(user.cookie, { intent: "save-content", projectId, plotId, content: "二稿" });
    const versions = await listVersions(user.id, projectId, plotId);
    expect(versions.map((v) => [v.kind, v.length])).toEqual([
      ["manual", 2],
      ["manual", 2],
    ]);
    const first = versions[1];
    expect((await getVersion(user.id, projectId, first.id)).content).toBe("初稿");
    expect((await domainError(getVersion(other.id, projectId, first.id))).message).toBe("版本不存在");

    const result = await post(user.cookie, { intent: "use-version", projectId, versionId: first.id });
    expect(location(result)).toBe(`/free-writing?project=${projectId}&plot=${plotId}`);
    const [plot] = await db.select().from(writingPlots).where(eq(writingPlots.id, plotId));
    expect([plot.content, plot.currentVersionId]).toEqual(["初稿", first.id]);
    expect((await domainError(useVersion(other.id, projectId, first.id))).status).toBe(404);
  });

  it("generates without JavaScript: the form post runs to completion and comes back to the text", async () => {
    const user = await writer(20_000);
    const { projectId, plotId } = await readyProject(user.id);
    fake.enqueue({ chunks: ["第一句。", "第二句。"] });
    const result = await post(user.cookie, { intent: "generate", projectId, plotId, selectedPlotId: plotId, content: "" });
    const [version] = await db.select().from(plotVersions).where(eq(plotVersions.plotId, plotId));
    expect(location(result)).toBe(`/free-writing?project=${projectId}&plot=${plotId}&generated=${version.id}`);
    expect(version.content).toBe("第一句。第二句。");
    const [row] = await aiRows(user.id);
    expect(await tokensOf(user.id)).toBe(20_000 + Number(row.amount));

    const page = (await callThroughRoutes(freeLoader, {
      request: userRequest(user.cookie, location(result)!),
    })) as { workspace: { generated: { tokensCharged: number }; plots: { content: string }[] } };
    expect(page.workspace.generated).toEqual({ tokensCharged: -Number(row.amount) });
    expect(page.workspace.plots[0].content).toBe("第一句。第二句。");
  });

  it("without JavaScript a failed generation shows its message and charges nothing", async () => {
    const user = await writer(20_000);
    const { projectId, plotId } = await readyProject(user.id);
    await db.update(writingProjects).set({ theme: "" }).where(eq(writingProjects.id, projectId));
    const result = (await post(user.cookie, { intent: "generate", projectId, plotId })) as ActionData;
    expect(result.data).toEqual({ intent: "generate", error: "请先填写整体设定" });
    expect(result.init?.status).toBe(400);
    expect(await tokensOf(user.id)).toBe(20_000);
  });

  it("the page shows the estimated prompt cost, or what stands in the way", async () => {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    const load = async () =>
      (
        (await callThroughRoutes(freeLoader, { request: userRequest(user.cookie, `/free-writing?project=${projectId}&plot=${plotId}`) })) as {
          workspace: { estimate: unknown };
        }
      ).workspace.estimate;
    // 预计消耗 is the prompt plus the plot's expected length (1,000 characters), not the prompt alone.
    const estimate = (await load()) as { promptTokens: number; outputTokens: number; tokens: number; expectedWords: number };
    expect(estimate).toEqual({ promptTokens: expect.any(Number), outputTokens: 250, tokens: estimate.promptTokens + 250, expectedWords: 1000, referenceChars: 0 });
    expect(estimate.promptTokens).toBeGreaterThan(0);
    await savePlot(user.id, projectId, plotInput({ id: plotId, characterIds: [] }));
    expect(await load()).toEqual({ blocked: "请为当前情节选择至少一个角色" });
  });
});

describe("saveDraft ownership", () => {
  it("refuses another user's project", async () => {
    const a = await writer();
    const b = await writer();
    const project = await createProject(a.id, "free", "私有");
    expect((await domainError(saveDraft(b.id, project.id, "x"))).status).toBe(404);
  });
});
