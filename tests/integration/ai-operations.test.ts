import { randomBytes } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, plotVersions, prompts, siteConfigs, textCandidates, textOperations, writingPlots } from "~/db/schema";
import { action as operateAction } from "~/routes/api/operate";
import { action as freeAction, loader as freeLoader } from "~/routes/shell/writing/free-writing";
import { textMarks } from "~/server/catalog/ai-labels.server";
import { acceptCandidate, operationRange, rejectOperation } from "~/server/ai/operations.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { createWork } from "~/server/catalog/works.server";
import { savePlotContent } from "~/server/ai/writing-projects.server";
import { fakeTokenCount, storyText, type FakeAiProvider } from "../fakes/ai-provider";
import { userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { adminCookieFor, callAction, createAdmin, request as adminRequest } from "./admin-fixtures";
import { aiRows, readEvents, readyProject, tokensOf, writer, type SseEvent } from "./ai-helpers";
import { waitFor } from "../fixtures/wait";
import { callThroughRoutes, locationOf } from "./route-chain";
import { useFakeAiProvider } from "../fixtures/fake-ai";

/**
 * The editor's operations on a selection and 存为章节 (issue 19 parts 4 and 1, decision 130):
 * candidates metered one generation each, accepting one makes a version, one request key
 * is charged once however often it is posted, bad input is refused with nothing written.
 */

let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f), { timings: { retryBaseMs: 10, retryJitterMs: 5, idleMs: 2_000, firstByteMs: 3_000 } });

/** The author's own text: no 12-character run in common with the fake's story. */
const OWN = "山中无甲子，寒尽不知年。老人每日清晨上山砍柴，傍晚挑着柴下山。\n村口的孩子们总围着他，听他讲山里的故事。\n那一年冬天来得特别早，第一场雪落下时，他没有下山。";
const key = () => randomBytes(12).toString("base64url");

function operateRequest(cookie: string | null, fields: Record<string, string>, signal?: AbortSignal) {
  const headers: Record<string, string> = { Origin: "http://localhost" };
  if (cookie) headers.Cookie = cookie;
  return new Request("http://localhost/api/operate", { method: "POST", headers, body: new URLSearchParams(fields), signal });
}

async function operate(cookie: string | null, fields: Record<string, string>) {
  return (await callThroughRoutes(operateAction, { request: operateRequest(cookie, fields) })) as Response;
}

async function authorWithText(tokens = 100_000) {
  const user = await writer(tokens);
  const ids = await readyProject(user.id);
  await savePlotContent(user.id, ids.projectId, ids.plotId, OWN);
  return { user, ...ids };
}

const selectionOf = (text: string, part: string) => {
  const start = text.indexOf(part);
  return { start: String(start), end: String(start + part.length) };
};

const eventsNamed = (events: SseEvent[], name: string) => events.filter((e) => e.event === name).map((e) => e.data as Record<string, unknown>);

async function pageAction(cookie: string, fields: Record<string, string>) {
  return callThroughRoutes(freeAction, { request: userRequest(cookie, "/free-writing", fields) }) as Promise<unknown>;
}
const actionError = (result: unknown) => (result as { data: { error?: string; result?: { error?: Record<string, string[]> } }; init: { status: number } | null });

