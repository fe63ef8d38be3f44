import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, continuityFindings } from "~/db/schema";
import { action as continuityAction, loader as continuityLoader } from "~/routes/shell/studio/continuity";
import { AI_REVIEW_LABEL, CONTINUITY_MESSAGES } from "~/schemas/continuity-rules";
import { createWork } from "~/server/catalog/works.server";
import { saveEntity } from "~/server/studio/bible.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { takeFlash } from "~/server/platform/flash.server";
import { aiReviewChapter, parseReviewReply } from "~/server/studio/continuity-review.server";
import { saveState, waiveFinding } from "~/server/studio/continuity.server";
import type { FakeAiProvider } from "../fakes/ai-provider";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { useFakeAiProvider } from "../fixtures/fake-ai";
import { aiRows, setTokens, tokensOf, writer } from "./ai-helpers";
import { bodyOf, locationOf, callAs } from "./route-chain";

/**
 * The optional AI 审读 of a chapter on /works/:id/continuity (issue 33 part 4, decision 258):
 * the prompt carries the chapter and the state ledger; the findings are stored beside the
 * rules', marked AI 审读, waivable, kept by a save; charged like a summary, refunded (with
 * nothing written) when the answer is not the expected JSON or the provider fails.
 */

let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f));

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };
async function serial(userId: string) {
  const list = [
    { title: "第一章 雨夜", content: "老周死在了雨夜里。" },
    { title: "第二章 来信", content: "林晚收到一封信。\n\n信上说，老周还在码头等她。" },
  ];
  return createWork(userId, { ...base, title: "长夜行", type: "series", status: "ongoing" }, list, null);
}
/** A refused 审读 comes back as an error notice on the redirect (decision 258): the notice's text, from its cookie. */
async function refusal(result: unknown): Promise<{ status: number; location: string | null; text: string }> {
  const response = result as Response;
  const location = response.headers.get("Location");
  const cookie = (response.headers.get("Set-Cookie") ?? "").split(";")[0];
  const url = new URL(location ?? "/", "http://localhost");
  const { notice } = await takeFlash(new Request(url, { headers: { Cookie: cookie } }), url);
  expect(notice?.kind).toBe("error");
  return { status: response.status, location, text: notice?.text ?? "" };
}
const aiFindings = async (workId: number) => (await db.select().from(continuityFindings).where(eq(continuityFindings.workId, workId))).filter((f) => f.source === "ai");

