import { describe, expect, it } from "vitest";
import { ANCHOR_THRESHOLD, bigrams, dice, reanchor } from "~/server/community/comment-anchoring.server";

const P = [
  "夜色渐深，城南的老茶馆里只剩下最后一盏灯。",
  "掌柜的把算盘推到一边，抬头看着门口那个浑身湿透的年轻人。",
  "“客官，打烊了。”他说，声音里却没有赶人的意思。",
  "年轻人没有说话，只是从怀里摸出一块沾着泥的玉佩，轻轻放在柜台上。",
];

describe("bigram Dice", () => {
  it("is 1 for the same text and 0 for nothing shared", () => {
    expect(dice(bigrams(P[0]), bigrams(P[0]))).toBe(1);
    expect(dice(bigrams("甲乙丙"), bigrams("丁戊己"))).toBe(0);
    expect(dice(bigrams(""), bigrams("甲乙"))).toBe(0);
  });

  it("ignores white space and keeps a one-character paragraph comparable", () => {
    expect(dice(bigrams("好 的"), bigrams("好的"))).toBe(1);
    expect(dice(bigrams("嗯"), bigrams("嗯"))).toBe(1);
  });
});

describe("reanchor", () => {
  const anchors = P.map((text, index) => ({ index, text }));

  it("keeps everything in place when nothing changed", () => {
    expect(reanchor(anchors, P)).toEqual([0, 1, 2, 3]);
  });

  it("follows paragraphs inserted above", () => {
    expect(reanchor(anchors, ["新加的开头。", "又一段。", ...P])).toEqual([2, 3, 4, 5]);
  });

  it("puts a split paragraph's comments on its larger half", () => {
    const split = [P[0], "掌柜的把算盘推到一边，", "抬头看着门口那个浑身湿透的年轻人。", P[2], P[3]];
    expect(reanchor(anchors, split)).toEqual([0, 2, 3, 4]);
  });

  it("follows a slightly rewritten paragraph", () => {
    const edited = [P[0], P[1], P[2], "年轻人一言不发，只是从怀里摸出一块沾着泥的玉佩，轻轻放在了柜台上。"];
    expect(reanchor(anchors, edited)).toEqual([0, 1, 2, 3]);
  });

  it("gives nothing for a deleted paragraph", () => {
    expect(reanchor(anchors, [P[0], P[2], P[3]])).toEqual([0, null, 1, 2]);
  });

  it("follows two swapped paragraphs", () => {
    expect(reanchor(anchors, [P[0], P[2], P[1], P[3]])).toEqual([0, 2, 1, 3]);
  });

  it("picks the copy nearest the old place when a text occurs twice", () => {
    expect(reanchor([{ index: 5, text: "……" }], ["……", "a", "b", "c", "d", "e", "……"])).toEqual([6]);
  });

  it("refuses a paragraph below the threshold", () => {
    const score = dice(bigrams(P[1]), bigrams("掌柜的走了。"));
    expect(score).toBeLessThan(ANCHOR_THRESHOLD);
    expect(reanchor([{ index: 1, text: P[1] }], [P[0], "掌柜的走了。"])).toEqual([null]);
  });
});
