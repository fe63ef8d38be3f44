import { expect, newCredentials, test } from "./fixtures";
import {
  expectLoginDialog,
  expectRegisterDialog,
  expectSignedIn,
  expectSignedOut,
  logOutViaMenu,
  submitAuthDialog,
} from "./fixtures/auth-dialog";

const nojs = { tag: "@nojs" };

test.describe("register", () => {
  test("a new account is signed in and stays on the page the visitor was on", nojs, async ({ page, visit }) => {
    const credentials = newCredentials();
    await visit("/works?page=1");
    await page.getByRole("banner").getByRole("link", { name: "注册", exact: true }).click();
    await submitAuthDialog(page, "register", credentials);

    await expect(page).toHaveURL(/\/works\?page=1$/);
    await expectSignedIn(page, 0);
    // New users get the configured initial tokens (10,000 by default).
    await expect(page.getByText("Tokens 10.0K")).toBeVisible();
  });

  test("立即体验 on the landing page opens the register dialog", nojs, async ({ page, visit }) => {
    await visit("/");
    await expect(page.getByRole("heading", { name: "让短篇写作更简单" })).toBeVisible();
    await page.getByRole("link", { name: "立即体验" }).click();
    await expectRegisterDialog(page);
    await expect(page.getByRole("heading", { name: "让短篇写作更简单" })).toBeVisible();
  });

  test("an e-mail that already has an account is refused", nojs, async ({ page, visit, user }) => {
    await visit("/?auth=register");
    await submitAuthDialog(page, "register", { email: user.email, password: "another-password" });
    await expect(page.getByRole("alert")).toHaveText("该邮箱已被注册");
    await expectSignedOut(page);
  });

  test("an e-mail differing only in letter case is the same account", async ({ page, visit, user }) => {
    await visit("/?auth=register");
    await submitAuthDialog(page, "register", { email: user.email.toUpperCase(), password: "another-password" });
    await expect(page.getByRole("alert")).toHaveText("该邮箱已被注册");
  });

  test("a short password is refused and creates no account", nojs, async ({ page, visit }) => {
    const credentials = { ...newCredentials(), password: "short" };
    await visit("/?auth=register");
    await submitAuthDialog(page, "register", credentials);
    await expect(page.getByText("密码至少需要 8 个字符")).toBeVisible();
    await expect(page.getByRole("heading", { name: "注册砚台账号" })).toBeVisible();

    // Nothing was created: logging in with those details fails.
    await visit("/?auth=login");
    await submitAuthDialog(page, "login", credentials);
    await expect(page.getByRole("alert")).toHaveText("邮箱或密码错误");
  });

  test("a malformed e-mail is refused", nojs, async ({ page, visit }) => {
    await visit("/?auth=register");
    await submitAuthDialog(page, "register", { email: "not-an-email", password: "long-enough-password" });
    await expect(page.getByText("请输入有效的邮箱地址")).toBeVisible();
    await expectSignedOut(page);
  });
});

test.describe("login", () => {
  test("a wrong password shows 邮箱或密码错误", nojs, async ({ page, visit, user }) => {
    await visit("/?auth=login");
    await submitAuthDialog(page, "login", { email: user.email, password: `${user.password}x` });
    await expect(page.getByRole("alert")).toHaveText("邮箱或密码错误");
    await expectSignedOut(page);
  });

  test("an unknown e-mail shows the same message", async ({ page, visit }) => {
    await visit("/?auth=login");
    await submitAuthDialog(page, "login", newCredentials());
    await expect(page.getByRole("alert")).toHaveText("邮箱或密码错误");
  });

  test("too many attempts for one e-mail get a clear message, even with the right password", async ({
    page,
    visit,
    user,
    request,
    baseURL,
  }) => {
    // The per-e-mail limit keeps its default of 10 attempts per 15 minutes.
    for (let i = 0; i < 10; i++) {
      const response = await request.post("/auth/login", {
        form: { email: user.email, password: "wrong-password" },
        headers: { Origin: new URL(baseURL!).origin },
        maxRedirects: 0,
      });
      expect(response.status()).toBe(400);
    }
    await visit("/?auth=login");
    await submitAuthDialog(page, "login", user);
    await expect(page.getByRole("alert")).toHaveText("尝试次数过多，请稍后再试");
    await expectSignedOut(page);
  });

  test("success shows the credits and token balances in the top bar", nojs, async ({ page, visit, facts }) => {
    const reader = facts.accounts.r18Reader;
    await visit("/");
    await page.getByRole("banner").getByRole("link", { name: "登录", exact: true }).click();
    await submitAuthDialog(page, "login", reader);

    await expect(page).toHaveURL(/\/$/);
    await expectSignedIn(page, reader.credits);
    await expect(page.getByText("Tokens 25.6K")).toBeVisible();
    // The balance links to the credits page.
    await page.getByTestId("credits-balance").click();
    await expect(page).toHaveURL(/\/credits$/);
    await expectSignedIn(page, reader.credits);
  });
});

test.describe("logout", () => {
  test("lands on / signed out, and the old session cookie no longer works", nojs, async ({
    browser,
    baseURL,
    javaScriptEnabled,
    loggedInPage: page,
    visit,
  }) => {
    await visit("/my-works");
    await expect(page.getByRole("heading", { name: "我的作品" })).toBeVisible();
    const oldCookies = (await page.context().cookies()).filter((c) => c.name === "inkstone_session");
    expect(oldCookies).toHaveLength(1);

    await logOutViaMenu(page);
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("heading", { name: "让短篇写作更简单" })).toBeVisible();
    await expectSignedOut(page);

    // Replaying the old cookie in a fresh browser does not sign anyone in.
    const other = await browser.newContext({ baseURL, javaScriptEnabled });
    try {
      await other.addCookies(oldCookies);
      const replay = await other.newPage();
      await replay.goto("/my-works");
      await expect(replay).toHaveURL(/\/\?auth=login&redirectTo=%2Fmy-works$/);
      await expectLoginDialog(replay);
      await expectSignedOut(replay);
    } finally {
      await other.close();
    }
  });

  test("a tampered session cookie is treated as signed out", nojs, async ({ page, context, user, logInAs }) => {
    await logInAs(context, user);
    const [session] = (await context.cookies()).filter((c) => c.name === "inkstone_session");
    const tampered = (session.value[0] === "a" ? "b" : "a") + session.value.slice(1);
    await context.addCookies([{ ...session, value: tampered }]);
    const response = await page.goto("/my-works");
    expect(response?.status()).toBe(200);
    await expect(page).toHaveURL(/\/\?auth=login&redirectTo=%2Fmy-works$/);
    await expectSignedOut(page);
  });
});
