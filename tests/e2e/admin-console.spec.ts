/**
 * The operator console's audit log, admin management and two-factor sign-in in a real
 * browser (docs/product.md#audit-log, #admin-roles). The e2e administrator (a 超级管理员)
 * starts signed in with a session from the seed's pool; the 运营 made here signs in through
 * /xbbadmin because the two-step login is the subject.
 */
import { Secret, TOTP } from "otpauth";
import { expect, test, waitForHydration } from "./fixtures";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { clockPast } from "../fixtures/wait";

test.beforeEach(async ({ context, baseURL }) => {
  const session = await adminSession(baseURL!);
  await context.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, session)]);
});

test("a change shows in the audit log, searched on a phone without JavaScript; the menu is a drawer @nojs", async ({ page, javaScriptEnabled }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const name = `砚台${Date.now().toString(36).slice(-6)}`;
  await page.goto("/admin/settings/site");
  await page.getByLabel("显示在导航栏和邮件中的站点名称").fill(name);
  await page.getByRole("button", { name: "保存", exact: true }).click();
  await expect(page.getByTestId("notice")).toHaveText("保存成功");

  // The menu is off screen until 菜单 opens it.
  const menuLink = page.getByLabel("管理菜单").getByRole("link", { name: "仪表盘" });
  await expect(menuLink).not.toBeInViewport();
  // 菜单: a button with JavaScript, the checkbox's label without.
  await page.locator(".admin-menu-button").click();
  await expect(menuLink).toBeInViewport();
  await page.getByLabel("管理菜单").getByText("系统管理", { exact: true }).click();
  // A slow page the operator is going to is not cancelled when 保存成功 leaves the address
  // bar: with JavaScript its data is held until the notice has gone.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/admin/audit.data*", async (route) => {
    await held;
    await route.continue();
  });
  await page.getByLabel("管理菜单").getByRole("link", { name: "操作日志" }).click();
  await expect(page.getByTestId("notice")).toBeHidden();
  release();
  await expect(page).toHaveURL(/\/admin\/audit$/);

  await page.locator("select[name=action]").selectOption({ label: "修改站点名称" });
  await page.getByLabel("关键词").fill(name);
  await page.getByRole("button", { name: "搜索" }).click();
  await expect(page).toHaveURL(/action=settings\.site/);
  // Every row found names the name; exactly one is this save (修改后: the name). The other
  // browser project runs this test on the same site at the same time: its save, when it
  // follows this one, names this name as the value before it (修改前), and is found too.
  const rows = page.getByTestId("audit-row");
  const mine = rows.filter({ has: page.locator("div").filter({ hasText: "修改后" }).filter({ hasText: name }) });
  await expect(mine).toHaveCount(1);
  await expect(rows.filter({ hasNotText: name })).toHaveCount(0);
  await expect(mine).toContainText("修改站点名称");
  await mine.getByText("查看").click();
  await expect(mine.getByText(name)).toBeVisible();
  // The wide table scrolls inside its card; the page itself does not scroll sideways.
  const wrap = page.getByRole("region", { name: "操作日志列表" });
  expect(await wrap.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  // A bad date is named, not a crash.
  await page.goto("/admin/audit?from=2026-02-30");
  await expect(page.getByText("日期格式不正确")).toBeVisible();

  if (!javaScriptEnabled) return;
  // A notice leaves the address bar 3 s after it shows; a menu opened meanwhile stays open.
  // The page's clock stands still until the test moves it past those 3 s.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 60_000);
  await page.goto("/admin/categories?notice=saved");
  await waitForHydration(page);
  await expect(page.getByTestId("notice")).toHaveText("保存成功");
  await page.locator(".admin-menu-button").click();
  await expect(menuLink).toBeInViewport();
  await page.clock.runFor(3_500);
  await expect(page).not.toHaveURL(/notice=/);
  // React renders the new address and runs its effects in tasks of its own (a
  // MessageChannel, which the paused clock leaves alone): let twenty such tasks go by.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const channel = new MessageChannel();
        let turns = 0;
        channel.port1.onmessage = () => (++turns < 20 ? channel.port2.postMessage(null) : resolve());
        channel.port2.postMessage(null);
      }),
  );
  await expect(page.getByRole("button", { name: "菜单" })).toHaveAttribute("aria-expanded", "true");
  await expect(menuLink).toBeInViewport();
});

