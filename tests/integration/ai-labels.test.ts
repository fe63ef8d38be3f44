import { asc, eq } from "drizzle-orm";
import JSZip from "jszip";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, tokenTransactions, works } from "~/db/schema";
import { action as generateAction } from "~/routes/api/generate";
import { loader as adminTxtLoader } from "~/routes/exports/work-txt";
import { loader as exportLoader } from "~/routes/shell/studio/export";
import { aiLevelFor, rebuildAiLabels, textMarks } from "~/server/catalog/ai-labels.server";
import { NO_FILTERS } from "~/schemas/discovery";
import { searchWorks } from "~/server/catalog/search.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { createWork, refreshWorkCounts } from "~/server/catalog/works.server";
import { createProject, saveGeneratedVersion, savePlot } from "~/server/ai/writing-projects.server";
import { userRequest } from "../fixtures/accounts";
import { storyText, type FakeAiProvider } from "../fakes/ai-provider";
import { adminCookieFor, createAdmin, request } from "./admin-fixtures";
import { generateRequest, readEvents, readyProject, textOf, writer } from "./ai-helpers";
import { callThroughRoutes } from "./route-chain";
import { useFakeAiProvider } from "../fixtures/fake-ai";

/**
 * AI labels from the generation log (docs/product.md D15, decision 126): what a chapter
 * and a work are labelled after their author generated text here, the /works filter by
 * it, and the labels in the exports.
 */

let fake: FakeAiProvider;
useFakeAiProvider((f) => (fake = f), { timings: { retryBaseMs: 10, retryJitterMs: 5 } });

/** Text of the author's own: seeded random Chinese characters, sharing no 12-character run with the fake's story. */
function ownText(length: number, seed: number): string {
  let x = seed;
  let out = "";
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += String.fromCodePoint(0x4e00 + (x % 20000));
    if (i % 40 === 39) out += "\n";
  }
  return out;
}

/** An author who generated `text` through /api/generate (so it is in their generation log). */
async function authorWhoGenerated(text: string) {
  const user = await writer(500_000);
  const fields = await readyProject(user.id);
  fake.enqueue({ text, chunkCount: 20 });
  const events = await readEvents((await callThroughRoutes(generateAction, { request: generateRequest(user.cookie, fields) })) as Response);
  expect(textOf(events)).toBe(text);
  return user;
}

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

async function chapterRows(workId: number) {
  return db
    .select({ id: chapters.id, aiLevel: chapters.aiLevel, aiChars: chapters.aiChars, wordCount: chapters.wordCount })
    .from(chapters)
    .where(eq(chapters.workId, workId))
    .orderBy(asc(chapters.position), asc(chapters.id));
}

async function workLevel(workId: number) {
  const [row] = await db.select({ aiLevel: works.aiLevel }).from(works).where(eq(works.id, workId));
  return row.aiLevel;
}

const GENERATED = storyText(1200);

