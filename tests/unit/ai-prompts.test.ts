import { describe, expect, it } from "vitest";
import { generationValues, renderTemplate } from "~/server/ai/render";
import { affordablePrefix, countChars, tokensFor, tokensForChars } from "~/utils/ai-tokens";
import { parseExpectedWords, plotSchema, characterSchema } from "~/schemas/writing";
import { DEFAULT_PROMPTS } from "~/server/platform/defaults.server";

describe("renderTemplate", () => {
  it("substitutes every {|placeholder|} the product fills", () => {
    const out = renderTemplate("梗概{|synopsis|}角色{|character-setting|}大纲{|outline|}本段{|key-moment|}字数{|expected-word-count|}出场{|key-character|}环境{|key-stage|}补充{|additional-information|}", {
      synopsis: "S",
      "character-setting": "C",
      outline: "O",
      "key-moment": "K",
      "expected-word-count": "1000",
      "key-character": "KC",
      "key-stage": "ST",
      "additional-information": "A",
    });
    expect(out).toBe("梗概S角色C大纲O本段K字数1000出场KC环境ST补充A");
  });

  it("substitutes in one pass: a value that looks like a placeholder stays as typed", () => {
    const out = renderTemplate("{|synopsis|} / {|outline|}", { synopsis: "我的设定里写了{|outline|}和{|key-stage|}", outline: "秘密大纲" });
    expect(out).toBe("我的设定里写了{|outline|}和{|key-stage|} / 秘密大纲");
  });

  it("is not fooled by $-patterns in values", () => {
    expect(renderTemplate("[{|synopsis|}]", { synopsis: "$& $1 $$ $`" })).toBe("[$& $1 $$ $`]");
  });

  it("takes {|theme|} (the admin document's example) as the synopsis, and leaves unknown names as written", () => {
    expect(renderTemplate("{|theme|}|{|unknown|}|{| synopsis |}", { synopsis: "S" })).toBe("S|{|unknown|}|{| synopsis |}");
  });

  it("fills the default prompts completely", () => {
    const values = generationValues({
      theme: "设定",
      characters: [{ id: "c1", name: "甲", personality: "乙", appearance: "丙", other: "" }],
      plots: [{ id: "p1", title: "标题", summary: "概要", environment: "环境", expectedWords: 800, additionalNotes: "", characterIds: ["c1"] }],
      plot: { id: "p1", title: "标题", summary: "概要", environment: "环境", expectedWords: 800, additionalNotes: "", characterIds: ["c1"] },
    });
    // The editor's operations (P05-P09, decision 130) also fill the selection and its
    // surroundings; P04, P10 and P11 are filled by their own code (the test below).
    const operation = { "selected-text": "选中", "preceding-text": "前文", "following-text": "后文" };
    for (const prompt of DEFAULT_PROMPTS.filter((p) => !["P04", "P10", "P11"].includes(p.code))) {
      expect(renderTemplate(prompt.userContent, { ...values, ...operation, synopsis: values.synopsis })).not.toMatch(/\{\|[a-z-]+\|\}/);
    }
  });

  it("fills P04 (continuation), P10 (chapter summary) and P11 (AI 审读) completely with the names their code fills", () => {
    const p04 = DEFAULT_PROMPTS.find((p) => p.code === "P04")!;
    const p10 = DEFAULT_PROMPTS.find((p) => p.code === "P10")!;
    const continuation = { "work-title": "书", "chapter-number": "41", plan: "计划", "earlier-summaries": "早", "recent-summaries": "近", "story-bible": "设定", "open-threads": "伏笔", "previous-ending": "结尾" };
    expect(renderTemplate(p04.userContent, continuation)).not.toMatch(/\{\|[a-z-]+\|\}/);
    const summary = { "work-title": "书", "chapter-number": "3", "chapter-title": "标题", "chapter-text": "正文", "known-entities": "林晚", "realm-ladder": "炼气、筑基" };
    expect(renderTemplate(p10.userContent, summary)).not.toMatch(/\{\|[a-z-]+\|\}/);
    // P11, the AI 审读 (decision 258).
    const p11 = DEFAULT_PROMPTS.find((p) => p.code === "P11")!;
    expect(renderTemplate(p11.userContent, { ...summary, ledger: "第1章起 周伯 生死：死亡" })).not.toMatch(/\{\|[a-z-]+\|\}/);
  });
});

describe("generationValues", () => {
  const characters = [
    { id: "c1", name: "林晚", personality: "倔强", appearance: "清瘦", other: "裁缝的女儿" },
    { id: "c2", name: "沈舟", personality: "沉默", appearance: "高个子", other: "" },
  ];
  const plots = [
    { id: "p1", title: "来信", summary: "收到信", environment: "雨夜", expectedWords: 1000, additionalNotes: "", characterIds: ["c1"] },
    { id: "p2", title: "重逢", summary: "见面", environment: "巷口", expectedWords: 1500, additionalNotes: "多写对话", characterIds: ["c2", "c1"] },
  ];
  it("describes every character, the outline in order and the selected plot", () => {
    const v = generationValues({ theme: " 江南 ", characters, plots, plot: plots[1] });
    expect(v.synopsis).toBe("江南");
    expect(v["character-setting"]).toBe("姓名：林晚\n性格：倔强\n外貌：清瘦\n其他：裁缝的女儿\n\n姓名：沈舟\n性格：沉默\n外貌：高个子");
    expect(v.outline).toBe("1. 来信：收到信\n2. 重逢：见面");
    expect(v["key-moment"]).toBe("重逢：见面");
    expect(v["expected-word-count"]).toBe("1500");
    expect(v["key-character"]).toContain("姓名：沈舟");
    expect(v["key-character"]).toContain("姓名：林晚");
    expect(v["key-stage"]).toBe("巷口");
    expect(v["additional-information"]).toBe("多写对话");
    expect(generationValues({ theme: "x", characters, plots, plot: plots[0] })["additional-information"]).toBe("无");
  });
});

