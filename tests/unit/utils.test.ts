import { describe, expect, it } from "vitest";
import { formatTokens, formatWordCount } from "~/utils/format";
import { pageItems, parsePage } from "~/utils/pagination";
import { safeRedirectPath } from "~/utils/redirect";
import { normalizeQuery, queryGrams } from "~/server/search.server";

describe("safeRedirectPath", () => {
  it.each([
    ["/my-works", "/my-works"],
    ["/works?q=西游&page=2", "/works?q=%E8%A5%BF%E6%B8%B8&page=2"],
    ["https://evil.example/", "/"],
    ["//evil.example", "/"],
    ["/\\evil.example", "/"],
    ["javascript:alert(1)", "/"],
    ["", "/"],
    [undefined, "/"],
    ["/ok\nSet-Cookie:x", "/"],
  ])("%s -> %s", (input, expected) => {
    expect(safeRedirectPath(input)).toBe(expected);
  });
});

describe("parsePage", () => {
  it.each([
    ["1", 1],
    ["7", 7],
    ["0", 1],
    ["-1", 1],
    ["abc", 1],
    ["1.5", 1],
    ["1000000000", 1],
    ["999999999", 999999999],
    [null, 1],
  ])("%s -> %s", (input, expected) => {
    expect(parsePage(input)).toBe(expected);
  });
});

describe("pageItems", () => {
  it("shows every page when there are few", () => {
    expect(pageItems(2, 5)).toEqual([1, 2, 3, 4, 5]);
  });
  it("shows 5 numbers around the current page with first, last and ellipses", () => {
    expect(pageItems(10, 20)).toEqual([1, "ellipsis-start", 8, 9, 10, 11, 12, "ellipsis-end", 20]);
    expect(pageItems(1, 20)).toEqual([1, 2, 3, 4, 5, 6, "ellipsis-end", 20]);
    expect(pageItems(20, 20)).toEqual([1, "ellipsis-start", 15, 16, 17, 18, 19, 20]);
  });
  it("supports a window of 3 (my works)", () => {
    expect(pageItems(5, 9, 3)).toEqual([1, "ellipsis-start", 4, 5, 6, "ellipsis-end", 9]);
  });
});

describe("formatting", () => {
  it("abbreviates tokens with K and M, one decimal", () => {
    expect(formatTokens(999)).toBe("999");
    expect(formatTokens(1000)).toBe("1.0K");
    expect(formatTokens(12_345)).toBe("12.3K");
    expect(formatTokens(1_000_000)).toBe("1.0M");
    expect(formatTokens(2_567_000)).toBe("2.5M");
  });
  it("counts words in 万 above ten thousand", () => {
    expect(formatWordCount(8500)).toBe("8,500 字");
    expect(formatWordCount(123_456)).toBe("12.3 万字");
  });
});

describe("query grams", () => {
  it("uses the single character, or the pairs, leaving whitespace out", () => {
    expect(queryGrams("悟")).toEqual({ grams: ["悟"], exact: true });
    expect(queryGrams("悟空")).toEqual({ grams: ["悟空"], exact: true });
    expect(queryGrams("大闹天宫")).toEqual({ grams: ["大闹", "闹天", "天宫"], exact: false });
    expect(queryGrams("a b")).toEqual({ grams: ["a", "b"], exact: false });
    expect(queryGrams("AB")).toEqual({ grams: ["ab"], exact: true });
  });
  it("normalises the query: trimmed and at most 100 characters", () => {
    expect(normalizeQuery("  西游  ")).toBe("西游");
    expect(Array.from(normalizeQuery("字".repeat(500)))).toHaveLength(100);
  });
});
