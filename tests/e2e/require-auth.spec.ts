import { expect, test } from "./fixtures";
import { authDialog, expectLoginDialog, expectRegisterDialog, expectSignedIn, submitAuthDialog } from "./fixtures/auth-dialog";

const nojs = { tag: "@nojs" };

test("a login-required page sends a visitor to the login dialog and back after login", nojs, async ({
  page,
  visit,
  user,
}) => {
  await visit("/my-works");
  await expect(page).toHaveURL(/\/\?auth=login&redirectTo=%2Fmy-works$/);
  await expectLoginDialog(page);

  await submitAuthDialog(page, "login", user);
  await expect(page).toHaveURL(/\/my-works$/);
  await expect(page.getByRole("heading", { name: "我的作品" })).toBeVisible();
  await expectSignedIn(page, 0);
});

test("every login-required page asks a visitor to log in", async ({ page }) => {
  for (const path of ["/following", "/purchased", "/submit", "/free-writing", "/short-writing", "/series-writing", "/credits", "/settings"]) {
    await page.goto(path);
    await expect(page).toHaveURL(`/?auth=login&redirectTo=${encodeURIComponent(path)}`);
    await expectLoginDialog(page);
  }
});

test("a visitor clicking a login-required sidebar link gets the dialog, then lands on that page", nojs, async ({
  page,
  visit,
  user,
  javaScriptEnabled,
}) => {
  await visit("/works?page=1");
  await page.getByRole("complementary", { name: "主导航" }).getByRole("link", { name: "我的作品" }).click();
  await expectLoginDialog(page);
  // With JavaScript the dialog opens over the current page; without it the server
  // answers the link with a redirect to the dialog.
  if (javaScriptEnabled) {
    await expect(page).toHaveURL(/\/works\?page=1&auth=login&redirectTo=%2Fmy-works$/);
    await expect(page.getByRole("search")).toBeVisible();
  } else {
    await expect(page).toHaveURL(/\/\?auth=login&redirectTo=%2Fmy-works$/);
  }

  await submitAuthDialog(page, "login", user);
  await expect(page).toHaveURL(/\/my-works$/);
  await expect(page.getByRole("heading", { name: "我的作品" })).toBeVisible();
});

test("the dialog switches between login and register, and its close link leaves the visitor on the page", nojs, async ({
  page,
  visit,
}) => {
  await visit("/works?page=1&auth=login&redirectTo=%2Fmy-works");
  await expectLoginDialog(page);
  await authDialog(page).getByRole("link", { name: "立即注册" }).click();
  await expectRegisterDialog(page);
  await authDialog(page).getByRole("link", { name: "去登录" }).click();
  await expectLoginDialog(page);
  await expect(page).toHaveURL(/\/works\?page=1&auth=login&redirectTo=%2Fmy-works$/);
  await authDialog(page).getByRole("link", { name: "关闭" }).click();
  await expect(authDialog(page)).toHaveCount(0);
  await expect(page).toHaveURL(/\/works\?page=1$/);
  await expect(page.getByRole("search")).toBeVisible();
});

test("after login, a redirectTo to another origin lands on / instead", nojs, async ({ page, context, visit, user }) => {
  for (const target of ["https://evil.example/steal", "//evil.example/steal", "/\\evil.example/steal", "javascript:alert(1)"]) {
    await context.clearCookies();
    await visit(`/?auth=login&redirectTo=${encodeURIComponent(target)}`);
    await submitAuthDialog(page, "login", user);
    await expectSignedIn(page);
    await expect(page, `redirectTo=${target}`).toHaveURL(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    await expect(page.getByRole("heading", { name: "发现好故事" })).toBeVisible();
  }
});