describe("a chapter's level from its author's generation log", () => {
  it("the rule: AI生成 from half the characters, AI辅助 from 5% or 200 characters", () => {
    expect(aiLevelFor(0, 1000)).toBe("none");
    expect(aiLevelFor(49, 1000)).toBe("none");
    expect(aiLevelFor(50, 1000)).toBe("assisted");
    expect(aiLevelFor(200, 100_000)).toBe("assisted");
    expect(aiLevelFor(500, 1000)).toBe("generated");
    // Whitespace and line breaks do not hide a copied run.
    expect(textMarks("夜色渐深，雨丝斜斜地落在青石板上。她撑着一把旧油纸伞")).toEqual(textMarks("夜色渐深，\n雨丝斜斜地 落在青石板上。\u3000她撑着一把旧油纸伞"));
  });

  it("labels pasted AI text, mixed text and the author's own text; another author pasting the same text is not labelled", async () => {
    const author = await authorWhoGenerated(GENERATED);
    const mine = ownText(3000, 1);
    const work = await createWork(
      author.id,
      { ...base, title: "标签测试甲", type: "series", status: "ongoing" },
      [
        { title: "全是生成", content: GENERATED },
        { title: "夹了一段", content: `${mine}\n${Array.from(GENERATED).slice(100, 400).join("")}\n${ownText(200, 2)}` },
        { title: "自己写的", content: `${ownText(2000, 3)}${Array.from(GENERATED).slice(0, 11).join("")}` },
      ],
      null,
    );
    const [all, mixed, own] = await chapterRows(work.id);
    expect(all.aiLevel).toBe("generated");
    expect(all.aiChars).toBeGreaterThan(all.wordCount * 0.9);
    expect(mixed.aiLevel).toBe("assisted");
    // 300 copied characters, found within a run's length at each end.
    expect(mixed.aiChars).toBeGreaterThan(270);
    expect(mixed.aiChars).toBeLessThanOrEqual(300 + 24);
    expect(own).toMatchObject({ aiLevel: "none", aiChars: 0 });
    // 1,200 of about 6,500 characters: labelled, but not mostly generated.
    expect(await workLevel(work.id)).toBe("assisted");

    const other = await writer();
    const copied = await createWork(other.id, { ...base, title: "标签测试乙", type: "single_chapter", status: "completed" }, [{ title: "转载", content: GENERATED }], null);
    expect((await chapterRows(copied.id))[0].aiLevel).toBe("none");
    expect(await workLevel(copied.id)).toBe("none");
  });

  it("follows the text: a saved chapter and a new chapter are labelled, and the work with them", async () => {
    const author = await authorWhoGenerated(GENERATED);
    const work = await createWork(author.id, { ...base, title: "标签测试丙", type: "series", status: "ongoing" }, [{ title: "第一章", content: ownText(1000, 4) }], null);
    expect(await workLevel(work.id)).toBe("none");
    const [first] = await chapterRows(work.id);

    await saveChapter(author.id, work.id, first.id, { kind: "save", content: GENERATED });
    expect((await chapterRows(work.id))[0].aiLevel).toBe("generated");
    expect(await workLevel(work.id)).toBe("generated");

    await insertChapter(author.id, work.id, { title: "第二章", content: ownText(4000, 5) }, "end");
    const rows = await chapterRows(work.id);
    expect(rows.map((r) => r.aiLevel)).toEqual(["generated", "none"]);
    // 1,200 AI characters of 5,200: the work is AI辅助 now.
    expect(await workLevel(work.id)).toBe("assisted");

    // A draft's AI text is labelled but readers see no change until it is published.
    await insertChapter(author.id, work.id, { title: "存稿", content: GENERATED, release: { mode: "draft" } }, "end");
    expect((await chapterRows(work.id))[2].aiLevel).toBe("generated");
    expect(await workLevel(work.id)).toBe("assisted");
  });
});

describe("npm run ai:relabel", () => {
  it("puts generations kept from before the log into it and labels the author's works again", async () => {
    const author = await writer();
    // A chapter published before its author's generation was logged: not labelled.
    const work = await createWork(author.id, { ...base, title: "补标签", type: "single_chapter", status: "completed" }, [{ title: "正文", content: GENERATED }], null);
    expect(await workLevel(work.id)).toBe("none");
    const project = await createProject(author.id, "free", "旧项目");
    const plotId = await savePlot(author.id, project.id, { title: "旧情节", summary: "概要", environment: "环境", expectedWords: 1000, characterIds: [], additionalNotes: "" });
    const [charge] = await db
      .insert(tokenTransactions)
      .values({ userId: author.id, amount: -1, type: "generation", description: "旧的生成", promptChars: 4, outputChars: 1200, model: "old" })
      .returning({ id: tokenTransactions.id });
    await db.transaction((tx) =>
      saveGeneratedVersion(tx, plotId, { content: GENERATED, model: "old", tokensCharged: 1, promptChars: 4, outputChars: 1200, endReason: "complete", transactionId: charge.id }),
    );

    await rebuildAiLabels(refreshWorkCounts);
    expect((await chapterRows(work.id))[0].aiLevel).toBe("generated");
    expect(await workLevel(work.id)).toBe("generated");
    // Again: nothing changes.
    await rebuildAiLabels(refreshWorkCounts);
    expect(await workLevel(work.id)).toBe("generated");
  });
});

