import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { marker, newAuthor, publishWork } from "./reader-helpers";

// What a keyboard-only user does beyond the dialogs (dialog.spec.ts) and the phone menu
// (drawer.spec.ts): read chapter after chapter, and use the account menu.

/** Presses Tab until `target` has focus (it must be reachable within `limit` stops). */
async function tabTo(page: Page, target: Locator, limit = 40) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    if (await target.evaluate((element) => element === document.activeElement)) return;
  }
  throw new Error(`${target} was not reached in ${limit} Tab presses`);
}

test("the reader: next and previous chapter by keyboard, focus on the new chapter's title", async ({
  page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, {
    title: `键盘 ${marker("kbd")}`,
    chapters: [
      { title: "第一章 出发", paragraphs: ["清晨。"] },
      { title: "第二章 路上", paragraphs: ["中午。"] },
      { title: "第三章 到达", paragraphs: ["傍晚。"] },
    ],
  });
  await visit(`/works/${id}?chapter=1`);
  const chapterNav = page.getByRole("navigation", { name: "章节导航" });

  await tabTo(page, chapterNav.getByRole("link", { name: "下一章" }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  const second = page.getByRole("heading", { level: 1, name: "第二章 路上" });
  await expect(second).toBeFocused();

  // From the title, the chapter's own links come next: 上一章 first.
  await tabTo(page, chapterNav.getByRole("link", { name: "上一章" }), 3);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(`/works/${id}?chapter=1`);
  await expect(page.getByRole("heading", { level: 1, name: "第一章 出发" })).toBeFocused();

  // The browser's Back returns to chapter 2 (the chapters are in the history).
  await page.goBack();
  await expect(page.getByRole("heading", { level: 1, name: "第二章 路上" })).toBeVisible();
});

test("the reader: ← and → open the previous and next chapter, but not inside a form field", async ({
  page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, {
    title: `方向键 ${marker("arrows")}`,
    chapters: [
      { title: "第一章 东", paragraphs: ["东。"] },
      { title: "第二章 西", paragraphs: ["西。"] },
    ],
  });
  await visit(`/works/${id}?chapter=1`);
  await page.keyboard.press("ArrowLeft"); // no previous chapter: nothing happens
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  await expect(page.getByRole("heading", { level: 1, name: "第二章 西" })).toBeFocused();
  await page.keyboard.press("ArrowRight"); // the last chapter
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);

  // In the settings panel the arrows move between the choices and stay in the chapter.
  await page.getByText("阅读设置", { exact: true }).click();
  const sizes = page.getByRole("group", { name: "字号" });
  await sizes.getByLabel("标准").focus();
  await page.keyboard.press("ArrowLeft");
  await expect(sizes.getByLabel("较小")).toBeChecked();
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);

  await page.getByRole("heading", { level: 1 }).focus();
  await page.keyboard.press("ArrowLeft");
  await expect(page).toHaveURL(`/works/${id}?chapter=1`);
  await expect(page.getByRole("heading", { level: 1, name: "第一章 东" })).toBeFocused();
});

test("the account menu: named by the nickname, opened with Enter, closed with Escape", async ({
  loggedInPage: page,
  user,
  visit,
}) => {
  await visit("/works?page=1");
  const nickname = user.email.split("@")[0];
  const summary = page.getByRole("banner").locator("summary");
  // The visible nickname starts the name (WCAG 2.5.3), then what the control is.
  await expect(summary).toHaveAccessibleName(new RegExp(`^${nickname}\\s*的账户菜单$`));
  const settings = page.getByRole("banner").getByRole("link", { name: "设置" });

  await tabTo(page, summary);
  await page.keyboard.press("Enter");
  await expect(settings).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(settings).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(settings).toBeHidden();
  await expect(summary).toBeFocused();
});