describe("candidates: one metered generation each", () => {
  it("streams 2 candidates of 润色, each charged on the reported usage with its own receipt; accepting one makes a version", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const part = "村口的孩子们总围着他，听他讲山里的故事。";
    const replies = ["村口的孩子们总爱围着他，听他讲大山深处的故事。", "孩子们常在村口等他，缠着他讲山里的故事。"];
    fake.enqueue({ text: replies[0], chunkCount: 4 }, { text: replies[1], chunkCount: 3 });
    const before = await tokensOf(user.id);
    const response = await operate(user.cookie, { projectId, plotId, operation: "polish", count: "2", requestKey: key(), ...selectionOf(OWN, part) });
    expect(response.headers.get("Content-Type")).toContain("text/event-stream");
    const events = await readEvents(response);
    const start = eventsNamed(events, "start")[0] as { operationId: string; candidates: { index: number; model: string }[] };
    expect(start.candidates).toHaveLength(2);
    const texts = [0, 1].map((i) => eventsNamed(events, "text").filter((e) => e.index === i).map((e) => e.text).join(""));
    expect(new Set(texts)).toEqual(new Set(replies));
    const done = eventsNamed(events, "done");
    expect(done).toHaveLength(2);
    expect(eventsNamed(events, "end")).toHaveLength(1);

    // Two ledger rows, each settled on the provider's usage (实际), each its own receipt.
    const rows = await aiRows(user.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.metering).toBe("actual");
      expect(row.description).toMatch(/^AI润色：雨夜来信（候选[12]\/2）$/);
    }
    const prompt = fake.requests[0].system + fake.requests[0].user;
    expect(fake.requests[0].user).toContain(part);
    const charged = rows.reduce((sum, r) => sum - Number(r.amount), 0);
    expect(charged).toBe(2 * fakeTokenCount(prompt) + fakeTokenCount(replies[0]) + fakeTokenCount(replies[1]));
    expect(await tokensOf(user.id)).toBe(before - charged);

    const candidates = await db.select().from(textCandidates).where(eq(textCandidates.operationId, start.operationId)).orderBy(asc(textCandidates.index));
    expect(candidates.map((c) => c.status)).toEqual(["ready", "ready"]);
    expect(new Set(candidates.map((c) => c.transactionId))).toEqual(new Set(rows.map((r) => r.id)));

    // The page shows the operation (differences are drawn from source and candidate).
    const page = (await callThroughRoutes(freeLoader, { request: userRequest(user.cookie, `/free-writing?project=${projectId}&plot=${plotId}&op=${start.operationId}`) })) as {
      workspace: { operation: { source: string; candidates: { content: string; receiptId: number }[] } };
    };
    expect(page.workspace.operation.source).toBe(part);
    expect(page.workspace.operation.candidates.map((c) => c.content)).toEqual(candidates.map((c) => c.content));

    // Accept candidate 2: the selection is replaced, a version of kind generation made current.
    const accepted = await acceptCandidate(user.id, projectId, start.operationId, 1);
    const [plot] = await db.select().from(writingPlots).where(eq(writingPlots.id, plotId));
    expect(plot.content).toBe(OWN.replace(part, candidates[1].content));
    expect(plot.currentVersionId).toBe(accepted.versionId);
    const [version] = await db.select().from(plotVersions).where(eq(plotVersions.id, accepted.versionId));
    expect(version).toMatchObject({ kind: "generation", operation: "polish", transactionId: candidates[1].transactionId, content: plot.content });

    // Once: a second accept, or a reject, is refused and changes nothing; no charge either.
    expect((await domainError(acceptCandidate(user.id, projectId, start.operationId, 0))).message).toBe("该操作已处理过（已采用或已放弃）");
    expect((await domainError(rejectOperation(user.id, projectId, start.operationId))).status).toBe(409);
    expect(await aiRows(user.id)).toHaveLength(2);
  });

  it("records the candidates' new text in the generation log, not the author's text they kept", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const part = "那一年冬天来得特别早，第一场雪落下时，他没有下山。";
    const added = "山路被大雪封住了整整一个月，村里的人都以为他再也回不来了。";
    fake.enqueue({ text: `${part}${added}`, chunkCount: 5 });
    const response = await operate(user.cookie, { projectId, plotId, operation: "expand", count: "1", requestKey: key(), ...selectionOf(OWN, part) });
    const events = await readEvents(response);
    expect(eventsNamed(events, "done")).toHaveLength(1);
    const { aiTextMarks } = await import("~/db/schema");
    const marks = new Set((await db.select({ mark: aiTextMarks.mark }).from(aiTextMarks).where(eq(aiTextMarks.userId, user.id))).map((r) => r.mark));
    const own = new Set(textMarks(part));
    expect([...own].some((m) => marks.has(m))).toBe(false);
    expect(textMarks(added).filter((m) => !own.has(m)).every((m) => marks.has(m))).toBe(true);
  });

  it("续写 inserts at the cursor; a provider failure refunds and leaves no operation behind", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const cursor = OWN.indexOf("\n");
    fake.enqueue({ text: "他把柴捆好，又看了一眼山顶。", chunkCount: 2 });
    const events = await readEvents(await operate(user.cookie, { projectId, plotId, operation: "continue", count: "1", requestKey: key(), start: String(cursor), end: String(cursor) }));
    const { operationId } = eventsNamed(events, "start")[0] as { operationId: string };
    await acceptCandidate(user.id, projectId, operationId, 0);
    const [plot] = await db.select({ content: writingPlots.content }).from(writingPlots).where(eq(writingPlots.id, plotId));
    expect(plot.content).toBe(`${OWN.slice(0, cursor)}他把柴捆好，又看了一眼山顶。${OWN.slice(cursor)}`);
    expect(fake.requests[0].user).toContain("篇幅约 500 字");

    const before = await tokensOf(user.id);
    const rowsBefore = (await db.select().from(textOperations).where(eq(textOperations.userId, user.id))).length;
    fake.enqueue({ status: 401 }, { status: 401 });
    const failed = await operate(user.cookie, { projectId, plotId, operation: "polish", count: "2", requestKey: key(), start: "0", end: "5" });
    expect(failed.status).toBe(502);
    expect(((await failed.json()) as { error: string }).error).toBe("API密钥无效或已过期");
    expect(await tokensOf(user.id)).toBe(before);
    expect((await db.select().from(textOperations).where(eq(textOperations.userId, user.id))).length).toBe(rowsBefore);
  });
});

