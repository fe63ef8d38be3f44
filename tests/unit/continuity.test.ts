import { describe, expect, it } from "vitest";
import { checkContinuity, findMentions, foldName, parseChineseNumber, splitSentences, type CheckEntity, type ContinuityInput, type LedgerEntry } from "~/server/studio/continuity";

const LIN: CheckEntity = { id: 1, kind: "character", name: "林晚", names: ["林晚", "阿晚", "林姑娘"] };
const ZHOU: CheckEntity = { id: 2, kind: "character", name: "周伯", names: ["周伯", "老周"] };
const ZHOUZI: CheckEntity = { id: 3, kind: "character", name: "小周子", names: ["小周子"] };
const SWORD: CheckEntity = { id: 10, kind: "item", name: "青冥剑", names: ["青冥剑", "青冥"] };
const ALLEY: CheckEntity = { id: 20, kind: "place", name: "青石巷", names: ["青石巷"] };
const CAPITAL: CheckEntity = { id: 21, kind: "place", name: "京城", names: ["京城", "帝都"] };
const LADDER = ["炼气", "筑基", "金丹", "元婴"];

let nextId = 100;
function entry(e: Partial<LedgerEntry> & Pick<LedgerEntry, "kind" | "chapter">): LedgerEntry {
  return { id: nextId++, entityId: 1, value: "", num: null, action: null, note: "", ...e };
}
function check(text: string, states: LedgerEntry[], more: Partial<ContinuityInput> = {}) {
  return checkContinuity({ chapter: 10, text, entities: [LIN, ZHOU, ZHOUZI, SWORD, ALLEY, CAPITAL], ladder: LADDER, states, ...more });
}

describe("text helpers", () => {
  it("splits sentences with their closing quotes and finds the longest name first", () => {
    const sentences = splitSentences("老周说：“走吧。”小周子笑了！\n阿晚点头");
    expect(sentences.map((s) => s.text)).toEqual(["老周说：“走吧。”", "小周子笑了！", "阿晚点头"]);
    const mentions = findMentions(sentences, [ZHOU, ZHOUZI, LIN, { id: 9, kind: "character", name: "小周", names: ["小周"] }]);
    expect(mentions.map((m) => m.map((x) => x.name))).toEqual([["老周"], ["小周子"], ["阿晚"]]);
  });
  it("reads Chinese numbers and folds names", () => {
    expect([parseChineseNumber("十七"), parseChineseNumber("二十三"), parseChineseNumber("一百零五"), parseChineseNumber("30"), parseChineseNumber("两")]).toEqual([17, 23, 105, 30, 2]);
    expect(parseChineseNumber("多")).toBeNaN();
    expect(foldName("约翰·史密斯")).toBe(foldName("约翰 史密斯"));
    expect(foldName("ＡＢ")).toBe("ab");
  });
});

describe("a dead character acting or speaking", () => {
  const dead = entry({ entityId: 2, kind: "life", chapter: 5, value: "dead" });
  it("finds speech and action by any alias, quoting the sentence and the fact with its chapter", () => {
    const found = check("夜深了。老周说：“你回来了。”周伯伸手推开门。", [dead]);
    expect(found.map((f) => [f.rule, f.quote, f.facts[0].chapter, f.facts[0].text])).toEqual([
      ["dead-acts", "老周说：“你回来了。”", 5, "生死：死亡"],
      ["dead-acts", "周伯伸手推开门。", 5, "生死：死亡"],
    ]);
    expect(found[0].message).toBe("周伯已在第5章死亡，本章却有言行");
  });
  it("leaves memories, graves, others' words and a return to life alone", () => {
    expect(check("林晚想起老周说过的话。林晚跪在老周的坟前。老周的儿子说话了。", [dead])).toEqual([]);
    expect(check("老周说：“我回来了。”", [dead, entry({ entityId: 2, kind: "life", chapter: 8, value: "alive", note: "被救活" })])).toEqual([]);
    // Dying in this very chapter: he may speak before.
    expect(check("老周说：“快走。”", [entry({ entityId: 2, kind: "life", chapter: 10, value: "dead" })])).toEqual([]);
    // A ledger entry after the chapter does not count.
    expect(check("老周说：“快走。”", [entry({ entityId: 2, kind: "life", chapter: 12, value: "dead" })])).toEqual([]);
  });
  it("gives the same finding the same key on every check, and another sentence another key", () => {
    const a = check("老周说：“走。”", [dead]);
    const b = check("老周说：“走。”", [dead]);
    const c = check("老周说：“留下。”", [dead]);
    expect(a[0].key).toBe(b[0].key);
    expect(a[0].key).not.toBe(c[0].key);
    expect(a[0].key.startsWith("dead-acts:")).toBe(true);
  });
});

