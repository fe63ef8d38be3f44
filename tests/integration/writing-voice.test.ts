import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { voicePassages, workCliches } from "~/db/schema";
import { action as continueAction } from "~/routes/api/continue";
import { action as bibleAction, loader as bibleLoader } from "~/routes/shell/studio/bible";
import { loader as contextLoader } from "~/routes/shell/studio/context";
import { loader as seriesLoader } from "~/routes/shell/writing/series-writing";
import { clicheCountLine, DEFAULT_CLICHES, VOICE_LIMITS, VOICE_MESSAGES } from "~/schemas/voice";
import { createWork } from "~/server/catalog/works.server";
import { assembleContinuationContext } from "~/server/studio/context.server";
import { addVoicePassage, countCliches, deleteVoicePassage, saveCliches } from "~/server/studio/voice.server";
import type { FakeAiProvider } from "../fakes/ai-provider";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { useFakeAiProvider } from "../fixtures/fake-ai";
import { readEvents, textOf, writer } from "./ai-helpers";
import { bodyOf, callThroughRoutes, locationOf, statusOf, callAs } from "./route-chain";

/**
 * The author's voice (issue 33 part 2, decision 257): a work's 文风 sample and 套话, sent with
 * 连载续写 (the sample within a quarter of the budget, shown in 本次上下文), the 套话 counted
 * in each result; bad input refused with nothing written.
 */

let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f));

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };
function serial(userId: string, n = 3) {
  const list = Array.from({ length: n }, (_, i) => ({ title: `第${i + 1}章`, content: `第${i + 1}章的正文。` }));
  return createWork(userId, { ...base, title: "长夜行", type: "series", status: "ongoing" }, list, null);
}
const errorOf = (result: unknown) => bodyOf<{ error: string }>(result).error;
const passagesOf = (workId: number) => db.select().from(voicePassages).where(eq(voicePassages.workId, workId));
const clichesOf = async (workId: number) => (await db.select().from(workCliches).where(eq(workCliches.workId, workId))).map((c) => c.phrase).sort();

let owner: { id: string };
let other: { id: string };
beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
});