describe("stopping and failing mid-stream", () => {
  it("停止 aborts every candidate: each is charged by the estimate for what was sent and kept to accept", async () => {
    const { user, projectId, plotId } = await authorWithText();
    fake.enqueue({ forever: true, chunks: ["山风，"], delayMs: 15 }, { forever: true, chunks: ["雪夜，"], delayMs: 15 });
    const controller = new AbortController();
    const seen = new Map<number, string>();
    const response = (await callThroughRoutes(operateAction, {
      request: operateRequest(user.cookie, { projectId, plotId, operation: "continue", count: "2", requestKey: key(), start: "10", end: "10" }, controller.signal),
    })) as Response;
    let operationId = "";
    await readEvents(response, (e) => {
      const data = e.data as { index: number; text: string; operationId: string };
      if (e.event === "start") operationId = data.operationId;
      if (e.event === "text") seen.set(data.index, (seen.get(data.index) ?? "") + data.text);
      if ([...seen.values()].filter((t) => t.length >= 12).length === 2) controller.abort();
    });
    const candidates = await waitFor("both candidates saved", async () => {
      const rows = await db.select().from(textCandidates).where(eq(textCandidates.operationId, operationId)).orderBy(asc(textCandidates.index));
      return rows.every((r) => r.status === "ready") ? rows : null;
    });
    const rows = await aiRows(user.id);
    expect(rows).toHaveLength(2);
    for (const c of candidates) {
      expect(c.endReason).toBe("aborted");
      expect(c.content.startsWith(seen.get(c.index)!)).toBe(true);
      const row = rows.find((r) => r.id === c.transactionId)!;
      expect(row).toMatchObject({ metering: "estimate", outputChars: c.content.length });
    }
    await acceptCandidate(user.id, projectId, operationId, 1);
  });

  it("a candidate whose provider breaks off is refunded and marked failed; the other is kept", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const before = await tokensOf(user.id);
    fake.enqueue({ text: "孩子们在村口等了他很久。", chunkCount: 3 }, { chunks: ["一", "二", "三", "四"], disconnectAfter: 2, delayMs: 5 });
    const events = await readEvents(await operate(user.cookie, { projectId, plotId, operation: "rewrite", count: "2", requestKey: key(), ...selectionOf(OWN, "村口的孩子们总围着他") }));
    const { operationId } = eventsNamed(events, "start")[0] as { operationId: string };
    expect(eventsNamed(events, "done")).toHaveLength(1);
    const [failed] = eventsNamed(events, "error");
    expect(failed.message).toBeTruthy();
    const candidates = await db.select().from(textCandidates).where(eq(textCandidates.operationId, operationId)).orderBy(asc(textCandidates.index));
    expect(candidates.map((c) => c.status).sort()).toEqual(["failed", "ready"]);
    const kept = candidates.find((c) => c.status === "ready")!;
    // The broken-off candidate's reservation came back in full: only the kept one is paid.
    expect(await tokensOf(user.id)).toBe(before - kept.tokensCharged);
    expect((await domainError(acceptCandidate(user.id, projectId, operationId, candidates.find((c) => c.status === "failed")!.index))).message).toBe(
      "该候选没有可以采用的内容",
    );
  });
});

