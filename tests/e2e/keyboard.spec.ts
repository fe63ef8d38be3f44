import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { marker, newAuthor, publishWork } from "./reader-helpers";

// What a keyboard-only user does beyond the dialogs (dialog.spec.ts) and the site's phone
// menu (drawer.spec.ts): read chapter after chapter, use the account menu, the back
// office's phone menu, and the chapter manager's 上移 and delete dialog.

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

  // From the title, the chapter's end comes next (本章说, 打赏作者), then its navigation: 上一章 first.
  await tabTo(page, chapterNav.getByRole("link", { name: "上一章" }), 4);
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

test.describe("the back office on a 390 px phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the menu drawer: Enter opens it, Escape closes it, closed it takes no Tab stops", { tag: "@nojs" }, async ({
    page,
    context,
    baseURL,
    visit,
    javaScriptEnabled,
  }) => {
    await context.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, await adminSession(baseURL!))]);
    await visit("/admin/dashboard");
    const menu = page.getByRole("complementary", { name: "管理菜单" });
    const inMenu = () => page.evaluate(() => Boolean(document.activeElement?.closest("#admin-menu")));
    await expect(menu).toBeHidden();

    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "跳到正文" })).toBeFocused();
    // The next stop is the menu control: a button, or without JavaScript its checkbox.
    await page.keyboard.press("Tab");
    const control = javaScriptEnabled ? page.getByRole("button", { name: "菜单" }) : page.getByRole("checkbox", { name: "菜单" });
    await expect(control).toBeFocused();
    // Closed, Tab goes on to the page, never into the off-screen menu.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press("Tab");
      expect(await inMenu(), `Tab #${i + 1}`).toBe(false);
    }

    await control.focus();
    await page.keyboard.press(javaScriptEnabled ? "Enter" : "Space");
    await expect(menu).toBeInViewport({ ratio: 0.9 });
    if (javaScriptEnabled) {
      await expect(control).toHaveAttribute("aria-expanded", "true");
      await expect(menu.getByRole("link", { name: "仪表盘" })).toBeFocused();
      await page.keyboard.press("Escape");
      await expect(menu).toBeHidden();
      await expect(control).toBeFocused();
      await expect(control).toHaveAttribute("aria-expanded", "false");
    } else {
      await page.keyboard.press("Tab");
      expect(await inMenu(), "the open menu's links are the next stops").toBe(true);
    }
  });
});

test.describe("the chapter manager", () => {
  async function threeChapters(playwright: Parameters<typeof newAuthor>[0], baseURL: string) {
    const author = await newAuthor(playwright, baseURL);
    const id = await publishWork(author, {
      title: `章节管理 ${marker("kbd")}`,
      chapters: [
        { title: "第一章 甲", paragraphs: ["甲。"] },
        { title: "第二章 乙", paragraphs: ["乙。"] },
        { title: "第三章 丙", paragraphs: ["丙。"] },
      ],
    });
    return { author, id };
  }

  const titles = (page: Page) => page.locator(".chapter-row .chapter-title").allTextContents();

  test("上移 and 下移 keep the focus on the button used, or its twin at the top", async ({ page, context, playwright, baseURL, visit }) => {
    const { author, id } = await threeChapters(playwright, baseURL!);
    await context.addCookies((await author.request.storageState()).cookies);
    await visit(`/works/${id}/chapters`);

    await page.getByRole("button", { name: "上移 第三章 丙" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => titles(page)).toEqual(["第一章 甲", "第三章 丙", "第二章 乙"]);
    await expect(page.getByRole("button", { name: "上移 第三章 丙" })).toBeFocused();

    // Again: now first, its 上移 is disabled, so focus stays in the row on 下移.
    await page.keyboard.press("Enter");
    await expect.poll(() => titles(page)).toEqual(["第三章 丙", "第一章 甲", "第二章 乙"]);
    await expect(page.getByRole("button", { name: "上移 第三章 丙" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "下移 第三章 丙" })).toBeFocused();
  });

  test("Escape in the delete dialog gives the focus back to 删除", async ({ page, context, playwright, baseURL, visit }) => {
    const { author, id } = await threeChapters(playwright, baseURL!);
    await context.addCookies((await author.request.storageState()).cookies);
    await visit(`/works/${id}/chapters`);
    await page.getByRole("link", { name: "更多操作 第二章 乙" }).focus();
    await page.keyboard.press("Enter");
    const remove = page.locator("#main").getByRole("link", { name: "删除", exact: true });
    await remove.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "删除章节" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("button", { name: "确认删除" })).toBeFocused();

    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect(remove).toBeFocused();
    await expect.poll(() => titles(page)).toEqual(["第一章 甲", "第二章 乙", "第三章 丙"]);
  });
});
