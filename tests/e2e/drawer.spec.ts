import { expect, test } from "./fixtures";
import { expectLoginDialog } from "./fixtures/auth-dialog";

const nojs = { tag: "@nojs" };

test.describe("on a 375 px phone", () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test("the sidebar is a drawer: hidden, opened by 打开菜单, and it navigates", nojs, async ({
    loggedInPage: page,
    visit,
  }) => {
    const sidebar = page.getByRole("complementary", { name: "主导航" });
    const menuButton = page.locator('label[aria-label="打开菜单"]');

    await visit("/");
    await expect(page.getByRole("heading", { name: "发现好故事" })).toBeVisible();
    await expect(sidebar).not.toBeInViewport();

    await menuButton.click();
    await expect(sidebar).toBeInViewport({ ratio: 0.9 });
    await sidebar.getByRole("link", { name: "我的作品" }).click();

    await expect(page).toHaveURL(/\/my-works$/);
    await expect(page.getByRole("heading", { name: "我的作品" })).toBeVisible();
    // The drawer is closed again on the new page.
    await expect(sidebar).not.toBeInViewport();

    // Tapping outside the open drawer closes it.
    await menuButton.click();
    await expect(sidebar).toBeInViewport({ ratio: 0.9 });
    await page.mouse.click(360, 400);
    await expect(sidebar).not.toBeInViewport();
  });

  test("a visitor opening a login-required entry from the drawer gets the login dialog", nojs, async ({
    page,
    visit,
  }) => {
    const sidebar = page.getByRole("complementary", { name: "主导航" });
    await visit("/");
    await expect(sidebar).not.toBeInViewport();
    await page.locator('label[aria-label="打开菜单"]').click();
    await sidebar.getByRole("link", { name: "自由创作" }).click();
    const dialog = await expectLoginDialog(page);
    await expect(dialog).toBeInViewport();
    await expect(page).toHaveURL(/auth=login&redirectTo=%2Ffree-writing$/);
  });
});

test("on a desktop the sidebar is always shown and there is no menu button", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("complementary", { name: "主导航" })).toBeInViewport();
  await expect(page.locator('label[aria-label="打开菜单"]')).toBeHidden();
});