describe("one request is charged once", () => {
  it("the same request key posted again (another tab, a resubmitted form) starts nothing and names the operation", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const fields = { projectId, plotId, operation: "rewrite", count: "1", requestKey: key(), start: "0", end: "10" };
    const first = await operate(user.cookie, fields);
    const events = await readEvents(first);
    const { operationId } = eventsNamed(events, "start")[0] as { operationId: string };
    const again = await operate(user.cookie, fields);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: "这个操作已经提交过了", operationId });
    expect(fake.requests).toHaveLength(1);
    expect(await aiRows(user.id)).toHaveLength(1);
  });

  // A race means something on PostgreSQL only; on PGlite the same outcome must hold too.
  it("two tabs posting the same request at once: one operation, one charge per candidate", async () => {
    const { user, projectId, plotId } = await authorWithText();
    fake.setDefault({ delayMs: 30 });
    const fields = { projectId, plotId, operation: "condense", count: "2", requestKey: key(), start: "0", end: "30" };
    const [a, b] = await Promise.all([operate(user.cookie, fields), operate(user.cookie, fields)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const streamed = a.status === 200 ? a : b;
    await readEvents(streamed);
    expect(await db.select().from(textOperations).where(eq(textOperations.userId, user.id))).toHaveLength(1);
    expect(await aiRows(user.id)).toHaveLength(2);
    expect(fake.requests).toHaveLength(2);
  });

  it("two tabs accepting at once: one version", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const events = await readEvents(await operate(user.cookie, { projectId, plotId, operation: "polish", count: "2", requestKey: key(), start: "0", end: "12" }));
    const { operationId } = eventsNamed(events, "start")[0] as { operationId: string };
    const results = await Promise.allSettled([acceptCandidate(user.id, projectId, operationId, 0), acceptCandidate(user.id, projectId, operationId, 1)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const versions = await db.select().from(plotVersions).where(and(eq(plotVersions.plotId, plotId), eq(plotVersions.kind, "generation")));
    expect(versions).toHaveLength(1);
  });
});

describe("bad input: a clear message, nothing written, nothing charged", () => {
  it("refuses without login, other users' projects, no selection, bad ranges, counts and operations", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const other = await writer();
    const base = { projectId, plotId, operation: "polish", count: "1", requestKey: key() };
    const cases: [string | null, Record<string, string>, number, string][] = [
      [null, base, 401, "请先登录"],
      [other.cookie, { ...base, start: "0", end: "5" }, 404, "写作项目不存在"],
      [user.cookie, { ...base, start: "3", end: "3" }, 400, "请先选中要修改的文字（没有JavaScript时请填写段落编号，留空则为全文）"],
      [user.cookie, { ...base, start: "0", end: String(OWN.length + 1) }, 400, "选中的范围不在正文内，请重新选择"],
      [user.cookie, { ...base, count: "4", start: "0", end: "5" }, 400, "候选数量为1到3个"],
      [user.cookie, { ...base, count: "0", start: "0", end: "5" }, 400, "候选数量为1到3个"],
      [user.cookie, { ...base, operation: "translate", start: "0", end: "5" }, 400, "请选择要进行的操作"],
      [user.cookie, { ...base, requestKey: "短", start: "0", end: "5" }, 400, "请求已失效，请刷新页面后重试"],
      [user.cookie, { ...base, operation: "continue", start: "0", end: "0" }, 400, "续写需要在光标前有正文，请先写几句"],
      [user.cookie, { ...base, paragraph: "9" }, 400, "请输入1到3之间的段落编号（留空为全文）"],
    ];
    for (const [cookie, fields, status, error] of cases) {
      const response = await operate(cookie, fields);
      expect({ status: response.status, body: await response.json() }, error).toEqual({ status, body: { error } });
    }
    expect(fake.requests).toHaveLength(0);
    expect(await aiRows(user.id)).toHaveLength(0);
    expect(await db.select().from(textOperations).where(eq(textOperations.userId, user.id))).toHaveLength(0);
    const long = "长".repeat(5001);
    await savePlotContent(user.id, projectId, plotId, long);
    const tooLong = await operate(user.cookie, { ...base, start: "0", end: String(long.length) });
    expect(await tooLong.json()).toEqual({ error: "选中的文字过长，一次最多5000字" });
  });

  it("a refused operation saves nothing of the posted text: no new content, no version (issue 28)", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const plotNow = async () => {
      const [plot] = await db.select({ content: writingPlots.content, versionId: writingPlots.currentVersionId }).from(writingPlots).where(eq(writingPlots.id, plotId));
      const versions = await db.select({ id: plotVersions.id }).from(plotVersions).where(eq(plotVersions.plotId, plotId));
      return { ...plot, versions: versions.length };
    };
    const before = await plotNow();
    const edited = `${OWN}\n新写的一段，还没有保存。`;
    const base = { projectId, plotId, operation: "polish", count: "1", requestKey: key(), content: edited };
    const cases: [Record<string, string>, number, string][] = [
      [{ ...base, start: "0", end: String(edited.length + 5) }, 400, "选中的范围不在正文内，请重新选择"],
      [{ ...base, start: "-1", end: "5" }, 400, "选中的范围不在正文内，请重新选择"],
      [{ ...base, start: "abc", end: "5" }, 400, "选中的范围不在正文内，请重新选择"],
      [{ ...base, paragraph: "-2" }, 400, "段落编号应为正整数（留空为全文）"],
      [{ ...base, paragraph: "9" }, 400, "请输入1到4之间的段落编号（留空为全文）"],
      [{ ...base, start: "3", end: "3" }, 400, "请先选中要修改的文字（没有JavaScript时请填写段落编号，留空则为全文）"],
    ];
    for (const [fields, status, error] of cases) {
      const response = await operate(user.cookie, fields);
      expect({ status: response.status, body: await response.json() }, error).toEqual({ status, body: { error } });
    }
    expect(await plotNow()).toEqual(before);

    // No AI configured: 503, and the text is not saved either.
    const [setting] = await db.select().from(siteConfigs).where(eq(siteConfigs.key, "default_api_provider"));
    await db.update(siteConfigs).set({ value: "" }).where(eq(siteConfigs.key, "default_api_provider"));
    try {
      const response = await operate(user.cookie, { ...base, ...selectionOf(OWN, "村口的孩子们") });
      expect(response.status).toBe(503);
      expect(await plotNow()).toEqual(before);
    } finally {
      await db.update(siteConfigs).set({ value: setting.value }).where(eq(siteConfigs.key, "default_api_provider"));
    }
    expect(fake.requests).toHaveLength(0);
    expect(await aiRows(user.id)).toHaveLength(0);
  });

  it("accepting after the text changed is refused; the operation stays open to reject", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const events = await readEvents(await operate(user.cookie, { projectId, plotId, operation: "rewrite", count: "1", requestKey: key(), start: "0", end: "11" }));
    const { operationId } = eventsNamed(events, "start")[0] as { operationId: string };
    await savePlotContent(user.id, projectId, plotId, `${OWN}\n又一行。`);
    expect((await domainError(acceptCandidate(user.id, projectId, operationId, 0))).message).toBe(
      "正文在这次操作之后改动过，不能再采用这个候选。请重新选择文字后再试",
    );
    expect((await domainError(acceptCandidate(user.id, projectId, operationId, 7))).status).toBe(404);
    const other = await writer();
    expect((await domainError(acceptCandidate(other.id, projectId, operationId, 0))).status).toBe(404);
    await rejectOperation(user.id, projectId, operationId);
    const [plot] = await db.select({ content: writingPlots.content }).from(writingPlots).where(eq(writingPlots.id, plotId));
    expect(plot.content).toBe(`${OWN}\n又一行。`);
  });

  it("paragraph numbers and the whole text, for pages without JavaScript", () => {
    const text = "第一段\n\n第二段\n第三段";
    expect(operationRange(text, { operation: "polish", paragraph: 2 })).toEqual({ start: 5, end: 8 });
    expect(operationRange(text, { operation: "polish", paragraph: "" })).toEqual({ start: 0, end: text.length });
    expect(operationRange(text, { operation: "continue", paragraph: 1 })).toEqual({ start: 3, end: 3 });
    expect(operationRange(text, { operation: "continue" })).toEqual({ start: text.length, end: text.length });
  });
});