describe("a 境界 lower than before", () => {
  const gold = entry({ kind: "realm", chapter: 3, value: "金丹" });
  it("finds a lower rung in the text, and a recorded drop without a cause in this chapter", () => {
    const found = check("阿晚不过是筑基修为，如何敌得过？", [entry({ kind: "realm", chapter: 1, value: "炼气" }), gold]);
    expect(found.map((f) => [f.rule, f.quote, f.facts.map((x) => x.text)])).toEqual([["realm-drop", "阿晚不过是筑基修为，如何敌得过？", ["境界：金丹"]]]);
    const drop = check("", [gold, entry({ kind: "realm", chapter: 10, value: "炼气" })]);
    expect(drop.map((f) => [f.rule, f.quote, f.facts.map((x) => [x.chapter, x.text])])).toEqual([["realm-drop", "", [[3, "境界：金丹"], [10, "境界：炼气"]]]]);
  });
  it("accepts a drop with a recorded cause, a higher or equal rung, the past and another character's rung", () => {
    const dropped = entry({ kind: "realm", chapter: 8, value: "筑基", note: "强行破阵，修为跌落" });
    expect(check("林晚如今只剩筑基修为。", [gold, dropped])).toEqual([]);
    expect(check("林晚已是元婴。林晚稳在金丹。", [gold])).toEqual([]);
    expect(check("林晚想起当年筑基时的艰难。", [gold])).toEqual([]);
    expect(check("林晚看着筑基的老周。", [gold])).toEqual([]);
    expect(check("林晚看着老周，筑基而已。", [gold])).toEqual([]);
  });
});

describe("an item used after it was lost or given away", () => {
  it("finds the holder using it by the item's alias, with the fact", () => {
    const lost = entry({ kind: "item", chapter: 4, value: "青冥剑", action: "lost" });
    const found = check("阿晚拔出青冥，一剑斩下。", [entry({ kind: "item", chapter: 1, value: "青冥剑", action: "gained" }), lost]);
    expect(found.map((f) => [f.rule, f.quote, f.facts[0].text, f.facts[0].chapter])).toEqual([["item-lost", "阿晚拔出青冥，一剑斩下。", "失去：青冥剑", 4]]);
  });
  it("accepts the item gained again, recovered in the sentence, only mentioned, or used by the one it went to", () => {
    const given = entry({ kind: "item", chapter: 4, value: "青冥剑", action: "given", note: "老周" });
    expect(check("林晚握着青冥剑。", [given, entry({ kind: "item", chapter: 7, value: "青冥剑", action: "gained" })])).toEqual([]);
    expect(check("林晚夺回青冥剑，握紧了它。", [given])).toEqual([]);
    expect(check("林晚想着青冥剑的下落。", [given])).toEqual([]);
    expect(check("林晚看老周举起青冥剑。", [given])).toEqual([]);
    expect(check("林晚举起青冥剑。", [given]).map((f) => f.facts[0].text)).toEqual(["交出：青冥剑（交给老周）"]);
  });
});

