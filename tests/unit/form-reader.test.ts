import { describe, expect, it } from "vitest";
import { readFormData } from "~/server/platform/form-data.server";

function post(body: string) {
  return new Request("http://localhost/", { method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

describe("the form reader's URL-encoded decoding", () => {
  it("reads well-formed bodies as the platform does: escapes, +, %2B, stray % and names without values", async () => {
    for (const body of [
      "a=%E4%B8%AD%E6%96%87+x&b=%41%4&c=%zz&d&=e&f=%2B%25&g=%e5%b1%b1",
      `content=${encodeURIComponent("第一章 山海\r\n\t".repeat(2000))}&title=${encodeURIComponent("西游记 · 第一回")}`,
    ]) {
      const form = await readFormData(post(body));
      expect([...form.entries()]).toEqual([...new URLSearchParams(body).entries()]);
    }
  });
});