describe("without JavaScript: the page's form", () => {
  it("runs a paragraph's operation to the end, shows it, accepts through the form; a resubmission charges nothing", async () => {
    const { user, projectId, plotId } = await authorWithText();
    const requestKey = key();
    const fields = { intent: "operate", projectId, selectedPlotId: plotId, plotId, operation: "polish", count: "1", requestKey, paragraph: "2", content: OWN };
    const result = await pageAction(user.cookie, fields);
    const location = locationOf(result);
    expect(location).toMatch(new RegExp(`^/free-writing\\?project=${projectId}&plot=${plotId}&op=[0-9a-f-]{36}$`));
    const operationId = new URL(`http://x${location}`).searchParams.get("op")!;
    const [operation] = await db.select().from(textOperations).where(eq(textOperations.id, operationId));
    expect(operation.source).toBe("村口的孩子们总围着他，听他讲山里的故事。");
    expect(locationOf(await pageAction(user.cookie, fields))).toBe(location);
    expect(await aiRows(user.id)).toHaveLength(1);

    const bad = actionError(await pageAction(user.cookie, { ...fields, requestKey: key(), paragraph: "0" }));
    expect(bad.init?.status).toBe(400);
    const accepted = await pageAction(user.cookie, { intent: "accept-candidate", projectId, selectedPlotId: plotId, operationId, index: "0" });
    expect(locationOf(accepted)).toBe(`/free-writing?project=${projectId}&plot=${plotId}`);
    const again = actionError(await pageAction(user.cookie, { intent: "accept-candidate", projectId, selectedPlotId: plotId, operationId, index: "0" }));
    expect(again.init?.status).toBe(409);
    expect(again.data.error).toBe("该操作已处理过（已采用或已放弃）");
  });
});