describe("one character in two places in a chapter", () => {
  it("finds two places without moving between them, and a place the ledger does not have this chapter", () => {
    const found = check("林晚在青石巷等人。片刻后，林晚正在帝都的城楼上。", []);
    expect(found.map((f) => [f.rule, f.quote, f.facts[0].text])).toEqual([["two-places", "片刻后，林晚正在帝都的城楼上。", "同章前文：林晚在青石巷等人。"]]);
    const recorded = check("林晚坐在青石巷口。", [entry({ kind: "location", chapter: 10, value: "京城" })]);
    expect(recorded.map((f) => [f.rule, f.facts[0].text, f.facts[0].chapter])).toEqual([["two-places", "位置：京城", 10]]);
  });
  it("accepts travel written in the chapter and the same place by another name", () => {
    expect(check("林晚在青石巷等人。林晚离开了那里。林晚在京城住下。", [])).toEqual([]);
    expect(check("林晚在京城。林晚在帝都的客栈里。", [])).toEqual([]);
    expect(check("林晚坐在帝都城楼上。", [entry({ kind: "location", chapter: 10, value: "京城" })])).toEqual([]);
  });
});

describe("an age or date that does not fit the timeline", () => {
  const age = entry({ kind: "age", chapter: 1, num: 16 });
  const year1 = entry({ entityId: null, kind: "time", chapter: 1, num: 1, value: "天元元年" });
  const year3 = entry({ entityId: null, kind: "time", chapter: 9, num: 3, value: "天元三年" });
  it("finds an age in the text that does not follow from the recorded age and years", () => {
    const found = check("林晚今年十六岁。", [age, year1, year3]);
    expect(found.map((f) => [f.rule, f.quote, f.message, f.facts.map((x) => x.text)])).toEqual([
      ["timeline", "林晚今年十六岁。", "林晚本章写作16岁，按记录应为18岁", ["年龄：16岁", "故事时间：天元三年"]],
    ]);
    expect(check("林晚今年十八岁。十七岁的林晚站在门口。", [age, year1, year3])).toEqual([]);
    expect(check("二十岁的阿晚站在门口。", [age, year1, year3]).map((f) => f.rule)).toEqual(["timeline"]);
    // Without the story's time, only younger than recorded is wrong.
    expect(check("林晚今年十五岁。", [age]).map((f) => f.message)).toEqual(["林晚本章写作15岁，按记录应为至少16岁"]);
    expect(check("林晚十岁那年，父亲走了。", [age])).toEqual([]);
  });
  it("finds a recorded age or a story year that runs backwards in this chapter", () => {
    expect(check("", [age, year1, year3, entry({ kind: "age", chapter: 10, num: 30 })]).map((f) => f.rule)).toEqual(["timeline"]);
    const back = check("", [year3, entry({ entityId: null, kind: "time", chapter: 10, num: 2, value: "天元二年" })]);
    expect(back.map((f) => [f.message, f.facts.map((x) => x.chapter)])).toEqual([["故事时间倒退：第9章已是天元三年，本章记为天元二年", [9, 10]]]);
  });
});

describe("two entities sharing an alias", () => {
  it("finds names that fold to the same one, when the chapter uses it", () => {
    const john = { id: 30, kind: "character" as const, name: "约翰·史密斯", names: ["约翰·史密斯"] };
    const john2 = { id: 31, kind: "character" as const, name: "史密斯先生", names: ["史密斯先生", "约翰 史密斯"] };
    const found = checkContinuity({ chapter: 2, text: "约翰·史密斯推门进来。", entities: [john, john2], ladder: [], states: [] });
    expect(found.map((f) => [f.rule, f.quote, f.facts.map((x) => x.text)])).toEqual([
      ["alias-shared", "约翰·史密斯推门进来。", ["约翰·史密斯的名称或别名「约翰·史密斯」", "史密斯先生的名称或别名「约翰 史密斯」"]],
    ]);
    expect(checkContinuity({ chapter: 2, text: "无人提起。", entities: [john, john2], ladder: [], states: [] })).toEqual([]);
  });
});
