import type { Page } from "@playwright/test";
import sharp from "sharp";
import { expect, test } from "./fixtures";
import { expectLoginDialog } from "./fixtures/auth-dialog";

const nojs = { tag: "@nojs" };

/**
 * The ☰ control: with JavaScript a button named 菜单 (aria-expanded); without it, the
 * label of the checkbox named 菜单 (app/components/shell/nav-drawer.tsx).
 */
function menuControl(page: Page, javaScriptEnabled: boolean) {
  return javaScriptEnabled ? page.getByRole("button", { name: "菜单" }) : page.locator("label.nav-open");
}

/** The element that has focus, as a short description for messages. */
function focused(page: Page) {
  return page.evaluate(() => {
    const active = document.activeElement;
    return active ? `${active.tagName.toLowerCase()} ${active.textContent?.trim().slice(0, 20) ?? ""}` : "none";
  });
}

function focusInSidebar(page: Page) {
  return page.evaluate(() => Boolean(document.activeElement?.closest("aside.sidebar")));
}

test.describe("on a 390 px phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the sidebar is a drawer: hidden, opened by the menu control, and it navigates", nojs, async ({
    loggedInPage: page,
    visit,
    javaScriptEnabled,
  }) => {
    const sidebar = page.locator("aside.sidebar");
    const menu = menuControl(page, javaScriptEnabled);

    await visit("/");
    await expect(page.getByRole("heading", { name: "发现好故事" })).toBeVisible();
    // Closed, the drawer is hidden: not on screen and not in the accessibility tree.
    await expect(sidebar).toBeHidden();
    await expect(page.getByRole("complementary", { name: "主导航" })).toHaveCount(0);

    await menu.click();
    await expect(sidebar).toBeInViewport({ ratio: 0.9 });
    if (javaScriptEnabled) await expect(menu).toHaveAttribute("aria-expanded", "true");
    await page.getByRole("complementary", { name: "主导航" }).getByRole("link", { name: "我的作品" }).click();

    await expect(page).toHaveURL(/\/my-works$/);
    await expect(page.getByRole("heading", { name: "我的作品" })).toBeVisible();
    // The drawer is closed again on the new page.
    await expect(sidebar).toBeHidden();

    // Tapping outside the open drawer closes it.
    await menu.click();
    await expect(sidebar).toBeInViewport({ ratio: 0.9 });
    await page.mouse.click(360, 400);
    await expect(sidebar).toBeHidden();
  });

  test("the drawer slides open, and opens at once for a reader who asked for less motion", nojs, async ({ page, visit }) => {
    await visit("/works?page=1");
    // Presses the menu control (the button, or without JavaScript the checkbox's label) and
    // counts the drawer's transitions in the same task (getAnimations brings the style up to
    // date first), so a slow machine cannot let the 0.2 s slide finish before it is counted.
    // With JavaScript, React commits the click's update in a microtask, which the await lets
    // run (no timer or frame: those never run in a page without JavaScript).
    const transitionsAfterOpening = () =>
      page.evaluate(async () => {
        document.querySelector<HTMLElement>(".nav-open")?.click();
        await Promise.resolve();
        return document.querySelector("aside.sidebar")?.getAnimations().length ?? -1;
      });
    const sidebar = page.getByRole("complementary", { name: "主导航" });

    expect(await transitionsAfterOpening()).toBeGreaterThan(0);
    await expect(sidebar).toBeInViewport({ ratio: 0.9 });

    await page.emulateMedia({ reducedMotion: "reduce" });
    await visit("/works?page=1");
    expect(await transitionsAfterOpening()).toBe(0);
    await expect(sidebar).toBeInViewport({ ratio: 0.9 });
  });

  test("nothing of the closed drawer shows along the left edge (no shadow band)", nojs, async ({ loggedInPage: page, visit }) => {
    await visit("/credits");
    await expect(page.getByRole("heading", { name: "我的积分" })).toBeVisible();
    const sidebar = page.locator("aside.sidebar");
    await expect(sidebar).toBeHidden();
    // Nothing of it is painted: it is out of view and casts no shadow into the page.
    expect(await sidebar.evaluate((el) => getComputedStyle(el).boxShadow)).toBe("none");
    const box = await sidebar.evaluate((el) => el.getBoundingClientRect().right);
    expect(box).toBeLessThanOrEqual(0);
    // The page's own pixels: the strip left of the content is the page background all down.
    const background = await page.evaluate(() => getComputedStyle(document.querySelector(".shell-main") ?? document.body).backgroundColor);
    const shot = await page.screenshot({ clip: { x: 0, y: 80, width: 12, height: 600 } });
    const { data, info } = await sharp(shot).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const colours = new Set<string>();
    for (let i = 0; i < info.width * info.height; i++) colours.add(`rgb(${data[i * 3]}, ${data[i * 3 + 1]}, ${data[i * 3 + 2]})`);
    expect([...colours], `the body background is ${background}`).toHaveLength(1);
  });

  test("a visitor opening a login-required entry from the drawer gets the login dialog", nojs, async ({
    page,
    visit,
    javaScriptEnabled,
  }) => {
    const sidebar = page.getByRole("complementary", { name: "主导航" });
    await visit("/");
    await expect(sidebar).toHaveCount(0);
    await menuControl(page, javaScriptEnabled).click();
    await sidebar.getByRole("link", { name: "自由创作" }).click();
    const dialog = await expectLoginDialog(page);
    await expect(dialog).toBeInViewport();
    await expect(page).toHaveURL(/auth=login&redirectTo=%2Ffree-writing$/);
  });

  test("by keyboard: skip link first, then the menu; the closed drawer takes no Tab stops", nojs, async ({
    page,
    visit,
    javaScriptEnabled,
  }) => {
    await visit("/works?page=1");
    const skip = page.getByRole("link", { name: "跳到正文" });
    await page.keyboard.press("Tab");
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();

    // The menu control is the next stop: a button, or without JavaScript its checkbox.
    await page.keyboard.press("Tab");
    const control = javaScriptEnabled
      ? page.getByRole("button", { name: "菜单" })
      : page.getByRole("checkbox", { name: "菜单" });
    await expect(control).toBeFocused();

    // Closed, Tab goes on to the page, never into the off-screen drawer.
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      expect(await focusInSidebar(page), `Tab #${i + 1} went to ${await focused(page)}`).toBe(false);
    }

    await control.focus();
    await page.keyboard.press("Space");
    const sidebar = page.getByRole("complementary", { name: "主导航" });
    await expect(sidebar).toBeInViewport({ ratio: 0.9 });
    if (javaScriptEnabled) {
      await expect(control).toHaveAttribute("aria-expanded", "true");
      // Focus moves into the drawer; Escape closes it and gives focus back to the button.
      await expect(sidebar.getByRole("link").first()).toBeFocused();
      await page.keyboard.press("Escape");
      await expect(sidebar).toHaveCount(0);
      await expect(control).toBeFocused();
      await expect(control).toHaveAttribute("aria-expanded", "false");
    } else {
      // The open drawer's links are the next stops.
      await page.keyboard.press("Tab");
      expect(await focusInSidebar(page), `focus went to ${await focused(page)}`).toBe(true);
    }
  });

  test("the skip link moves focus to the page's main content", async ({ page, visit }) => {
    await visit("/works?page=1");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect(page.getByRole("main")).toBeFocused();
    await expect(page).toHaveURL(/\/works\?page=1#main$/);
    // The next Tab stop is inside the main content.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest("main")))).toBe(true);
  });
});

test("on a desktop the sidebar is always shown and there is no menu button", async ({ page, visit }) => {
  await visit("/");
  await expect(page.getByRole("complementary", { name: "主导航" })).toBeInViewport();
  await expect(page.getByRole("button", { name: "菜单" })).toBeHidden();
  // The first Tab stop is the skip link, the next one the sidebar's first link.
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "跳到正文" })).toBeFocused();
  await page.keyboard.press("Tab");
  expect(await focusInSidebar(page), `focus went to ${await focused(page)}`).toBe(true);
});
