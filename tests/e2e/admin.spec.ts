/**
 * The administrator back office in a real browser: /xbbadmin, the /admin shell and its
 * main forms with JavaScript, and the key forms without (tagged @nojs).
 *
 * The administrator comes from ADMIN_EMAIL / ADMIN_PASSWORD, which the e2e server reads
 * on its first start (Playwright passes this process's environment to the web server);
 * the defaults below must match what the web server gets.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BrowserContext, Page } from "@playwright/test";
import sharp from "sharp";
import { startFakeAiProvider, type FakeAiProvider } from "../fakes/ai-provider";
import { expect, test, waitForHydration, waitForLive } from "./fixtures";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";

process.env.ADMIN_EMAIL ??= "e2e-admin@example.com";
process.env.ADMIN_PASSWORD ??= "e2e-admin-password";
const ADMIN = { email: process.env.ADMIN_EMAIL, password: process.env.ADMIN_PASSWORD };

/**
 * Signs a context in as the administrator: with a session the seed made (account-pool.ts)
 * while there are any, else through /xbbadmin. Signing in itself is the subject of the
 * "login" tests, which use the form.
 */
async function adminLogIn(context: BrowserContext, baseURL: string) {
  await context.addCookies([poolCookie(ADMIN_COOKIE, baseURL, await adminSession(baseURL))]);
}

/** page.goto, then waits for hydration when JavaScript runs. */
async function open(page: Page, url: string, javaScriptEnabled: boolean) {
  await page.goto(url);
  if (javaScriptEnabled) await waitForHydration(page);
}

test.describe("login", () => {
  test("wrong password, then the right one, then sign-out @nojs", async ({ page, javaScriptEnabled }) => {
    await open(page, "/admin/users", javaScriptEnabled);
    await expect(page).toHaveURL(/\/xbbadmin\?redirectTo=%2Fadmin%2Fusers$/);
    await expect(page.getByRole("heading", { name: "管理员登录" })).toBeVisible();
    await page.getByLabel("邮箱").fill(ADMIN.email);
    await page.getByLabel("密码").fill("definitely-wrong");
    await page.getByRole("button", { name: "登录" }).click();
    await expect(page.getByRole("alert")).toHaveText("密码错误");

    await page.getByLabel("邮箱").fill(ADMIN.email);
    await page.getByLabel("密码").fill(ADMIN.password);
    await page.getByRole("button", { name: "登录" }).click();
    await expect(page).toHaveURL(/\/admin\/users$/);
    await expect(page.getByRole("heading", { name: "用户管理" })).toBeVisible();
    await expect(page.getByLabel("管理菜单").getByText("管理后台")).toBeVisible();

    await page.getByRole("button", { name: "退出登录" }).click();
    await expect(page).toHaveURL(/\/xbbadmin$/);
    await open(page, "/admin/dashboard", javaScriptEnabled);
    await expect(page).toHaveURL(/\/xbbadmin\?redirectTo=/);
  });

  test("a signed-in user is no administrator", async ({ loggedInPage: page }) => {
    await page.goto("/admin/dashboard");
    await expect(page).toHaveURL(/\/xbbadmin\?redirectTo=/);
    const response = await page.request.get("/exports/database.zip");
    expect(response.status()).toBe(401);
  });
});

