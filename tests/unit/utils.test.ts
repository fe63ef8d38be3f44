import { describe, expect, it } from "vitest";
import { formatFen, formatNumber, formatTokens, formatWordCount } from "~/utils/format";
import { pageItems, pageWithin, parsePage } from "~/utils/pagination";
import { isUnder, safeRedirectPath } from "~/utils/redirect";
import { normalizeQuery, queryGrams } from "~/server/catalog/search-sql.server";
import { chapterDisplayTitle } from "~/utils/chapter-title";

describe("safeRedirectPath", () => {
  it.each([
    ["/my-works", "/my-works"],
    ["/works?q=西游&page=2", "/works?q=%E8%A5%BF%E6%B8%B8&page=2"],
    ["/works/3#chapter-2", "/works/3#chapter-2"],
    ["/settings/../my-works?tab=paid", "/my-works?tab=paid"],
    ["/%2F%2Fevil.example", "/%2F%2Fevil.example"],
    ["https://evil.example/", "/"],
    ["http:/evil.example", "/"],
    ["//evil.example", "/"],
    ["///evil.example", "/"],
    ["/\\evil.example", "/"],
    ["\\/evil.example", "/"],
    ["/.//evil.example", "/"],
    ["/./..//evil.example", "/"],
    ["/admin/../..//evil.example", "/"],
    ["/a/..//evil.example/x?y#z", "/"],
    ["/%2e%2e//evil.example", "/"],
    ["/%2e/%2fevil.example", "/%2fevil.example"],
    ["%2F%2Fevil.example", "/"],
    ["javascript:alert(1)", "/"],
    [" /my-works", "/"],
    ["/\t/evil.example", "/"],
    ["/\n/evil.example", "/"],
    ["/\t\t/evil.example", "/"],
    ["/ok\nSet-Cookie:x", "/"],
    ["/ok\r\nLocation://evil", "/"],
    ["", "/"],
    [undefined, "/"],
    [42, "/"],
  ])("%j -> %s", (input, expected) => {
    expect(safeRedirectPath(input)).toBe(expected);
  });

  it("keeps a target to the allowed pages, after resolving it", () => {
    const admin = (target: string) => safeRedirectPath(target, "/admin/dashboard", isUnder("/admin"));
    expect(admin("/admin/users?page=2")).toBe("/admin/users?page=2");
    expect(admin("/admin")).toBe("/admin");
    expect(admin("/administrator")).toBe("/admin/dashboard");
    expect(admin("/admin/../my-works")).toBe("/admin/dashboard");
    expect(admin("/admin/../..//evil.example")).toBe("/admin/dashboard");
    expect(admin("/admin/..//evil.example")).toBe("/admin/dashboard");
  });

  it("answers only paths that resolve to themselves on this site", () => {
    const nasty = ["//evil", "/\\evil", "/.//evil", "/admin/../..//evil", "%2F%2Fevil", "https://evil", "javascript:x", "/\t/evil"];
    for (const target of nasty) {
      const path = safeRedirectPath(target, "/fallback");
      const resolved = new URL(path, "https://inkstone.example/some/page");
      expect([target, resolved.origin]).toEqual([target, "https://inkstone.example"]);
    }
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

describe("pageWithin", () => {
  it("keeps the requested page within the list: a page past the last is the last, an empty list has one page", () => {
    expect(pageWithin(2, 45, 20)).toEqual({ page: 2, pageCount: 3 });
    expect(pageWithin(9, 45, 20)).toEqual({ page: 3, pageCount: 3 });
    expect(pageWithin(0, 45, 20)).toEqual({ page: 1, pageCount: 3 });
    expect(pageWithin(Number.NaN, 45, 20)).toEqual({ page: 1, pageCount: 3 });
    expect(pageWithin(4, 0, 20)).toEqual({ page: 1, pageCount: 1 });
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
  it("groups digits as Intl.NumberFormat('zh-CN') does, without building one", () => {
    const intl = new Intl.NumberFormat("zh-CN");
    const values = [0, 7, -7, 999, 1000, -1000, 12_345, 999_999, 1_000_000, -98_765_432, 2 ** 53 - 1, 1.5, 1234.5678, -0.25, 0.0004, 1e20];
    for (const n of values) expect(formatNumber(n), String(n)).toBe(intl.format(n));
    expect(formatNumber(-0.0004)).toBe("0"); // Intl writes "-0"
    expect(formatFen(1_234_567)).toBe("12,345.67");
    expect(formatFen(-80_000)).toBe("-800.00");
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

describe("chapterDisplayTitle", () => {
  it.each([
    [6, "定时之潮", "第6章 定时之潮"],
    [6, "第7章 定时之潮", "第7章 定时之潮"],
    [6, "第七章 定时之潮", "第七章 定时之潮"],
    [6, "第 12 回 大闹天宫", "第 12 回 大闹天宫"],
    [6, "第一百零八节", "第一百零八节"],
    [6, "  第６章  ", "第６章"],
    [6, "", "第6章"],
    [6, "第一卷的故事", "第6章 第一卷的故事"],
    [6, "第二天", "第6章 第二天"],
    [6, "第三者", "第6章 第三者"],
    [null, "存稿标题", "存稿标题"],
  ])("%s, %j → %j", (order, title, shown) => {
    expect(chapterDisplayTitle(order, title)).toBe(shown);
  });
});
