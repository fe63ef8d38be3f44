import fs from "node:fs";
import { expect, test } from "./fixtures";
import { marker } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

test.describe("author studio: downloads", () => {
  test("the owner downloads the work as TXT and EPUB from its settings", { tag: "@nojs" }, async ({ loggedInPage: page, visit, baseURL }) => {
    const title = `导出 ${marker("export")}`;
    const id = await publishWork(page, baseURL!, { title, type: "multi_chapter" });
    await visit(`/works/${id}/settings`);
    const section = page.getByRole("region", { name: "下载作品" });

    const [txt] = await Promise.all([page.waitForEvent("download"), section.getByRole("link", { name: "下载 TXT" }).click()]);
    expect(txt.suggestedFilename()).toBe(`${title}.txt`);
    const text = fs.readFileSync((await txt.path())!, "utf8");
    expect(text).toContain("####\n第一回\n正文一。");

    const [epub] = await Promise.all([page.waitForEvent("download"), section.getByRole("link", { name: "下载 EPUB" }).click()]);
    expect(epub.suggestedFilename()).toBe(`${title}.epub`);
    // The page stays where it was.
    await expect(page).toHaveURL(new RegExp(`/works/${id}/settings$`));
  });
});
