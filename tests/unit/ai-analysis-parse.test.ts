import { describe, expect, it } from "vitest";
import { parseAnalysis } from "~/server/ai/analysis-parse";
import { AiError } from "~/server/ai/ai-errors.server";
import { analysisReply } from "../fakes/ai-provider";

function message(reply: string): string {
  try {
    parseAnalysis(reply);
  } catch (error) {
    if (error instanceof AiError) return error.message;
    throw error;
  }
  return "ok";
}

const good = {
  message: "success",
  角色设定: [{ 姓名: "甲", 性格: "乙", 外貌: "丙", 其他: "丁" }],
  大纲: [{ 标题: "开端", 出场角色: ["甲"], 概要: "发生了事", 环境: "夜晚" }],
};

describe("parseAnalysis (P02's reply)", () => {
  it("reads the characters and the outline", () => {
    expect(parseAnalysis(JSON.stringify(good))).toEqual({
      characters: [{ name: "甲", personality: "乙", appearance: "丙", other: "丁" }],
      plots: [{ title: "开端", characterNames: ["甲"], summary: "发生了事", environment: "夜晚" }],
    });
    expect(parseAnalysis(analysisReply()).characters.map((c) => c.name)).toEqual(["林晚", "沈舟"]);
  });

  it("tolerates ``` fences and words around the JSON", () => {
    expect(parseAnalysis("```json\n" + JSON.stringify(good) + "\n```").plots).toHaveLength(1);
    expect(parseAnalysis("好的，分析如下：\n```\n" + JSON.stringify(good) + "\n```\n希望有帮助。").characters).toHaveLength(1);
    expect(parseAnalysis("分析结果：" + JSON.stringify(good) + " 完毕").characters).toHaveLength(1);
  });

  it("accepts characters given as a string and fills missing fields with nothing", () => {
    const reply = { 角色设定: [{ 姓名: "甲" }, { 性格: "无名者被跳过" }], 大纲: [{ 标题: "一", 出场角色: "甲、乙" }] };
    expect(parseAnalysis(JSON.stringify(reply))).toEqual({
      characters: [{ name: "甲", personality: "", appearance: "", other: "" }],
      plots: [{ title: "一", characterNames: ["甲", "乙"], summary: "", environment: "" }],
    });
  });

  it("gives docs/product.md's analysis messages", () => {
    expect(message("")).toBe("AI返回内容为空");
    expect(message("   \n")).toBe("AI返回内容为空");
    expect(message("我无法分析这篇小说。")).toBe("AI返回格式错误");
    expect(message("{\"message\": \"success\", \"角色设定\": [")).toBe("AI返回格式错误");
    expect(message(JSON.stringify({ message: "success", 角色设定: [] }))).toBe("AI返回格式错误");
    expect(message(JSON.stringify({ message: "success", 大纲: [] }))).toBe("AI返回格式错误");
    expect(message(JSON.stringify({ ...good, message: "failed" }))).toBe("AI分析失败");
    expect(message(JSON.stringify({ message: "success", 角色设定: [], 大纲: [] }))).toBe("AI分析失败");
    expect(message("[1, 2]")).toBe("AI返回格式错误");
  });
});
