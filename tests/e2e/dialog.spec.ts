import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { expectLoginDialog } from "./fixtures/auth-dialog";

// The one dialog (app/components/ui/dialog.tsx) as keyboard and screen-reader users meet
// it: focus moves in, stays in, Escape closes, focus returns, the page behind is inert.

const nojs = { tag: "@nojs" };

/** Whether the focused element is inside the open dialog. */
function focusInside(page: Page): Promise<boolean> {
  return page.evaluate(() => Boolean(document.activeElement?.closest("dialog[open], [role=dialog]")));
}

/** Tab (or Shift+Tab) through more stops than the dialog has; focus never leaves it. */
async function expectFocusTrapped(page: Page, dialog: Locator, key: "Tab" | "Shift+Tab") {
  const stops = await dialog.locator('a[href], button:not([disabled]), input:not([type="hidden"]), select, textarea').count();
  const seen = new Set<string>();
  for (let i = 0; i < stops + 2; i++) {
    await page.keyboard.press(key);
    expect(await focusInside(page), `${key} #${i + 1} left the dialog`).toBe(true);
    seen.add(await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80) ?? ""));
  }
  // It went round: every stop was reached, not stuck on one.
  expect(seen.size).toBe(stops);
}

test.describe("the dialog with JavaScript", () => {
  test("login opened from the top bar: focus in, trapped, Escape closes and focus returns", async ({ page, visit }) => {
    await visit("/works?page=1");
    const opener = page.getByRole("banner").getByRole("link", { name: "登录", exact: true });
    await opener.focus();
    await page.keyboard.press("Enter");
    const dialog = await expectLoginDialog(page);
    await expect(page.getByRole("dialog", { name: "登录砚台" })).toBeVisible();
    await expect(dialog.getByLabel("邮箱")).toBeFocused();

    await expectFocusTrapped(page, dialog, "Tab");
    await expectFocusTrapped(page, dialog, "Shift+Tab");

    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page).toHaveURL(/\/works\?page=1$/);
    await expect(opener).toBeFocused();
  });

  test("the page behind cannot be clicked or focused while the dialog is open", async ({ page, visit }) => {
    await visit("/works?page=1");
    await page.getByRole("banner").getByRole("link", { name: "登录", exact: true }).click();
    await expectLoginDialog(page);
    const behind = page.getByRole("banner").getByRole("link", { name: "注册", exact: true });
    const box = await behind.boundingBox();
    await page.mouse.click(box!.x + box!.width / 2, box!.y + box!.height / 2);
    await behind.focus();
    await expect(behind).not.toBeFocused();
    await expect(page.getByRole("dialog", { name: "登录砚台" })).toBeVisible();
    await expect(page).toHaveURL(/auth=login/);
  });

  test("a dialog in the address the page was loaded with is modal too", async ({ page, visit }) => {
    await visit("/?auth=login");
    const dialog = await expectLoginDialog(page);
    await expect(dialog.getByLabel("邮箱")).toBeFocused();
    await expectFocusTrapped(page, dialog, "Tab");
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page).toHaveURL(/\/$/);
    // Opening it again from the page works the same way.
    await page.getByRole("banner").getByRole("link", { name: "注册", exact: true }).click();
    await expect(page.getByRole("dialog", { name: "注册砚台账号" }).getByLabel("邮箱")).toBeFocused();
  });

  test("a credits dialog: focus in the field, × closes and focus returns to its button", async ({
    loggedInPage: page,
    visit,
  }) => {
    await visit("/credits");
    const opener = page.getByRole("link", { name: "兑换码充值" });
    await opener.click();
    const dialog = page.getByRole("dialog", { name: "兑换码充值" });
    await expect(dialog.getByLabel("兑换码")).toBeFocused();
    await expectFocusTrapped(page, dialog, "Tab");
    await dialog.getByRole("link", { name: "关闭" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(opener).toBeFocused();

    await page.getByRole("link", { name: "积分兑换 Tokens" }).click();
    await expect(page.getByRole("dialog", { name: "积分兑换 Tokens" }).getByLabel("兑换积分数量")).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page.getByRole("link", { name: "积分兑换 Tokens" })).toBeFocused();
  });
});

test("a back-office dialog: focus in, trapped, Escape closes and focus returns", async ({ page, context, baseURL, visit }) => {
  await context.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, await adminSession(baseURL!))]);
  await visit("/admin/prompts");
  const opener = page.getByRole("link", { name: "新建提示词" });
  await opener.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "新建提示词" });
  await expect(dialog).toBeVisible();
  expect(await focusInside(page)).toBe(true);
  await expectFocusTrapped(page, dialog, "Tab");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page).toHaveURL(/\/admin\/prompts\?page=1$/);
  await expect(opener).toBeFocused();
});

test.describe("the dialog with and without JavaScript", () => {
  test("opens from the address and closes with its link", nojs, async ({ page, visit }) => {
    await visit("/works?page=1&auth=login");
    await expectLoginDialog(page);
    await expect(page.getByRole("dialog", { name: "登录砚台" }).getByLabel("邮箱")).toBeFocused();
    await page.getByRole("dialog").getByRole("link", { name: "关闭" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page).toHaveURL(/\/works\?page=1$/);
  });
});