test.describe("signed in", () => {
  test.beforeEach(async ({ context, baseURL }) => {
    await adminLogIn(context, baseURL!);
  });

  test("navigation: one group open at a time, the current page highlighted, unknown paths to the dashboard", async ({ page }) => {
    await open(page, "/admin/nowhere/at/all", true);
    await expect(page).toHaveURL(/\/admin\/dashboard$/);
    await expect(page.getByRole("heading", { name: "仪表盘" })).toBeVisible();
    await expect(page.getByTestId("stat-users")).toContainText("用户总数");

    const menu = page.getByLabel("管理菜单");
    const group = (name: string) => menu.locator("details", { has: page.locator("summary", { hasText: name }) });
    await menu.locator("summary", { hasText: "站点配置" }).click();
    await expect(group("站点配置")).toHaveAttribute("open", "");
    await menu.getByRole("link", { name: "Tokens配置" }).click();
    await expect(page).toHaveURL(/\/admin\/settings\/tokens$/);
    await expect(menu.getByRole("link", { name: "Tokens配置" })).toHaveAttribute("aria-current", "page");
    await expect(menu.getByRole("link", { name: "Tokens配置" })).toHaveClass(/active/);

    await menu.locator("summary", { hasText: "支付管理" }).click();
    await expect(group("支付管理")).toHaveAttribute("open", "");
    await expect(group("站点配置")).not.toHaveAttribute("open", "");
    await menu.getByRole("link", { name: "兑换码管理" }).click();
    await expect(page.getByRole("heading", { name: "兑换码管理" })).toBeVisible();

    await menu.getByRole("link", { name: "用户管理" }).click();
    await expect(page.getByRole("heading", { name: "用户管理" })).toBeVisible();
    await expect(group("支付管理")).not.toHaveAttribute("open", "");
  });

  test("tokens configuration: client-side messages, then saved", async ({ page }) => {
    await open(page, "/admin/settings/tokens", true);
    const ratio = page.getByLabel("积分兑换比例（1 积分可兑换的 Tokens 数）");
    const initial = page.getByLabel("新用户初始 Tokens");
    const [oldRatio, oldInitial] = [await ratio.inputValue(), await initial.inputValue()];
    await ratio.fill("1.5");
    await initial.fill("-3");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByText("请输入有效的积分兑换比例")).toBeVisible();
    await expect(page.getByText("请输入有效的初始Tokens数量")).toBeVisible();
    await ratio.fill(oldRatio);
    await initial.fill(oldInitial);
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByTestId("notice")).toHaveText("保存成功");
  });

  test("users: search, nickname and credit balance", async ({ page, user }) => {
    await open(page, "/admin/users", true);
    await page.getByRole("searchbox", { name: "按邮箱或昵称搜索" }).fill(user.email);
    await page.getByRole("button", { name: "搜索" }).click();
    const row = page.getByRole("row", { name: new RegExp(user.email) });
    await expect(row).toHaveCount(1);
    await row.getByRole("link", { name: "编辑" }).click();
    await expect(page.getByRole("heading", { name: "用户详情" })).toBeVisible();
    await page.getByLabel("昵称").fill("管理员改的名");
    await page.getByRole("button", { name: "保存昵称" }).click();
    await expect(page.getByTestId("notice")).toHaveText("昵称已更新");
    const before = Number((await page.getByTestId("user-credits").innerText()).replace(/,/g, ""));
    await page.getByLabel("增减数量").fill("+88");
    await page.getByLabel("原因", { exact: true }).fill("活动奖励");
    await page.getByRole("button", { name: "调整积分" }).click();
    await expect(page.getByTestId("notice")).toHaveText("积分余额已调整");
    await expect(page.getByTestId("user-credits")).toHaveText((before + 88).toLocaleString("zh-CN"));
    await expect(page.getByTestId("user-credit-ledger")).toContainText("管理员调整：活动奖励");
  });

  test("works: search and TXT export", async ({ page, facts }) => {
    await open(page, `/admin/works?q=${encodeURIComponent(facts.marker)}`, true);
    const row = page.getByRole("row", { name: new RegExp(facts.works.private) });
    await expect(row).toHaveCount(1);
    // The seeded works have no chapters: the export's own message shows in place.
    await row.getByRole("link", { name: "导出TXT" }).click();
    await expect(row.getByRole("alert")).toHaveText("未找到章节内容");
  });

  test("API configuration: create with the connectivity test, then delete after confirming", async ({ page }) => {
    const fake: FakeAiProvider = await startFakeAiProvider();
    try {
      await open(page, "/admin/settings/api", true);
      await page.getByRole("link", { name: "新建配置" }).click();
      const dialog = page.getByRole("dialog", { name: "新建API配置" });
      await expect(dialog.getByLabel("服务商")).toHaveValue("openai");
      await expect(dialog.getByLabel("模型")).toHaveAttribute("placeholder", "gpt-4-turbo-preview");
      await dialog.getByRole("button", { name: "保存" }).click();
      await expect(dialog.getByRole("alert")).toHaveText("请填写完整信息");
      const name = `e2e-${Date.now()}`;
      await dialog.getByLabel("名称").fill(name);
      await dialog.getByLabel("接口地址").fill(fake.openaiEndpoint);
      await dialog.getByLabel("API密钥").fill("sk-e2e-secret-key");
      await dialog.getByLabel("模型").fill("fake-model");
      await dialog.getByRole("button", { name: "测试连接" }).click();
      await expect(dialog.getByTestId("api-test-result")).toHaveText("API连接成功");
      await dialog.getByLabel("API密钥").fill("sk-e2e-secret-key");
      await dialog.getByRole("button", { name: "保存" }).click();
      await expect(page.getByTestId("notice")).toHaveText("保存成功");
      const row = page.getByRole("row", { name: new RegExp(name) });
      await expect(row).toContainText("********************");
      expect(await page.content()).not.toContain("sk-e2e-secret-key");

      await row.getByRole("link", { name: "删除" }).click();
      const confirm = page.getByRole("dialog", { name: "删除API配置" });
      await expect(confirm).toContainText(name);
      await confirm.getByRole("button", { name: "确认删除" }).click();
      await expect(page.getByTestId("notice")).toHaveText("删除成功");
      await expect(page.getByRole("row", { name: new RegExp(name) })).toHaveCount(0);
    } finally {
      await fake.close();
    }
  });

  test("third-party chat test", async ({ page }) => {
    const fake = await startFakeAiProvider();
    try {
      fake.enqueue({ reply: "你好，我是测试助手。" });
      await open(page, "/admin/tests/openai", true);
      await expect(page.getByLabel("模型")).toHaveValue("qwen-plus");
      await page.getByLabel("接口地址").fill(fake.openaiEndpoint);
      await page.getByLabel("API密钥").fill("k");
      await page.getByRole("button", { name: "发送测试" }).click();
      await expect(page.getByTestId("chat-test-result")).toHaveText("测试成功，API响应正常：你好，我是测试助手。");
    } finally {
      await fake.close();
    }
  });

  test("payment pages: the method form saves, the interface form shows its messages and never the key", async ({ page }) => {
    await open(page, "/admin/payment", true);
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByTestId("notice")).toHaveText("保存成功");
    await open(page, "/admin/settings/payment-api", true);
    await expect(page.getByTestId("merchant-key-state")).toBeVisible();
    await page.getByLabel("支付网关地址").fill("");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByText("请输入支付网关地址")).toBeVisible();
  });

  test("hero image: a 3 MB file is refused, an image is uploaded and removed", async ({ page }) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "admin-e2e-"));
    try {
      const big = path.join(dir, "big.png");
      fs.writeFileSync(big, Buffer.alloc(3 * 1024 * 1024, 1));
      const small = path.join(dir, "hero.png");
      fs.writeFileSync(small, await sharp({ create: { width: 600, height: 400, channels: 3, background: "#a23b2c" } }).png().toBuffer());
      await open(page, "/admin/settings/hero", true);
      await expect(page.getByText("建议尺寸 1200×800 像素，最大 2MB")).toBeVisible();
      const input = page.locator('input[type="file"]');
      await input.setInputFiles(big);
      await expect(page.getByRole("alert")).toHaveText("图片大小不能超过2MB");
      await expect(page.getByRole("button", { name: "上传", exact: true })).toBeDisabled();
      await input.setInputFiles(small);
      await page.getByRole("button", { name: "上传", exact: true }).click();
      await expect(page.getByTestId("notice")).toHaveText("上传成功");
      await expect(page.getByTestId("current-image")).toHaveAttribute("src", /\.webp$/);
      await page.getByRole("button", { name: "移除" }).click();
      await expect(page.getByTestId("notice")).toHaveText("已移除");
      await expect(page.getByTestId("current-image")).toHaveCount(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("terms: sanitized preview in place", async ({ page }) => {
    await open(page, "/admin/settings/terms", true);
    await page.getByLabel("内容（HTML）").fill('<h2>预览标题</h2><img src=x onerror="document.title=1"><script>document.title=2</script>');
    await page.getByRole("button", { name: "预览" }).click();
    const preview = page.getByTestId("legal-preview");
    await expect(preview.getByRole("heading", { name: "预览标题" })).toBeVisible();
    expect(await preview.innerHTML()).not.toMatch(/script|onerror|<img/);
  });

  test("privacy: a saved change shows up live on a visitor's open /privacy page", async ({ page, browser, baseURL }) => {
    const visitor = await browser.newContext({ baseURL });
    try {
      const reader = await visitor.newPage();
      await reader.goto("/privacy");
      await waitForLive(reader);
      const marker = `隐私政策 ${Date.now()}`;
      await open(page, "/admin/settings/privacy", true);
      await page.getByLabel("内容（HTML）").fill(`<h2>${marker}</h2><p>我们如何使用你的信息。</p>`);
      await page.getByRole("button", { name: "保存" }).click();
      await expect(page.getByTestId("notice")).toHaveText("保存成功");
      await expect(reader.getByRole("heading", { name: marker })).toBeVisible();
    } finally {
      await visitor.close();
    }
  });

  test("site description saves", async ({ page }) => {
    await open(page, "/admin/settings/description", true);
    const area = page.getByLabel("首页展示的站点简介");
    await expect(area).toHaveAttribute("rows", "10");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByTestId("notice")).toHaveText("保存成功");
  });

  test("API tokens: created once, pulls an export with curl-style bearer, revoked", async ({ page, playwright, baseURL }) => {
    await open(page, "/admin/api-tokens", true);
    await page.getByLabel("名称").fill("e2e 备份");
    await page.getByRole("button", { name: "创建令牌" }).click();
    const token = (await page.getByTestId("created-token").locator("code").textContent())!.trim();
    expect(token).toMatch(/^inkadm_/);
    const script = await playwright.request.newContext({ baseURL });
    try {
      const ok = await script.get("/exports/database.zip", { headers: { Authorization: `Bearer ${token}` } });
      expect(ok.status()).toBe(200);
      expect(ok.headers()["content-type"]).toBe("application/zip");
      expect((await ok.body()).subarray(0, 2).toString()).toBe("PK");
      await page.getByRole("row", { name: /e2e 备份/ }).first().getByRole("button", { name: "撤销" }).click();
      await expect(page.getByTestId("notice")).toHaveText("令牌已撤销");
      const refused = await script.get("/exports/database.zip", { headers: { Authorization: `Bearer ${token}` } });
      expect(refused.status()).toBe(401);
    } finally {
      await script.dispose();
    }
  });

  test("database export: progress to 100%, a database.zip download, then the bar clears", async ({ page }) => {
    await open(page, "/admin/migration", true);
    await expect(page.getByRole("heading", { name: "数据库导出" })).toBeVisible();
    const downloading = page.waitForEvent("download");
    await page.getByRole("link", { name: "导出数据库" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe("database.zip");
    const progress = page.getByTestId("export-progress");
    await expect(progress).toContainText("100%");
    await expect(progress).toHaveCount(0, { timeout: 5000 });
  });

  test("password change refuses a wrong current password", async ({ page }) => {
    await open(page, "/admin/account", true);
    await page.getByLabel("当前密码").fill("not-my-password");
    await page.getByLabel("新密码", { exact: true }).fill("another-password-1");
    await page.getByLabel("确认新密码").fill("another-password-1");
    await page.getByRole("button", { name: "修改密码" }).click();
    await expect(page.getByText("当前密码错误")).toBeVisible();
  });
});

test.describe("key forms, with and without JavaScript", () => {
  test.beforeEach(async ({ context, baseURL }) => {
    await adminLogIn(context, baseURL!);
  });

  test("prompts: create, edit, delete after confirming @nojs", async ({ page, javaScriptEnabled }) => {
    const code = `E${Date.now().toString(36).toUpperCase()}${javaScriptEnabled ? "J" : "N"}`;
    await open(page, "/admin/prompts", javaScriptEnabled);
    await page.getByRole("link", { name: "新建提示词" }).click();
    let dialog = page.getByRole("dialog", { name: "新建提示词" });
    await expect(dialog.getByLabel("类型")).toHaveValue("free");
    await expect(dialog.getByLabel("系统提示词（is_system）")).toBeChecked();
    await expect(dialog.getByLabel("可用变量")).toContainText("{|synopsis|}");
    await expect(dialog.getByLabel("可用变量")).toContainText("{|additional-information|}");
    await dialog.getByLabel("提示词代码").fill("P01");
    await dialog.getByLabel("标题").fill("e2e 提示词");
    await dialog.getByRole("textbox", { name: "系统提示词", exact: true }).fill("你是作者。");
    await dialog.getByRole("button", { name: "保存" }).click();
    dialog = page.getByRole("dialog", { name: "新建提示词" });
    await expect(dialog.getByText("请输入用户提示词")).toBeVisible();
    if (javaScriptEnabled) {
      await dialog.getByRole("button", { name: "{|synopsis|}" }).click();
    } else {
      await dialog.getByLabel("用户提示词").fill("{|synopsis|}");
    }
    await expect(dialog.getByLabel("用户提示词")).toHaveValue(/\{\|synopsis\|\}/);
    await dialog.getByLabel("标题").fill("e2e 提示词");
    await dialog.getByRole("textbox", { name: "系统提示词", exact: true }).fill("你是作者。");
    await dialog.getByLabel("提示词代码").fill("P01");
    await dialog.getByRole("button", { name: "保存" }).click();
    await expect(page.getByText("提示词代码已存在")).toBeVisible();
    dialog = page.getByRole("dialog", { name: "新建提示词" });
    await dialog.getByLabel("提示词代码").fill(code);
    if (!javaScriptEnabled) {
      // Without JavaScript the page came back from the server: refill what it keeps out.
      await dialog.getByLabel("用户提示词").fill("{|synopsis|}");
    }
    await dialog.getByRole("button", { name: "保存" }).click();
    await expect(page.getByTestId("notice")).toHaveText("保存成功");
    const row = page.getByRole("row", { name: new RegExp(code) });
    await expect(row).toContainText("自由创作");

    await row.getByRole("link", { name: "编辑" }).click();
    dialog = page.getByRole("dialog", { name: "编辑提示词" });
    await expect(dialog.getByLabel("提示词代码")).toHaveValue(code);
    await dialog.getByLabel("标题").fill("e2e 改过的");
    await dialog.getByLabel("类型").selectOption("continue");
    await dialog.getByRole("button", { name: "保存" }).click();
    await expect(page.getByTestId("notice")).toHaveText("保存成功");
    await expect(page.getByRole("row", { name: new RegExp(code) })).toContainText("连载续写");

    await page.getByRole("row", { name: new RegExp(code) }).getByRole("link", { name: "删除" }).click();
    const confirm = page.getByRole("dialog", { name: "删除提示词" });
    await expect(confirm).toContainText(code);
    await confirm.getByRole("button", { name: "确认删除" }).click();
    await expect(page.getByTestId("notice")).toHaveText("删除成功");
    await expect(page.getByRole("row", { name: new RegExp(code) })).toHaveCount(0);
  });

  test("redeem codes: generate, filter, export unused @nojs", async ({ page, javaScriptEnabled }) => {
    await open(page, "/admin/codes?status=unused&page=2", javaScriptEnabled);
    await page.getByRole("link", { name: "生成兑换码" }).click();
    const dialog = page.getByRole("dialog", { name: "生成兑换码" });
    if (javaScriptEnabled) {
      // The back office uses the site's one modal dialog: focus in, Escape closes.
      await expect(dialog.getByLabel("数量")).toBeFocused();
      await page.keyboard.press("Escape");
      await expect(dialog).toHaveCount(0);
      await expect(page.getByRole("link", { name: "生成兑换码" })).toBeFocused();
      await page.getByRole("link", { name: "生成兑换码" }).click();
    }
    await expect(dialog.getByLabel("数量")).toHaveValue("1");
    await expect(dialog.getByLabel("10 积分")).toBeChecked();
    await expect(dialog.getByText("每次最多生成100个")).toBeVisible();
    await dialog.getByLabel("数量").fill("101");
    if (javaScriptEnabled) {
      await expect(dialog.getByRole("button", { name: "确认生成" })).toBeDisabled();
    } else {
      await dialog.getByRole("button", { name: "确认生成" }).click();
      await expect(page.getByText("请输入1到100之间的数量")).toBeVisible();
    }
    await page.getByRole("dialog", { name: "生成兑换码" }).getByLabel("数量").fill("3");
    await page.getByRole("dialog", { name: "生成兑换码" }).getByLabel("50 积分").check();
    await page.getByRole("dialog", { name: "生成兑换码" }).getByRole("button", { name: "确认生成" }).click();
    await expect(page.getByTestId("notice")).toHaveText("兑换码生成成功！");
    await expect(page).toHaveURL(/\/admin\/codes\?status=unused/);
    await expect(page.getByRole("dialog")).toHaveCount(0);
    const first = page.locator("tbody tr").first();
    await expect(first).toContainText("50");
    await expect(first).toContainText("未使用");
    if (javaScriptEnabled) {
      // The success message goes away after 3 seconds.
      await expect(page.getByTestId("notice")).toHaveCount(0, { timeout: 6000 });
      const downloading = page.waitForEvent("download");
      await page.getByRole("link", { name: "导出未使用" }).click();
      expect((await downloading).suggestedFilename()).toBe("未使用兑换码.xlsx");
    }
  });

  test("tokens configuration refuses a ratio of 0 @nojs", async ({ page, javaScriptEnabled }) => {
    await open(page, "/admin/settings/tokens", javaScriptEnabled);
    const ratio = page.getByLabel("积分兑换比例（1 积分可兑换的 Tokens 数）");
    await ratio.fill("0");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByText("请输入有效的积分兑换比例")).toBeVisible();
    // The message is tied to its input: a screen reader reads it with the field.
    await expect(ratio).toHaveAttribute("aria-invalid", "true");
    await expect(ratio).toHaveAccessibleDescription("请输入有效的积分兑换比例");
  });
});

test.describe("a posted page reloaded (the browser's 重新提交, without JavaScript)", () => {
  test.use({ javaScriptEnabled: false });
  test.beforeEach(async ({ context, baseURL }) => {
    await adminLogIn(context, baseURL!);
  });

  test("API tokens: the create form sent again makes no second token and says so (decision 172)", async ({ page }) => {
    const name = `重提 ${Date.now().toString(36)}`;
    await open(page, "/admin/api-tokens", false);
    await page.getByLabel("名称").fill(name);
    await page.getByRole("button", { name: "创建令牌" }).click();
    await expect(page.getByTestId("created-token").locator("code")).toHaveText(/^inkadm_/);
    // Reloading the answer to a POST posts the same form (its one-time token) again.
    await page.reload();
    await expect(page.getByTestId("created-token")).toContainText(`令牌「${name}」已在第一次提交时创建，没有再创建新的令牌`);
    await expect(page.getByTestId("created-token").locator("code")).toHaveCount(0);
    await expect(page.getByRole("row", { name: new RegExp(name) })).toHaveCount(1);
  });
});