describe("AI 审读", () => {
  it("reviews a chapter: the prompt carries the text and the ledger, findings are marked AI 审读, waivable, kept by a save, replaced by the next review; charged on the usage", async () => {
    const user = await writer(1_000_000);
    const work = await serial(user.id);
    const zhou = await saveEntity(user.id, work.id, { kind: "character", name: "周伯", aliases: "老周" });
    await saveState(user.id, work.id, { entityId: zhou, kind: "life", chapter: 1, value: "死亡" });
    const [, second] = await db.select().from(chapters).where(eq(chapters.workId, work.id)).orderBy(chapters.position);
    const path = `/works/${work.id}/continuity`;
    // The rules find the dead man speaking on the save.
    await saveChapter(user.id, work.id, second.id, { kind: "save", content: "林晚收到一封信。\n\n信上说，老周还在码头等她。\n\n老周说：“信是我写的。”" });
    const before = await tokensOf(user.id);

    const reply = JSON.stringify({ 问题: [{ 引文: "老周还在码头等她", 说明: "周伯第1章已死亡，不能在码头等人" }, { 说明: "信的来历前后不一" }] });
    fake.enqueue({ reply });
    const done = await callAs(continuityAction, user.cookie, path, { intent: "ai-review", chapter: "2" });
    expect(locationOf(done)).toBe(path);
    const sent = fake.requests.at(-1)!;
    expect(sent.user).toContain("第2章「第二章 来信」");
    expect(sent.user).toContain("信上说，老周还在码头等她。\n\n老周说：“信是我写的。”");
    expect(sent.user).toContain("第1章起 周伯（又称：老周） 生死：死亡");

    const found = await aiFindings(work.id);
    expect(found.map((f) => [f.chapterId, f.chapterNumber, f.quote, f.message])).toEqual([
      [second.id, 2, "老周还在码头等她", "周伯第1章已死亡，不能在码头等人"],
      [second.id, 2, "", "信的来历前后不一"],
    ]);
    // Charged what the provider reported, on one ledger row.
    const rows = await aiRows(user.id);
    expect(rows.map((r) => [r.type, r.metering])).toEqual([["generation", "actual"]]);
    expect(await tokensOf(user.id)).toBe(before + Number(rows[0].amount));
    expect(Number(rows[0].amount)).toBeLessThan(0);

    // On the page, beside the rules' finding (the same dead man speaking), marked as the AI's.
    type Page = { findings: { id: number; source: string; rule: string; message: string }[] };
    const page = bodyOf<Page>(await callAs(continuityLoader, user.cookie, path));
    expect(page.findings.filter((f) => f.source === "ai")).toHaveLength(2);
    expect(page.findings.filter((f) => f.source === "rule").length).toBeGreaterThan(0);
    expect(AI_REVIEW_LABEL).toBe("AI 审读");

    // Waivable like the others; a save re-runs the rules and keeps the AI's findings and the waiver.
    const first = page.findings.find((f) => f.source === "ai")!;
    await waiveFinding(user.id, work.id, first.id, "他诈死");
    await saveChapter(user.id, work.id, second.id, { kind: "save", content: "林晚收到一封信。\n\n信上说，老周还在码头等她。\n\n老周说：“信是我写的。”又及。" });
    expect(await aiFindings(work.id)).toHaveLength(2);
    expect(bodyOf<Page>(await callAs(continuityLoader, user.cookie, `${path}?show=waived`)).findings.map((f) => f.message)).toEqual(["周伯第1章已死亡，不能在码头等人"]);

    // The next review replaces the chapter's AI findings.
    fake.enqueue({ reply: '好的。{"问题": []}' });
    await callAs(continuityAction, user.cookie, path, { intent: "ai-review", chapterId: String(second.id), back: "chapter" });
    expect(await aiFindings(work.id)).toEqual([]);
  });

  it("an answer that is not the expected JSON says so and refunds; a provider failure refunds; nothing is written", async () => {
    const user = await writer(1_000_000);
    const work = await serial(user.id);
    const path = `/works/${work.id}/continuity`;
    fake.enqueue({ reply: JSON.stringify({ 问题: [{ 引文: "老周", 说明: "第一次的结果" }] }) });
    await callAs(continuityAction, user.cookie, path, { intent: "ai-review", chapter: "2" });
    const balance = await tokensOf(user.id);

    for (const bad of ["我读完了，没有发现问题。", '{"结论": "没有问题"}', "{不是JSON}"]) {
      fake.enqueue({ reply: bad });
      const refused = await refusal(await callAs(continuityAction, user.cookie, path, { intent: "ai-review", chapter: "2" }));
      expect(refused).toEqual({ status: 302, location: `${path}#ai-review`, text: CONTINUITY_MESSAGES.reviewUnreadable });
    }
    fake.enqueue({ status: 400 });
    const failed = await refusal(await callAs(continuityAction, user.cookie, path, { intent: "ai-review", chapter: "2" }));
    expect(failed.text).toBe("API请求失败(400)");
    // Every failure refunded in full; the earlier findings untouched.
    expect(await tokensOf(user.id)).toBe(balance);
    expect((await aiRows(user.id)).filter((r) => r.type === "refund")).toHaveLength(4);
    expect((await aiFindings(work.id)).map((f) => f.message)).toEqual(["第一次的结果"]);
  });

  it("refuses a chapter that is not there, another's work, and an author without tokens, calling nothing", async () => {
    const user = await writer(1_000_000);
    const other = await createUser();
    const work = await serial(user.id);
    const path = `/works/${work.id}/continuity`;
    const calls = fake.requests.length;
    for (const chapter of ["", "0", "3", "二"]) {
      const refused = await refusal(await callAs(continuityAction, user.cookie, path, { intent: "ai-review", chapter }));
      expect(refused.text).toBe(CONTINUITY_MESSAGES.reviewChapter);
    }
    expect((await domainError(aiReviewChapter(other.id, work.id, { number: "1" }))).status).toBe(404);
    expect((await refusal(await callAs(continuityAction, await sessionCookieFor(other.id), path, { intent: "ai-review", chapter: "1" }))).text).toBe("作品不存在");
    await setTokens(user.id, 0);
    expect((await domainError(aiReviewChapter(user.id, work.id, { number: "1" }))).status).toBe(402);
    expect((await refusal(await callAs(continuityAction, user.cookie, path, { intent: "ai-review", chapter: "1" }))).text).toContain("余额不足");
    expect(fake.requests.length).toBe(calls);
    expect(await aiFindings(work.id)).toEqual([]);
  });

  it("reads only the expected JSON", () => {
    expect(parseReviewReply('```json\n{"问题": [{"引文": "原句", "说明": "矛盾"}, {"引文": "无说明"}, 3]}\n```')).toEqual([{ quote: "原句", message: "矛盾" }]);
    expect(() => parseReviewReply('{"问题": "没有"}')).toThrow();
    expect(() => parseReviewReply("没有问题")).toThrow();
  });
});
