import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { marker } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

/** The studio chapter editor for long sessions (docs/decisions/095). */

const nojs = { tag: "@nojs" };

/** A new series of the page's user and the id of its first chapter (read from the chapter manager). */
async function seriesWithChapter(page: Page, baseURL: string, name: string) {
  const id = await publishWork(page, baseURL, { title: `${name} ${marker("editor")}` });
  const html = await (await page.request.get(`/works/${id}/chapters`)).text();
  const chapterId = Number(new RegExp(`href="/works/${id}/chapters/(\\d+)"`).exec(html)?.[1]);
  expect(chapterId, "the first chapter's editor link").toBeGreaterThan(0);
  return { id, chapterId, editor: `/works/${id}/chapters/${chapterId}` };
}

test.describe("author studio: the chapter editor", () => {
  test("counts 字数 live, autosaves, keeps the text over a reload, and restores an older save", async ({ loggedInPage: page, visit, baseURL }) => {
    const { editor } = await seriesWithChapter(page, baseURL!, "自动保存");
    await visit(editor);
    const text = page.getByLabel("正文");
    await expect(page.getByText("字数：7")).toBeVisible();
    await text.fill("第一章的正文。\n\n他推开门，雪落了一地。");
    // Counted as the server counts: every character but whitespace.
    await expect(page.getByText("字数：18")).toBeVisible();

    // Leaving before the save arrives asks first; staying keeps the text. (The autosave
    // request is held until then, so that it cannot arrive between the click's steps.)
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/autosave", async (route) => {
      await held;
      await route.continue();
    });
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await page.getByRole("link", { name: "返回章节管理" }).click();
    await expect.poll(() => asked).toBe("你有尚未保存的内容，确定要离开吗？");
    await expect(page).toHaveURL(new RegExp(`${editor}$`));
    release();

    await expect(page.getByRole("status")).toContainText("已自动保存");
    // A published chapter's autosave is a working copy: readers see it after 保存.
    await expect(page.getByRole("status")).toContainText("点“保存”后读者才能看到");
    await page.reload();
    await expect(text).toHaveValue("第一章的正文。\n\n他推开门，雪落了一地。");
    await expect(page.getByText("这是自动保存的修改稿")).toBeVisible();
    // The chapter manager marks the unsaved edits, linking back to them.
    await page.getByRole("link", { name: "返回章节管理" }).click();
    await page.getByRole("link", { name: "修改未发布" }).click();
    await expect(page).toHaveURL(new RegExp(`${editor}$`));

    await page.getByRole("link", { name: "历史版本" }).click();
    const rows = page.locator(".revision");
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText("自动保存");
    await expect(rows.nth(0)).toContainText("18 字");
    await expect(rows.nth(1)).toContainText("7 字");
    await rows.nth(1).getByRole("button", { name: /恢复/ }).click();
    await expect(page.getByRole("status").filter({ hasText: "已恢复到所选版本" })).toBeVisible();
    await expect(page.getByLabel("正文")).toHaveValue("第一章的正文。");
    await expect(page.getByText("这是自动保存的修改稿")).toHaveCount(0);
    // Nothing unsaved now: leaving does not ask.
    await page.getByRole("link", { name: "返回章节管理" }).click();
    await expect(page).toHaveURL(/\/chapters\?chapter=/);
  });

  test("a second tab that saves on top of an older version is told to reload", async ({ loggedInPage: page, context, visit, baseURL }) => {
    const { editor } = await seriesWithChapter(page, baseURL!, "两个标签页");
    const other = await context.newPage();
    await visit(editor);
    await visit(editor, other);
    await page.getByLabel("正文").fill("甲标签页写的。");
    // Leaving the field saves at once.
    await page.getByLabel("章节标题").focus();
    await expect(page.getByRole("status")).toContainText("已自动保存");
    await other.getByLabel("正文").fill("乙标签页写的。");
    await other.getByLabel("章节标题").focus();
    await expect(other.getByRole("status")).toContainText("此章节已在别处修改");
    await other.getByRole("link", { name: "重新载入" }).click();
    await expect(other.getByLabel("正文")).toHaveValue("甲标签页写的。");
  });

  test("focus mode hides the page around the text and widens it on a 390 px phone", async ({ loggedInPage: page, visit, baseURL }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const { editor } = await seriesWithChapter(page, baseURL!, "专注");
    await visit(editor);
    await page.getByRole("button", { name: "专注模式" }).click();
    const pane = page.locator(".chapter-editor.focus-mode");
    await expect(pane).toBeVisible();
    expect(await pane.boundingBox()).toMatchObject({ x: 0, y: 0, width: 390, height: 844 });
    const box = (await page.getByLabel("正文").boundingBox())!;
    expect(box.width).toBeGreaterThan(350);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await page.keyboard.press("Escape");
    await expect(pane).toHaveCount(0);
  });

  test("without JavaScript: 保存 is a plain form, and the history lists and restores saves", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
    const { id, editor } = await seriesWithChapter(page, baseURL!, "无脚本");
    await visit(`${editor}?focus=1`);
    await expect(page.locator(".chapter-editor.focus-mode")).toBeVisible();
    await page.getByLabel("正文").fill("改过一个错字的正文。");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByRole("status").filter({ hasText: "章节已保存" })).toBeVisible();
    await visit(`/works/${id}?chapter=1`);
    await expect(page.getByText("改过一个错字的正文。")).toBeVisible();

    await visit(`${editor}/revisions`);
    const rows = page.locator(".revision");
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText("当前版本");
    await rows.nth(1).getByRole("button", { name: /恢复/ }).click();
    await expect(page).toHaveURL(new RegExp(`${editor}$`));
    await expect(page.getByLabel("正文")).toHaveValue("第一章的正文。");
    await visit(`/works/${id}?chapter=1`);
    await expect(page.getByText("第一章的正文。")).toBeVisible();
  });
});