describe("readers filter by it, beside show_ai", () => {
  it("/works?ai= lists the works of that level; show_ai off hides AI生成 works too", async () => {
    const author = await authorWhoGenerated(GENERATED);
    const tag = `筛选${Date.now()}`;
    const make = (title: string, content: string, isAiGenerated = false) =>
      createWork(author.id, { ...base, isAiGenerated, title: `${tag}${title}`, type: "single_chapter", status: "completed" }, [{ title: "正文", content }], null);
    const none = await make("无", ownText(800, 6));
    const assisted = await make("辅助", `${ownText(2000, 7)}${Array.from(GENERATED).slice(0, 300).join("")}`);
    const generated = await make("生成", GENERATED);
    const ticked = await make("勾选", ownText(800, 8), true);

    const ids = async (ai: "none" | "assisted" | "generated" | null, showAi = true) =>
      (await searchWorks({ query: tag, page: 1, viewer: { showR18: false, showAi }, filters: { ...NO_FILTERS, ai }, countCap: 1000 })).works.map((w) => w.id).sort();
    const sorted = (...list: number[]) => list.sort();
    expect(await ids(null)).toEqual(sorted(none.id, assisted.id, generated.id, ticked.id));
    expect(await ids("none")).toEqual([none.id]);
    expect(await ids("assisted")).toEqual([assisted.id]);
    expect(await ids("generated")).toEqual(sorted(generated.id, ticked.id));
    expect(await ids(null, false)).toEqual(sorted(none.id, assisted.id));
    // The cards carry the level for the badge.
    const cards = (await searchWorks({ query: tag, page: 1, viewer: null, filters: { ...NO_FILTERS, ai: "generated" }, countCap: 1000 })).works;
    expect(cards.find((w) => w.id === generated.id)?.aiLevel).toBe("generated");
  });
});

describe("exports carry the label, visible and as metadata", () => {
  it("the author's TXT and EPUB and the admin TXT of a labelled work; an unlabelled work's files are unchanged", async () => {
    const author = await authorWhoGenerated(GENERATED);
    const work = await createWork(
      author.id,
      { ...base, title: "导出标签", type: "series", status: "ongoing" },
      [
        { title: "第一章 自己写", content: ownText(3000, 9) },
        { title: "第二章 生成", content: GENERATED },
      ],
      null,
    );
    expect(await workLevel(work.id)).toBe("assisted");
    const download = async (path: string) => (await callThroughRoutes(exportLoader, { request: userRequest(author.cookie, path) })) as Response;

    const txt = await (await download(`/works/${work.id}/export.txt`)).text();
    const header = txt.slice(0, txt.indexOf("\n####\n"));
    expect(header).toContain("【AI生成内容标识】本作品含人工智能生成的内容（AI辅助）");
    expect(header).toContain("AI生成的章节：第2章");
    const aigc = JSON.parse(/^AIGC: (.+)$/m.exec(header)![1]) as Record<string, string>;
    // GB 45438-2025 annex E's seven elements, by their field names.
    expect(aigc).toEqual({
      Label: "1",
      ContentProducer: "砚台",
      ProduceID: `inkstone-work-${work.id}`,
      ReservedCode1: "assisted",
      ContentPropagator: "砚台",
      PropagateID: `inkstone-work-${work.id}`,
      ReservedCode2: "",
    });

    const zip = await JSZip.loadAsync(new Uint8Array(await (await download(`/works/${work.id}/export.epub`)).arrayBuffer()));
    const opf = await zip.file("OEBPS/content.opf")!.async("string");
    expect(opf).toContain(`<meta name="AIGC" content="{&quot;Label&quot;:&quot;1&quot;,&quot;ContentProducer&quot;:&quot;砚台&quot;`);
    expect(await zip.file("OEBPS/title.xhtml")!.async("string")).toContain("【AI生成内容标识】本作品含人工智能生成的内容（AI辅助）");
    expect(await zip.file("OEBPS/text/c2.xhtml")!.async("string")).toContain("【AI生成】本章大部分文字由人工智能生成。");
    expect(await zip.file("OEBPS/text/c1.xhtml")!.async("string")).not.toContain("【AI");

    const admin = await createAdmin();
    const adminTxt = async (id: number) =>
      (await (
        (await callThroughRoutes(adminTxtLoader, { request: request(`/exports/works/${id}/txt`, { cookie: await adminCookieFor(admin.id) }) })) as Response
      ).text());
    const adminText = await adminTxt(work.id);
    expect(adminText.startsWith("《导出标签》\n【AI生成内容标识】")).toBe(true);
    expect(adminText).toMatch(/^AIGC: \{"Label":"1"/m);

    const plain = await createWork(author.id, { ...base, title: "无标签", type: "single_chapter", status: "completed" }, [{ title: "正文", content: ownText(500, 10) }], null);
    expect((await adminTxt(plain.id)).startsWith("####\n")).toBe(true);
    expect(await (await download(`/works/${plain.id}/export.txt`)).text()).not.toContain("AIGC");
  });
});
