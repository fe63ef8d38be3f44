import { describe, expect, it } from "vitest";
import { legalTextHtml } from "~/server/platform/sanitize.server";

describe("legalTextHtml (terms and privacy)", () => {
  it("keeps plain text's paragraphs and line breaks, escaping what looks like markup", () => {
    expect(legalTextHtml("第一条 总则\n本协议……\r\n\r\n第二条 账号\n\n\n请妥善保管 a < b & c")).toBe(
      "<p>第一条 总则<br>本协议……</p>\n<p>第二条 账号</p>\n<p>请妥善保管 a &lt; b &amp; c</p>",
    );
  });

  it("sanitises HTML as before", () => {
    expect(legalTextHtml('<h2>用户协议</h2><p onclick="x()">正文</p><script>alert(1)</script>')).toBe("<h2>用户协议</h2><p>正文</p>");
  });

  it("is empty for empty text", () => {
    expect(legalTextHtml("  \n \n")).toBe("");
  });
});