describe("token arithmetic: 1 token per 4 characters, rounded up", () => {
  it("counts characters as code points", () => {
    expect(countChars("")).toBe(0);
    expect(countChars("abc")).toBe(3);
    expect(countChars("你好")).toBe(2);
    expect(countChars("😊a")).toBe(2);
  });

  it("rounds up", () => {
    expect([0, 1, 3, 4, 5, 8, 9].map(tokensForChars)).toEqual([0, 1, 1, 1, 2, 2, 3]);
    expect(tokensFor("一二三四五")).toBe(2);
    expect(tokensFor("😊😊😊😊")).toBe(1);
  });

  it("a whole generation is the prompt's cost plus the output's, each rounded up", () => {
    const prompt = 4 * 100 + 1;
    const output = 1001;
    expect(tokensForChars(prompt) + tokensForChars(output)).toBe(101 + 251);
  });

  it("cuts a piece at what the held tokens cover, never inside a character", () => {
    expect(affordablePrefix("一二三四五六", 0, 1)).toBe("一二三四");
    expect(affordablePrefix("一二三四五六", 2, 1)).toBe("一二");
    expect(affordablePrefix("😊😊😊", 3, 1)).toBe("😊");
    expect(affordablePrefix("一二", 4, 1)).toBe("");
    expect(affordablePrefix("一二", 0, 0)).toBe("");
    // Whatever is cut, the cost of all that was sent stays within the hold.
    for (let sent = 0; sent < 12; sent++) {
      for (let held = 0; held < 5; held++) {
        const piece = affordablePrefix("一二三四五六七八九十", sent, held);
        if (tokensForChars(sent) <= held) expect(tokensForChars(sent + countChars(piece))).toBeLessThanOrEqual(held);
      }
    }
  });
});

describe("writing forms (docs/product.md, Writing tools)", () => {
  const plot = { title: "标题", summary: "概要", environment: "环境" };

  it("expected words default to 1000, fall back to 1000 when unparsable, and must be 100 to 20000", () => {
    expect(parseExpectedWords(undefined)).toBe(1000);
    expect(parseExpectedWords("")).toBe(1000);
    expect(parseExpectedWords("abc")).toBe(1000);
    expect(parseExpectedWords(" 1500 ")).toBe(1500);
    expect(parseExpectedWords("1500.7")).toBe(1500);
    expect(plotSchema.parse({ ...plot }).expectedWords).toBe(1000);
    expect(plotSchema.parse({ ...plot, expectedWords: "一千" }).expectedWords).toBe(1000);
    const low = plotSchema.safeParse({ ...plot, expectedWords: "0" });
    expect(low.success ? null : low.error.issues[0].message).toBe("预计字数不能少于100字");
    const high = plotSchema.safeParse({ ...plot, expectedWords: "10000000" });
    expect(high.success ? null : high.error.issues[0].message).toBe("预计字数不能超过20000字");
    expect(plotSchema.safeParse({ ...plot, expectedWords: "100" }).success).toBe(true);
  });

  it("requires title, summary and environment; characters and notes are optional", () => {
    const r = plotSchema.safeParse({ title: " ", summary: "", environment: undefined });
    expect(r.success ? [] : r.error.issues.map((i) => i.message)).toEqual(["请输入情节标题", "请输入情节概要", "请输入情节环境"]);
    const ok = plotSchema.parse({ ...plot });
    expect(ok.characterIds).toEqual([]);
    expect(ok.additionalNotes).toBe("");
  });

  it("takes one character or many, without duplicates, and refuses more than 50", () => {
    const id = "0b7a8a4e-4a53-4f6e-9e55-1b0a0c7f9a01";
    expect(plotSchema.parse({ ...plot, characterIds: id }).characterIds).toEqual([id]);
    expect(plotSchema.parse({ ...plot, characterIds: [id, id] }).characterIds).toEqual([id]);
    const many = Array.from({ length: 500 }, (_, i) => `0b7a8a4e-4a53-4f6e-9e55-${String(i).padStart(12, "0")}`);
    const r = plotSchema.safeParse({ ...plot, characterIds: many });
    expect(r.success ? null : r.error.issues[0].message).toBe("每个情节最多选择50个角色");
  });

  it("requires a character's name, personality and appearance", () => {
    const r = characterSchema.safeParse({ name: "", personality: " ", appearance: "" });
    expect(r.success ? [] : r.error.issues.map((i) => i.message)).toEqual(["请输入角色姓名", "请输入角色性格", "请输入角色外貌"]);
    expect(characterSchema.parse({ name: "甲", personality: "乙", appearance: "丙" }).other).toBe("");
  });
});

describe("referenceSample (短篇仿写, decision 155)", () => {
  it("keeps a short text whole, cuts a long one at a sentence end within the limit, and is empty without text", async () => {
    const { referenceSample, REFERENCE_SAMPLE_CHARS } = await import("~/server/ai/render");
    expect(referenceSample("  短短一段。\r\n第二段。 ")).toBe("短短一段。\n第二段。");
    const long = "雨落在青石板上。".repeat(400);
    const sample = referenceSample(long);
    expect(sample.endsWith("。……")).toBe(true);
    expect(Array.from(sample).length).toBeLessThanOrEqual(REFERENCE_SAMPLE_CHARS + 2);
    expect(long.startsWith(sample.slice(0, -2))).toBe(true);
    expect(referenceSample("字".repeat(5000))).toBe(`${"字".repeat(REFERENCE_SAMPLE_CHARS)}……`);
    expect(referenceSample(null)).toBe("");
  });
});
