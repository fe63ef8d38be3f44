import { describe, expect, it } from "vitest";
import { chineseVoices, chunkForSpeech, parseRate, pickVoice } from "~/components/reader/listen-speech";

describe("chunkForSpeech", () => {
  it("keeps a short paragraph whole and says nothing for blank text", () => {
    expect(chunkForSpeech("  他走了。  ")).toEqual(["他走了。"]);
    expect(chunkForSpeech("   ")).toEqual([]);
  });

  it("cuts a long paragraph at sentence ends, each piece within the limit, nothing lost", () => {
    const sentence = "山路弯弯，雨下个不停。"; // 11 字
    const text = sentence.repeat(30);
    const chunks = chunkForSpeech(text, 50);
    expect(chunks.every((c) => Array.from(c).length <= 50)).toBe(true);
    expect(chunks.every((c) => c.endsWith("。"))).toBe(true);
    expect(chunks.join("")).toBe(text);
  });

  it("keeps a closing quote with its sentence and falls back to commas, then a hard cut", () => {
    expect(chunkForSpeech("“走吧！”他说，我们出发", 6)).toEqual(["“走吧！”", "他说，", "我们出发"]);
    expect(chunkForSpeech("甲".repeat(25), 10)).toEqual(["甲".repeat(10), "甲".repeat(10), "甲".repeat(5)]);
  });

  it("counts characters, not UTF-16 units (𠀀 is two units)", () => {
    expect(chunkForSpeech("𠀀".repeat(6), 4)).toEqual(["𠀀".repeat(4), "𠀀".repeat(2)]);
  });
});

describe("voices", () => {
  const voice = (voiceURI: string, lang: string) => ({ voiceURI, name: voiceURI, lang });
  const all = [voice("en", "en-US"), voice("tw", "zh-TW"), voice("hk", "yue-HK"), voice("cn", "zh-CN"), voice("zhx", "zhx"), voice("underscore", "zh_CN")];

  it("keeps the Chinese voices, the mainland's first", () => {
    expect(chineseVoices(all).map((v) => v.voiceURI)).toEqual(["cn", "underscore", "tw", "hk"]);
    expect(chineseVoices([voice("en", "en-GB")])).toEqual([]);
  });

  it("picks the remembered voice while it is present, else the first", () => {
    const zh = chineseVoices(all);
    expect(pickVoice(zh, "tw")?.voiceURI).toBe("tw");
    expect(pickVoice(zh, "gone")?.voiceURI).toBe("cn");
    expect(pickVoice([], "tw")).toBeNull();
  });
});

describe("parseRate", () => {
  it.each([
    ["1.5", 1.5],
    ["5", 2],
    ["0.1", 0.75],
    ["abc", 1],
    ["", 1],
    [null, 1],
  ])("%s → %s", (value, rate) => {
    expect(parseRate(value)).toBe(rate);
  });
});