test("a 超级管理员 adds a 运营, who sees no site settings, gets 403 on the payment keys, and signs in with a TOTP code", async ({ page, browser, baseURL }) => {
  const email = `ops-${Date.now().toString(36)}@example.com`;
  const password = "ops-password-123";
  await page.goto("/admin/admins");
  await waitForHydration(page);
  const add = page.locator("form", { has: page.getByRole("button", { name: "添加" }) });
  await add.getByLabel("邮箱").fill(email);
  await add.getByLabel("角色").selectOption({ label: "运营" });
  await add.getByLabel("初始密码").fill(password);
  await add.getByRole("button", { name: "添加" }).click();
  await expect(page.getByTestId("notice")).toHaveText("管理员已添加");
  const row = page.getByTestId("admin-row").filter({ hasText: email });
  await expect(row).toContainText("启用");

  // The 运营, in a browser of their own, through the login form.
  const context = await browser.newContext({ baseURL });
  const ops = await context.newPage();
  await ops.goto("/xbbadmin");
  await waitForHydration(ops);
  await ops.getByLabel("邮箱").fill(email);
  await ops.getByLabel("密码").fill(password);
  await ops.getByRole("button", { name: "登录" }).click();
  await expect(ops).toHaveURL(/\/admin\/dashboard$/);
  const menu = ops.getByLabel("管理菜单");
  await expect(menu.getByText("用户管理")).toBeVisible();
  await expect(menu.getByText("站点配置")).toHaveCount(0);
  await expect(menu.getByText("支付接口")).toHaveCount(0);
  const refused = await ops.goto("/admin/settings/payment-api");
  expect(refused!.status()).toBe(403);
  await expect(ops.getByText("只有超级管理员可以进行此操作")).toBeVisible();
  expect((await ops.request.get("/exports/database.zip")).status()).toBe(403);

  // Two-factor: enrol with the secret shown, then the login asks for a code.
  await ops.goto("/admin/account");
  await waitForHydration(ops);
  await ops.getByRole("button", { name: "开启两步验证" }).click();
  await expect(ops.getByRole("img", { name: "两步验证二维码" })).toBeVisible();
  const secret = (await ops.getByTestId("totp-secret").innerText()).replace(/\s+/g, "");
  const code = (ms: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: ms });
  // Enrol with the previous step's code (one step of drift is allowed), so the login below
  // has a later step to use (a step is accepted once). Not in a step's last 10 s: on a
  // loaded machine the server could check it two steps later.
  const nextStep = (Math.floor(Date.now() / 30_000) + 1) * 30_000;
  if (nextStep - Date.now() < 10_000) await clockPast(new Date(nextStep + 100));
  await ops.getByLabel("验证码").fill(code(Date.now() - 30_000));
  await ops.getByRole("button", { name: "确认开启" }).click();
  await expect(ops.getByTestId("notice")).toHaveText("两步验证已开启");
  // Ten recovery codes, shown this once (decision 167); the page then counts them.
  const recoveryCodes = await ops.getByTestId("recovery-codes").locator("code").allInnerTexts();
  expect(recoveryCodes).toHaveLength(10);
  for (const recoveryCode of recoveryCodes) expect(recoveryCode).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
  await ops.goto("/admin/account");
  await expect(ops.getByTestId("recovery-codes")).toHaveCount(0);
  await expect(ops.getByTestId("recovery-codes-left")).toHaveText("剩余恢复码：10 个。");
  await ops.getByRole("button", { name: "退出登录" }).click();
  await expect(ops).toHaveURL(/\/xbbadmin$/);

  await ops.getByLabel("邮箱").fill(email);
  await ops.getByLabel("密码").fill(password);
  await ops.getByRole("button", { name: "登录" }).click();
  await expect(ops.getByRole("heading", { name: "两步验证" })).toBeVisible();
  await ops.getByLabel("验证码").fill("000000");
  await ops.getByRole("button", { name: "验证" }).click();
  await expect(ops.getByRole("alert")).toContainText("验证码不正确");
  await ops.getByLabel("验证码").fill(code(Date.now()));
  await ops.getByRole("button", { name: "验证" }).click();
  await expect(ops).toHaveURL(/\/admin\/dashboard$/);
  await context.close();

  // The 超级管理员 sees it all in the log, then disables the 运营.
  await page.goto(`/admin/audit?admin=${encodeURIComponent(email)}`);
  await expect(page.getByTestId("audit-row").filter({ hasText: "开启两步验证" })).toHaveCount(1);
  await page.goto("/admin/admins");
  await waitForHydration(page);
  await page.getByTestId("admin-row").filter({ hasText: email }).getByRole("button", { name: "停用" }).click();
  await expect(page.getByTestId("notice")).toHaveText("管理员已停用，其登录已全部失效");
});