describe("the 文风 sample and the 套话 list", () => {
  it("the bible's 文风 tab adds, lists and deletes passages for the author only; bad input gets a Chinese message and writes nothing", async () => {
    const work = await serial(owner.id);
    const cookie = await sessionCookieFor(owner.id);
    const path = `/works/${work.id}/bible?tab=voice`;
    const page = bodyOf<{ formTokens: { voice: string } }>(await callAs(bibleLoader, cookie, path));
    const added = await callAs(bibleAction, cookie, path, { intent: "voice-add", content: "\n  雨下得很细，像有人在远处筛面粉。  \r\n\n", source: "chapter", formToken: page.formTokens.voice });
    expect(locationOf(added)).toBe(`/works/${work.id}/bible?tab=voice#voice-sample`);
    const [kept] = await passagesOf(work.id);
    expect([kept.content, kept.source]).toEqual(["雨下得很细，像有人在远处筛面粉。", "chapter"]);
    const view = bodyOf<{ voice: { passages: { content: string; chars: number }[]; defaults: string[]; own: string[] } }>(await callAs(bibleLoader, cookie, path)).voice;
    expect(view.passages).toEqual([expect.objectContaining({ content: "雨下得很细，像有人在远处筛面粉。", chars: 16 })]);
    expect(view.defaults).toEqual([...DEFAULT_CLICHES]);

    // Empty, only spaces, too long, the same passage again, an unknown source: refused, nothing written.
    for (const [fields, message, status] of [
      [{ content: "" }, VOICE_MESSAGES.passageEmpty, 400],
      [{ content: " \n\u3000 " }, VOICE_MESSAGES.passageEmpty, 400],
      [{ content: "字".repeat(VOICE_LIMITS.passage + 1) }, VOICE_MESSAGES.passageTooLong, 400],
      [{ content: "雨下得很细，像有人在远处筛面粉。" }, VOICE_MESSAGES.passageDuplicate, 409],
      [{ content: "另一段", source: "wiki" }, VOICE_MESSAGES.sourceInvalid, 400],
    ] as const) {
      const refused = await callAs(bibleAction, cookie, path, { intent: "voice-add", source: "pasted", ...fields });
      expect([statusOf(refused), errorOf(refused)]).toEqual([status, message]);
    }
    expect(await passagesOf(work.id)).toHaveLength(1);
    // A full sample takes no 21st passage.
    for (let i = 2; i <= VOICE_LIMITS.passages; i++) await addVoicePassage(owner.id, work.id, { content: `第${i}段样本。` });
    expect((await domainError(addVoicePassage(owner.id, work.id, { content: "第二十一段。" }))).message).toBe(VOICE_MESSAGES.passagesTooMany);
    expect(await passagesOf(work.id)).toHaveLength(VOICE_LIMITS.passages);

    // Only the author: another's form is 404 and changes nothing.
    expect(statusOf(await callAs(bibleAction, await sessionCookieFor(other.id), path, { intent: "voice-add", content: "别人的文字" }))).toBe(404);
    expect((await domainError(deleteVoicePassage(other.id, work.id, kept.id))).status).toBe(404);
    const deleted = await callAs(bibleAction, cookie, path, { intent: "voice-delete", id: String(kept.id) });
    expect(locationOf(deleted)).toBe(`/works/${work.id}/bible?tab=voice#voice-sample`);
    expect((await domainError(deleteVoicePassage(owner.id, work.id, kept.id))).message).toBe(VOICE_MESSAGES.passageNotFound);
    expect(await passagesOf(work.id)).toHaveLength(VOICE_LIMITS.passages - 1);
  });

  it("saves the author's own 套话 whole or not at all: too short, too long, too many, duplicates and defaults are refused", async () => {
    const work = await serial(owner.id);
    const cookie = await sessionCookieFor(owner.id);
    const path = `/works/${work.id}/bible?tab=voice`;
    const saved = await callAs(bibleAction, cookie, path, { intent: "cliches-save", cliches: "心头一颤\n眼神一凝、 不禁莞尔 \n\n" });
    expect(locationOf(saved)).toBe(`/works/${work.id}/bible?tab=voice#voice-cliches`);
    expect(await clichesOf(work.id)).toEqual(["不禁莞尔", "心头一颤", "眼神一凝"].sort());

    for (const [text, message] of [
      ["心头一颤\n颤", VOICE_MESSAGES.clicheTooShort("颤")],
      ["心头一颤\n" + "长".repeat(21), VOICE_MESSAGES.clicheTooLong("长".repeat(21))],
      ["心头一颤\n眼神一凝\n心头一颤", VOICE_MESSAGES.clicheDuplicate("心头一颤")],
      // Folded as the screening matcher folds: traditional and simplified are one phrase.
      ["心頭一顫\n心头一颤", VOICE_MESSAGES.clicheDuplicate("心头一颤")],
      ["心头一颤\n缓缓", VOICE_MESSAGES.clicheIsDefault("缓缓")],
      [Array.from({ length: VOICE_LIMITS.cliches + 1 }, (_, i) => `套话${i}号`).join("\n"), VOICE_MESSAGES.clichesTooMany],
    ] as const) {
      const refused = await callAs(bibleAction, cookie, path, { intent: "cliches-save", cliches: text });
      expect([statusOf(refused), errorOf(refused)]).toEqual([400, message]);
    }
    expect(await clichesOf(work.id)).toEqual(["不禁莞尔", "心头一颤", "眼神一凝"].sort());
    expect((await domainError(saveCliches(other.id, work.id, "别人的套话"))).status).toBe(404);
    // An empty list leaves the defaults only.
    expect(await saveCliches(owner.id, work.id, "  \n")).toEqual([]);
    expect(await clichesOf(work.id)).toEqual([]);
  });

  it("counts 套话 deterministically, folded as screening folds, most first", () => {
    const cliches = [...DEFAULT_CLICHES, "心头一颤"];
    const text = "他缓缓抬头，深吸一口气。她缓缓走来，緩緩坐下，心头一颤。";
    const counts = countCliches(text, cliches);
    expect(counts).toEqual([
      { phrase: "缓缓", count: 3 },
      { phrase: "深吸一口气", count: 1 },
      { phrase: "心头一颤", count: 1 },
    ]);
    expect(clicheCountLine(counts)).toBe("本次结果含套话 5 处：缓缓×3、深吸一口气×1、心头一颤×1");
    expect(clicheCountLine(countCliches("干净的句子。", cliches))).toBe("本次结果未含套话");
  });
});

