import sharp from "sharp";
import { expect, freshUser, logIn, test } from "./fixtures";
import { expectLoginDialog, submitAuthDialog } from "./fixtures/auth-dialog";

const nojs = { tag: "@nojs" };

test.describe("/settings", () => {
  test("shows the profile tab: avatar, nickname, read-only e-mail, pixiv ID, password", nojs, async ({
    loggedInPage: page,
    user,
    visit,
  }) => {
    await visit("/settings");
    await expect(page.getByRole("heading", { name: "设置", exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "用户资料" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByTestId("settings-email")).toHaveText(user.email);
    await expect(page.getByRole("link", { name: /邮箱/ })).toHaveCount(0);
    await expect(page.getByTestId("settings-pixiv-id")).toHaveText("未设置");
    for (const [name, href] of [
      [/头像/, "/settings/avatar"],
      [/昵称/, "/settings/nickname"],
      [/pixiv ID/, "/settings/pixiv-id"],
      [/密码/, "/settings/password"],
    ] as const) {
      await expect(page.getByRole("link", { name })).toHaveAttribute("href", href);
    }
  });

  test("the avatar menu leads here; a visitor is asked to log in first and comes back after", nojs, async ({
    page,
    visit,
    user,
  }) => {
    await visit("/settings/nickname");
    await expectLoginDialog(page);
    await expect(page).toHaveURL(/\?auth=login&redirectTo=%2Fsettings%2Fnickname$/);
    await submitAuthDialog(page, "login", user);
    await expect(page).toHaveURL(/\/settings\/nickname$/);
    await expect(page.getByRole("heading", { name: "修改昵称" })).toBeVisible();

    await page.getByRole("banner").locator("summary", { hasText: "的账户菜单" }).click();
    await page.getByRole("banner").getByRole("link", { name: "设置" }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await page.getByRole("link", { name: "浏览与显示" }).click();
    await expect(page.getByRole("switch", { name: "显示 R-18 内容" })).toBeVisible();
  });

  test("changes the nickname and returns to /settings", nojs, async ({ loggedInPage: page, visit }) => {
    await visit("/settings");
    await page.getByRole("link", { name: /昵称/ }).click();
    await expect(page).toHaveURL(/\/settings\/nickname$/);
    const field = page.getByLabel("昵称");
    await field.fill("   ");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByRole("alert")).toHaveText("请输入昵称");
    // The message is tied to its input: a screen reader reads it with the field.
    await expect(field).toHaveAttribute("aria-invalid", "true");
    await expect(field).toHaveAccessibleDescription("请输入昵称");
    await field.fill("砚".repeat(31));
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByRole("alert")).toHaveText("昵称不能超过30个字符");

    await field.fill("  墨池客  ");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole("status")).toHaveText("昵称已更新");
    await expect(page.getByTestId("settings-nickname")).toHaveText("墨池客");
    await expect(page.getByRole("banner").getByText("墨池客")).toBeVisible();
  });

  test("sets a pixiv ID with the 30-day notice; another account cannot take it", nojs, async ({
    loggedInPage: page,
    visit,
    browser,
    baseURL,
    playwright,
    logInAs,
  }) => {
    const pixivId = `px${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
    await visit("/settings/pixiv-id");
    await expect(page.getByRole("note")).toHaveText("设置后30天内无法再次修改，且旧的pixiv ID将无法再被使用。");
    await page.getByLabel("pixiv ID").fill(pixivId);
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByTestId("settings-pixiv-id")).toHaveText(pixivId);

    const second = await freshUser(playwright, baseURL!);
    const context = await browser.newContext();
    await logInAs(context, second);
    const other = await context.newPage();
    await visit("/settings/pixiv-id", other);
    await other.getByLabel("pixiv ID").fill(pixivId);
    await other.getByRole("button", { name: "保存" }).click();
    await expect(other.getByRole("alert")).toHaveText("此pixiv ID已被使用");
    await visit("/settings", other);
    await expect(other.getByTestId("settings-pixiv-id")).toHaveText("未设置");
    await context.close();
  });

  test("changes the password: checks, then every session ends and login is asked for", nojs, async ({
    loggedInPage: page,
    user,
    visit,
    browser,
    baseURL,
  }) => {
    test.slow(); // five password hashes on a busy test server
    const otherDevice = await browser.newContext();
    await logIn(otherDevice, baseURL!, user);

    await visit("/settings/password");
    const fill = async (current: string, next: string, confirm: string) => {
      await page.getByLabel("当前密码").fill(current);
      // A field's error sits in its label, so the name may go on after the caption.
      await page.getByLabel(/^新密码/).fill(next);
      await page.getByLabel("确认新密码").fill(confirm);
      await page.getByRole("button", { name: "修改密码" }).click();
    };
    await fill("not-my-password", "a-new-password", "a-new-password");
    await expect(page.getByRole("alert")).toHaveText("当前密码错误");
    await fill(user.password, "a-new-password", "another-password");
    await expect(page.getByRole("alert")).toHaveText("两次输入的新密码不一致");
    await fill(user.password, "short", "short");
    await expect(page.getByRole("alert")).toHaveText("密码至少需要 8 个字符");

    await fill(user.password, "a-new-password", "a-new-password");
    await expectLoginDialog(page);
    await expect(page).toHaveURL(/\/\?auth=login&redirectTo=%2Fsettings$/);

    // The other device is signed out too.
    const other = await otherDevice.newPage();
    await other.goto("/settings");
    await expectLoginDialog(other);
    await otherDevice.close();

    await submitAuthDialog(page, "login", { email: user.email, password: "a-new-password" });
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByTestId("settings-email")).toHaveText(user.email);
  });

  test("turns show R-18 and show AI content on and off, each on its own", nojs, async ({ loggedInPage: page, visit }) => {
    await visit("/settings");
    await page.getByRole("link", { name: "浏览与显示" }).click();
    await expect(page).toHaveURL(/\/settings\?tab=display$/);
    const r18 = page.getByRole("switch", { name: "显示 R-18 内容" });
    const ai = page.getByRole("switch", { name: "显示 AI 创作的内容" });
    await expect(r18).toHaveAttribute("aria-checked", "false");
    await expect(ai).toHaveAttribute("aria-checked", "true");

    // R-18 asks for the 我已年满 18 周岁 box first.
    await r18.click();
    await expect(page.getByRole("alert")).toHaveText("开启 R-18 内容前，请勾选“我已年满 18 周岁”");
    await expect(r18).toHaveAttribute("aria-checked", "false");
    await page.getByLabel("我已年满 18 周岁").check();
    await r18.click();
    await expect(page.getByRole("status")).toHaveText("设置已保存");
    await expect(r18).toHaveAttribute("aria-checked", "true");
    await expect(page.getByLabel("我已年满 18 周岁")).toHaveCount(0);
    await expect(ai).toHaveAttribute("aria-checked", "true");
    // The page shows the new state at once; wait for the server to have saved it before
    // reloading, or the reload can cancel the save.
    const saved = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname.startsWith("/settings"));
    await ai.click();
    await expect(ai).toHaveAttribute("aria-checked", "false");
    await saved;

    await visit("/settings?tab=display");
    await expect(r18).toHaveAttribute("aria-checked", "true");
    await expect(ai).toHaveAttribute("aria-checked", "false");
    await r18.click();
    await expect(r18).toHaveAttribute("aria-checked", "false");
  });

  test("the switches keep their state visible in forced colours (a contrast theme)", async ({ loggedInPage: page, visit }) => {
    await page.emulateMedia({ forcedColors: "active" });
    await visit("/settings?tab=display");
    // The track's and the knob's colours as the browser paints them under the theme.
    const painted = (name: string) =>
      page
        .getByRole("switch", { name })
        .locator(".switch-knob")
        .evaluate((track) => ({ track: getComputedStyle(track).backgroundColor, knob: getComputedStyle(track, "::after").backgroundColor }));
    const off = await painted("显示 R-18 内容");
    const on = await painted("显示 AI 创作的内容");
    expect(off.knob).not.toBe(off.track);
    expect(on.knob).not.toBe(on.track);
    expect(on.track).not.toBe(off.track);
  });

  test("a notice reaches only the page it was sent to, not another tab that reloads first", nojs, async ({
    loggedInPage: page,
    context,
    visit,
    baseURL,
  }) => {
    const other = await context.newPage();
    await visit("/settings?tab=display");
    await visit("/credits", other);
    // This tab's post has set the notice, and its redirect has not been followed yet.
    const origin = new URL(baseURL!).origin;
    const posted = await context.request.post("/settings?tab=display", {
      form: { preference: "showAi", value: "off" },
      headers: { Origin: origin, Referer: `${origin}/settings?tab=display` },
      maxRedirects: 0,
    });
    expect(posted.status()).toBe(302);
    // The other tab reloads first: it shows nothing and leaves the notice alone.
    await other.reload();
    await expect(other.getByRole("heading", { name: "我的积分" })).toBeVisible();
    await expect(other.getByText("设置已保存")).toHaveCount(0);
    // The page it was for shows it.
    await visit("/settings?tab=display");
    await expect(page.getByRole("status")).toHaveText("设置已保存");
    await expect(page.getByRole("switch", { name: "显示 AI 创作的内容" })).toHaveAttribute("aria-checked", "false");
  });

  test("uploads an avatar (JPG/PNG/WebP) and refuses an SVG", nojs, async ({ loggedInPage: page, visit }) => {
    const png = await sharp({ create: { width: 240, height: 240, channels: 3, background: "#a23b2c" } }).png().toBuffer();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

    await visit("/settings/avatar");
    await page.getByLabel("选择图片").setInputFiles({ name: "evil.svg", mimeType: "image/svg+xml", buffer: svg });
    await page.getByRole("button", { name: "上传头像" }).click();
    await expect(page.getByRole("alert")).toHaveText("头像仅支持JPG、PNG或WebP格式的图片");

    await page.getByLabel("选择图片").setInputFiles([]);
    await page.getByRole("button", { name: "上传头像" }).click();
    await expect(page.getByRole("alert")).toHaveText("请选择头像图片");

    await page.getByLabel("选择图片").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: png });
    await page.getByRole("button", { name: "上传头像" }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole("status")).toHaveText("头像已更新");
    const avatar = page.getByRole("img", { name: "当前头像" });
    await expect(avatar).toHaveAttribute("src", /^\/files\/avatars\/.+\.png$/);
    const src = (await avatar.getAttribute("src"))!;
    const file = await page.request.get(src);
    expect(file.status()).toBe(200);
    expect(file.headers()["content-type"]).toBe("image/png");
    await expect(page.getByRole("banner").locator("img.avatar")).toHaveAttribute("src", src);
  });

  test("阅读App（OPDS）: creates a token, shows the catalog's address once, and the app loses it on 撤销", nojs, async ({
    loggedInPage: page,
    visit,
    playwright,
  }) => {
    await visit("/settings");
    await page.getByRole("link", { name: /阅读App/ }).click();
    await expect(page).toHaveURL(/\/settings\/opds$/);
    await expect(page.getByRole("heading", { name: "阅读App（OPDS）" })).toBeVisible();
    const label = page.getByLabel(/^令牌名称/);
    await label.fill("  ");
    await page.getByRole("button", { name: "创建令牌" }).click();
    await expect(page.getByRole("alert")).toHaveText("请输入令牌名称，如“KOReader”");

    await label.fill("KOReader");
    await page.getByRole("button", { name: "创建令牌" }).click();
    const address = page.getByTestId("opds-address");
    await expect(address).toHaveText(/\/opds\/inkopds_[A-Za-z0-9_-]{32}$/);
    const catalog = (await address.textContent())!;

    // A reading app: no cookies, only the address.
    const app = await playwright.request.newContext();
    const root = await app.get(catalog);
    expect(root.status()).toBe(200);
    expect(root.headers()["content-type"]).toContain("kind=navigation");
    expect(root.headers()["set-cookie"]).toBeUndefined();
    expect((await app.get(`${catalog}/library`)).headers()["content-type"]).toContain("kind=acquisition");

    // Shown once: the page opened again lists the token (used now) but not its address.
    await visit("/settings/opds");
    await expect(page.getByTestId("opds-address")).toHaveCount(0);
    await expect(page.getByText("inkopds_")).toHaveCount(0);
    await expect(page.getByRole("list", { name: "阅读App令牌" })).toContainText(/KOReader\s*创建于 \d{4}-\d{2}-\d{2} \d{2}:\d{2} · 最近使用 \d{4}-/);

    await page.getByRole("button", { name: "撤销令牌「KOReader」" }).click();
    await expect(page.getByRole("status")).toHaveText("已撤销令牌「KOReader」，使用它的阅读App将无法再访问书库");
    await expect(page.getByRole("list", { name: "阅读App令牌" })).toHaveCount(0);
    expect((await app.get(catalog)).status()).toBe(401);
    await app.dispose();
  });
});