describe("存为章节", () => {
  const work = (userId: string, title: string, type: "series" | "single_chapter" = "series") =>
    createWork(userId, { title, description: "简介", rating: "all_ages", isAiGenerated: false, visibility: "public", type, status: type === "series" ? "ongoing" : "completed" }, [{ title: "第一章", content: "正文。" }], null);

  it("a new 存稿 chapter or a published one in one step, or appended to a 存稿 chapter; the AI label follows the log", async () => {
    const user = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    const generated = storyText(600);
    fake.enqueue({ text: generated, chunkCount: 10 });
    const { action: generateAction } = await import("~/routes/api/generate");
    const { generateRequest } = await import("./ai-helpers");
    await readEvents((await callThroughRoutes(generateAction, { request: generateRequest(user.cookie, { projectId, plotId }) })) as Response);
    const w = await work(user.id, "存章测试");
    const token = key();
    const fields = { intent: "save-to-chapter", projectId, selectedPlotId: plotId, plotId, workId: String(w.id), mode: "draft", title: "", formToken: token };
    const saved = await pageAction(user.cookie, fields);
    expect(locationOf(saved)).toMatch(new RegExp(`chapterSaved=${w.id}-\\d+-draft$`));
    // The same form again creates nothing more.
    expect(locationOf(await pageAction(user.cookie, fields))).toBe(locationOf(saved));
    const rows = await db.select().from(chapters).where(eq(chapters.workId, w.id)).orderBy(asc(chapters.position));
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ title: "雨夜来信", state: "draft", content: generated, aiLevel: "generated" });

    await pageAction(user.cookie, { ...fields, mode: "publish", title: "第二章 雨夜", formToken: key() });
    const published = await db.select().from(chapters).where(and(eq(chapters.workId, w.id), eq(chapters.title, "第二章 雨夜")));
    expect(published[0].state).toBe("published");

    const draftId = await insertChapter(user.id, w.id, { title: "草稿章", content: "开头几句。", release: { mode: "draft" } }, "end");
    const appended = await pageAction(user.cookie, { ...fields, mode: "append", chapterId: String(draftId), workId: "", formToken: "" });
    expect(locationOf(appended)).toMatch(new RegExp(`chapterSaved=${w.id}-${draftId}-append$`));
    const [draft] = await db.select().from(chapters).where(eq(chapters.id, draftId));
    expect(draft.content).toBe(`开头几句。\n\n${generated}`);
    expect(draft.aiLevel).toBe("generated");
  });

  it("refuses others' works, published chapters, single-chapter works, empty text and missing choices", async () => {
    const user = await writer();
    const other = await writer();
    const { projectId, plotId } = await readyProject(user.id);
    const own = await work(user.id, "自己的");
    const single = await work(user.id, "单章", "single_chapter");
    const theirs = await work(other.id, "别人的");
    const base = { intent: "save-to-chapter", projectId, selectedPlotId: plotId, plotId };
    const count = async () => (await db.select().from(chapters)).length;
    const before = await count();

    let r = actionError(await pageAction(user.cookie, { ...base, mode: "draft", workId: String(own.id) }));
    expect(r.data.error).toBe("情节正文为空，没有可以保存的内容");
    await savePlotContent(user.id, projectId, plotId, "一段正文。");
    r = actionError(await pageAction(user.cookie, { ...base, mode: "draft", workId: "" }));
    expect(r.data.result?.error?.workId).toEqual(["请选择作品"]);
    r = actionError(await pageAction(user.cookie, { ...base, mode: "append" }));
    expect(r.data.result?.error?.chapterId).toEqual(["请选择要追加到的存稿章节"]);
    r = actionError(await pageAction(user.cookie, { ...base, mode: "draft", workId: String(theirs.id) }));
    expect([r.init?.status, r.data.error]).toEqual([404, "作品不存在"]);
    r = actionError(await pageAction(user.cookie, { ...base, mode: "draft", workId: String(single.id) }));
    expect(r.data.error).toBe("单章作品只有一章，不能添加章节");
    const [published] = await db.select().from(chapters).where(eq(chapters.workId, own.id));
    r = actionError(await pageAction(user.cookie, { ...base, mode: "append", chapterId: String(published.id) }));
    expect([r.init?.status, r.data.error]).toEqual([409, "只能追加到存稿章节，已发布或定时发布的章节请在章节管理中编辑"]);
    const [theirChapter] = await db.select().from(chapters).where(eq(chapters.workId, theirs.id));
    r = actionError(await pageAction(user.cookie, { ...base, mode: "append", chapterId: String(theirChapter.id) }));
    expect([r.init?.status, r.data.error]).toEqual([404, "章节不存在"]);
    r = actionError(await pageAction(other.cookie, { ...base, mode: "draft", workId: String(theirs.id) }));
    expect(r.init?.status).toBe(404);
    expect(await count()).toBe(before);
    const [{ content }] = await db.select({ content: chapters.content }).from(chapters).where(eq(chapters.id, published.id));
    expect(content).toBe("正文。");
  });
});