describe("the voice in 连载续写", () => {
  it("sends the sample and the 套话 to the model (as the provider received them) and counts the 套话 in the result, streamed and without JavaScript", async () => {
    const user = await writer(1_000_000);
    const work = await serial(user.id, 3);
    await addVoicePassage(user.id, work.id, { content: "老周的烟袋锅子一明一灭，像夜里不肯睡的萤火。", source: "chapter" });
    await addVoicePassage(user.id, work.id, { content: "她把伞收了，雨就落在她肩上，落得理直气壮。", source: "ai" });
    await saveCliches(user.id, work.id, "心头一颤");

    const reply = "老周缓缓起身，深吸一口气。林晚缓缓回头，心头一颤。";
    fake.enqueue({ text: reply, chunkCount: 3 });
    const requestKey = randomBytes(12).toString("base64url");
    const response = (await callThroughRoutes(continueAction, {
      request: new Request("http://localhost/api/continue", {
        method: "POST",
        headers: { Cookie: user.cookie, Origin: "http://localhost" },
        body: new URLSearchParams({ workId: String(work.id), chapter: "4", plan: "老周去码头。", requestKey }),
      }),
    })) as Response;
    const events = await readEvents(response);
    expect(textOf(events)).toBe(reply);
    const sent = fake.requests.at(-1)!;
    // The newest passage first, under its heading; the 套话, defaults and the author's own.
    expect(sent.user).toContain("【文风样本（作者本人的文字：学习其语气、节奏和用词，不要照抄内容）】\n她把伞收了，雨就落在她肩上，落得理直气壮。\n\n老周的烟袋锅子一明一灭，像夜里不肯睡的萤火。");
    expect(sent.user).toContain(`【避免使用的套话（除非情节确实需要，不要写这些词句）】\n${[...DEFAULT_CLICHES, "心头一颤"].join("、")}`);
    const done = events.find((e) => e.event === "done")?.data as { cliches: { phrase: string; count: number }[] };
    expect(done.cliches).toEqual([
      { phrase: "缓缓", count: 2 },
      { phrase: "深吸一口气", count: 1 },
      { phrase: "心头一颤", count: 1 },
    ]);

    // Without JavaScript the page finds the result by its key, with the same counts.
    const page = bodyOf<{ page: { result: { text: string; cliches: { phrase: string; count: number }[] } } }>(
      await callAs(seriesLoader, user.cookie, `/series-writing?work=${work.id}&chapter=4&result=${requestKey}`),
    ).page;
    expect(page.result.text).toBe(reply);
    expect(page.result.cliches).toEqual(done.cliches);
  });

  it("sends the sample within a quarter of the budget, newest first, whole passages; 本次上下文 shows what it costs and what was left out", async () => {
    const work = await serial(owner.id, 2);
    const older = "旧".repeat(300);
    const newer = "新".repeat(500);
    await addVoicePassage(owner.id, work.id, { content: older });
    await addVoicePassage(owner.id, work.id, { content: newer });

    // A roomy budget sends both, newest first.
    const roomy = await assembleContinuationContext(work.id, 3, "", { budgetTokens: 100_000 });
    expect(roomy.voice.passages.map((p) => [p.chars, p.sent])).toEqual([
      [500, true],
      [300, true],
    ]);
    expect(roomy.prompt.user.indexOf(newer)).toBeLessThan(roomy.prompt.user.indexOf(older));
    expect(roomy.sections.find((s) => s.key === "voice-sample")).toMatchObject({ available: 2, included: 2 });

    // A budget whose quarter holds the newer passage but not both: the older is left out (not cut).
    // 600 tokens: 2,400 characters, a quarter of them 600 (CHARS_PER_TOKEN 4).
    const budget = 600;
    const tight = await assembleContinuationContext(work.id, 3, "", { budgetTokens: budget });
    expect(tight.voice.passages.map((p) => [p.chars, p.sent])).toEqual([
      [500, true],
      [300, false],
    ]);
    expect(tight.prompt.user).toContain(newer);
    expect(tight.prompt.user).not.toContain("旧旧");
    expect(tight.voice.sampleChars).toBe(500);
    expect(tight.chars).toBeLessThanOrEqual(budget * 4);

    // 本次上下文 lists the same.
    const preview = bodyOf<{ result: { view: { voice: { passages: { sent: boolean; tokens: number }[]; cliches: string[] } } } }>(
      await callAs(contextLoader, await sessionCookieFor(owner.id), `/works/${work.id}/context?chapter=3`),
    ).result.view.voice;
    expect(preview.passages.map((p) => p.sent)).toEqual([true, true]);
    expect(preview.passages[0].tokens).toBeGreaterThan(0);
    expect(preview.cliches).toEqual([...DEFAULT_CLICHES]);
  });
});
