import { expect, test } from "./fixtures";
import { marker } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

/** The author's voice (issue 32): 作者的话 (decision 202) and a 请假条 (decision 203). */

const nojs = { tag: "@nojs" };

test.describe("the author's voice", () => {
  test("an author writes 作者的话 and a 请假条; a reader sees the note under the chapter and the notice in its 目录 group", nojs, async ({
    loggedInPage: page,
    visit,
    baseURL,
    browser,
    javaScriptEnabled,
  }) => {
    const title = `作者的话 ${marker("voice")}`;
    const id = await publishWork(page, baseURL!, { title });
    const manager = await (await page.request.get(`/works/${id}/chapters`)).text();
    const chapterId = Number(new RegExp(`href="/works/${id}/chapters/(\\d+)"`).exec(manager)?.[1]);
    expect(chapterId, "the first chapter's editor link").toBeGreaterThan(0);

    // 作者的话 beside the text in the editor, saved with 保存.
    await visit(`/works/${id}/chapters/${chapterId}`);
    await page.getByLabel("作者的话").fill("感谢各位读者的支持，明天加更！");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByText("章节已保存")).toBeVisible();

    // A 请假条 from the new-chapter form.
    await visit(`/works/${id}/chapters/new`);
    await page.getByRole("radio", { name: "请假条" }).check();
    await page.getByLabel("章节标题").fill("今天请假一天");
    await page.getByLabel("章节内容").fill("家里有事，明天补更两章。");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByText("章节已发布")).toBeVisible();
    await expect(page.locator(".badge-notice", { hasText: "请假条" })).toBeVisible();

    // A visitor: the 目录 counts one chapter and lists the 请假条 in its own group.
    const visitor = await browser.newContext({ baseURL, javaScriptEnabled });
    const reader = await visitor.newPage();
    await visit(`/works/${id}`, reader);
    await expect(reader.getByRole("heading", { name: /目录/ })).toContainText("共 1 章");
    const leave = reader.getByTestId("toc-notices-leave");
    await expect(leave.getByRole("heading", { name: "请假条" })).toBeVisible();
    await leave.getByRole("link", { name: "今天请假一天" }).click();
    await expect(reader.getByRole("heading", { level: 1, name: "今天请假一天" })).toBeVisible();
    await expect(reader.getByTestId("chapter-text")).toHaveText("家里有事，明天补更两章。");

    // The chapter itself, with 作者的话 in its own box under the text.
    await visit(`/works/${id}?chapter=1`, reader);
    const note = reader.getByTestId("author-note");
    await expect(note.getByRole("heading", { name: "作者的话" })).toBeVisible();
    await expect(note).toContainText("感谢各位读者的支持，明天加更！");
    await expect(reader.getByTestId("chapter-text")).not.toContainText("感谢各位读者");
    // 下一章 does not lead into the 请假条.
    await expect(reader.getByText("已是最后一章")).toBeVisible();
    await visitor.close();
  });
});