describe("the operations' prompts", () => {
  it("are seeded and cannot be deleted or renamed in the back office", async () => {
    const rows = await db.select().from(prompts);
    const codes = rows.map((r) => r.code);
    for (const code of ["P05", "P06", "P07", "P08", "P09"]) expect(codes).toContain(code);
    const p05 = rows.find((r) => r.code === "P05")!;
    const cookie = await adminCookieFor((await createAdmin()).id);
    const page = await import("~/routes/admin/prompts");
    const del = await callAction(page, adminRequest(`/admin/prompts?dialog=delete&id=${p05.id}`, { cookie }, { intent: "delete", id: String(p05.id) }));
    expect(del.status).toBe(409);
    expect(JSON.stringify(del.data)).toContain("内置提示词不能删除，只能修改内容");
    const renamed = await callAction(
      page,
      adminRequest(`/admin/prompts?dialog=edit&id=${p05.id}`, { cookie }, {
        intent: "update",
        id: String(p05.id),
        code: "P55",
        title: p05.title,
        systemContent: p05.systemContent,
        userContent: p05.userContent,
        type: "free",
      }),
    );
    expect(renamed.status).toBe(400);
    expect(JSON.stringify(renamed.data)).toContain("内置提示词的代码不能修改");
    expect((await db.select().from(prompts).where(eq(prompts.id, p05.id)))[0].code).toBe("P05");
  });
});
