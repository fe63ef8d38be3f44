import type { Page } from "@playwright/test";
import { expect, test, textbox } from "./fixtures";

/**
 * The AI writing tools end to end, against the test provider (tests/fakes/ai-provider.ts)
 * that playwright.config.ts starts on E2E_AI_PORT and the seed configures as the default
 * API configuration. Tests tagged @nojs run with JavaScript off as well.
 */
const nojs = { tag: "@nojs" };
const AI_URL = `http://127.0.0.1:${process.env.E2E_AI_PORT ?? 3198}`;

test.beforeAll(async ({ request }) => {
  const response = await request.get(`${AI_URL}/healthz`).catch(() => null);
  if (!response?.ok()) throw new Error(`the test AI provider is not running at ${AI_URL} (see playwright.config.ts)`);
});

async function startProject(page: Page, tool: "自由创作" | "短篇仿写") {
  await page.getByRole("button", { name: `开始${tool}` }).click();
  await expect(page).toHaveURL(/\?project=[0-9a-f-]{36}$/);
}

async function saveTheme(page: Page, theme: string) {
  const card = page.getByRole("region", { name: /整体设定/ });
  await card.getByRole("textbox").fill(theme);
  await card.getByRole("button", { name: "保存设定" }).click();
  await expect(card.getByRole("textbox")).toHaveValue(theme);
}

async function addCharacter(page: Page, name: string, personality: string, appearance: string) {
  await page.getByRole("link", { name: "添加角色" }).click();
  const form = page.getByRole("form", { name: "添加角色" });
  await textbox(form, "姓名").fill(name);
  await textbox(form, "性格").fill(personality);
  await textbox(form, "外貌").fill(appearance);
  await form.getByRole("button", { name: "保存角色" }).click();
  await expect(page.getByRole("list", { name: "角色列表" }).getByText(name, { exact: true })).toBeVisible();
}

async function addPlot(page: Page, title: string, characters: string[], expectedWords?: number) {
  await page.getByRole("link", { name: "添加情节" }).click();
  const form = page.getByRole("form", { name: "添加情节" });
  await textbox(form, "标题").fill(title);
  await textbox(form, "概要").fill(`${title}的概要`);
  await textbox(form, "环境").fill("江南小镇，梅雨季");
  if (expectedWords) await form.getByRole("spinbutton", { name: "预计字数" }).fill(String(expectedWords));
  for (const name of characters) await form.getByRole("checkbox", { name }).check();
  await form.getByRole("button", { name: "保存情节" }).click();
  await expect(page.getByRole("link", { name: title, exact: true })).toBeVisible();
}

const plotTitles = (page: Page) => page.getByRole("list", { name: "情节列表" }).locator(".plot-select").allTextContents();

test("free writing: setting, characters, plots, streamed generation charged exactly, versions, draft", async ({ loggedInPage: page, visit }) => {
  test.slow();
  await visit("/free-writing");
  await expect(page.getByRole("heading", { name: "自由创作", level: 1 })).toBeVisible();
  await startProject(page, "自由创作");

  await saveTheme(page, "民国时期的江南小镇，一段错过的感情。");
  await addCharacter(page, "林晚", "倔强、敏感", "清瘦，蓝布衫");
  await addCharacter(page, "沈舟", "沉默寡言", "高个子，眉间有疤");
  await addPlot(page, "雨夜来信", ["林晚"]);
  // The test provider writes about as many characters as asked for: 3,000 in 250 chunks
  // take long enough to watch the text arrive.
  await addPlot(page, "河岸重逢", ["林晚", "沈舟"], 3000);

  // Reorder by dragging, then by the buttons; the order is saved.
  expect((await plotTitles(page)).map((t) => t.trim())).toEqual(["1 雨夜来信", "2 河岸重逢"]);
  const list = page.getByRole("list", { name: "情节列表" });
  // The new order shows at once and is saved in the background: reload only once saved
  // ("networkidle" never comes while the live-updates stream is open).
  const saved = page.waitForResponse((r) => r.request().method() === "POST" && (r.request().postData() ?? "").includes("reorder-plots"));
  await list.getByRole("listitem").filter({ hasText: "河岸重逢" }).dragTo(list.getByRole("listitem").filter({ hasText: "雨夜来信" }));
  await expect.poll(async () => (await plotTitles(page)).map((t) => t.trim())).toEqual(["1 河岸重逢", "2 雨夜来信"]);
  expect((await saved).ok()).toBe(true);
  await page.reload();
  await expect.poll(async () => (await plotTitles(page)).map((t) => t.trim())).toEqual(["1 河岸重逢", "2 雨夜来信"]);
  await page.getByRole("button", { name: "上移雨夜来信" }).click();
  await expect.poll(async () => (await plotTitles(page)).map((t) => t.trim())).toEqual(["1 雨夜来信", "2 河岸重逢"]);

  // Select a plot: the estimated prompt cost stands beside the balance.
  await page.getByRole("link", { name: "河岸重逢", exact: true }).click();
  const editor = page.getByRole("region", { name: "正文：河岸重逢" });
  const balanceBefore = Number((await editor.getByTestId("token-balance").textContent())!.replace(/,/g, ""));
  const promptCost = Number(await editor.getByTestId("prompt-cost").textContent());
  expect(promptCost).toBeGreaterThan(0);

  // 生成: the button says 生成中... while the text streams in.
  const text = editor.getByRole("textbox", { name: "情节正文" });
  const charge = editor.getByTestId("charge");
  await editor.getByRole("button", { name: "生成", exact: true }).click();
  await expect(editor.getByRole("button", { name: "生成中..." })).toBeVisible();
  // The text grows in the editor as it arrives (that it arrives in pieces, before the
  // provider has finished, is checked by tests/integration/ai-generation.test.ts).
  await expect.poll(async () => (await text.inputValue()).length).toBeGreaterThan(20);
  await expect(charge).toContainText("本次消耗", { timeout: 20_000 });
  const generated = await text.inputValue();
  // Charged on the usage the test provider reported (1 token per 2 characters: docs/product.md D15).
  const outputTokens = Math.ceil(Array.from(generated).length / 2);
  const shown = /^本次消耗 (\d+) Tokens（实际用量：输入 (\d+) \+ 输出 (\d+)）$/.exec((await charge.textContent()) ?? "");
  expect(shown).not.toBeNull();
  const [charged, inputTokens, output] = shown!.slice(1).map(Number);
  expect([output, charged]).toEqual([outputTokens, inputTokens + outputTokens]);
  await expect(editor.getByTestId("token-balance")).toHaveText((balanceBefore - charged).toLocaleString("zh-CN"));

  // A second generation, then compare the two and make the first current again.
  await editor.getByRole("button", { name: "生成", exact: true }).click();
  await expect(charge).toContainText("本次消耗", { timeout: 20_000 });
  const versions = page.getByRole("region", { name: "版本记录" });
  await expect(versions.getByRole("row")).toHaveCount(3);
  await versions.getByRole("button", { name: "对比" }).click();
  await expect(page.getByRole("region", { name: "版本对比" }).getByRole("heading", { name: "版本1 与 版本2" })).toBeVisible();
  await versions.getByRole("button", { name: "将版本1设为当前" }).click();
  await expect(versions.getByRole("row").filter({ has: page.getByText("当前", { exact: true }) })).toContainText("版本1");
  await expect(text).toHaveValue(generated);

  // Deleting a character asks first, and takes it out of the plots.
  await page.getByRole("link", { name: "删除角色林晚" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "确认删除" }).click();
  await expect(page.getByRole("list", { name: "角色列表" }).getByText("林晚", { exact: true })).toHaveCount(0);
  await expect(list.getByRole("listitem").filter({ hasText: "雨夜来信" })).toContainText("未选择角色");

  // The draft panel keeps its text.
  await page.getByRole("link", { name: "草稿面板" }).click();
  const draft = page.getByPlaceholder("在此粘贴你的文本");
  await draft.fill("灵感：雨夜、旧信、一盏灯笼。");
  // The address already says tab=draft: wait for the save itself before reloading, or
  // the reload can cancel it.
  const draftSaved = page.waitForResponse((r) => r.request().method() === "POST" && (r.request().postData() ?? "").includes("save-draft"));
  await page.getByRole("button", { name: "保存草稿" }).click();
  expect((await draftSaved).ok()).toBe(true);
  await expect(page).toHaveURL(/tab=draft/);
  await page.reload();
  await expect(page.getByPlaceholder("在此粘贴你的文本")).toHaveValue("灵感：雨夜、旧信、一盏灯笼。");
});

test("a failed precondition shows its message and leaves the text as it was", async ({ loggedInPage: page, visit }) => {
  await visit("/free-writing");
  await startProject(page, "自由创作");
  await saveTheme(page, "一个故事");
  await addCharacter(page, "甲", "乙", "丙");
  await addPlot(page, "无人情节", []);
  await page.getByRole("link", { name: "无人情节", exact: true }).click();
  const editor = page.getByRole("region", { name: "正文：无人情节" });
  await expect(editor.getByTestId("cost-line")).toContainText("请为当前情节选择至少一个角色");
  await editor.getByRole("textbox", { name: "情节正文" }).fill("我写的开头");
  await editor.getByRole("button", { name: "生成", exact: true }).click();
  await expect(editor.getByRole("alert")).toHaveText("请为当前情节选择至少一个角色");
  await expect(editor.getByRole("textbox", { name: "情节正文" })).toHaveValue("我写的开头");
});

test("short-piece imitation: paste a source, 分析 fills characters and plots, then generate", async ({ loggedInPage: page, visit }) => {
  await visit("/short-writing");
  await expect(page.getByRole("heading", { name: "短篇仿写", level: 1 })).toBeVisible();
  await startProject(page, "短篇仿写");
  await page.getByRole("textbox", { name: "或粘贴参考文本" }).fill("林晚撑着伞走在河边。沈舟站在巷口，等了她很多年。".repeat(10));
  await page.getByRole("button", { name: "分析" }).click();
  const characters = page.getByRole("list", { name: "角色列表" });
  await expect(characters.getByText("林晚", { exact: true })).toBeVisible();
  await expect(characters.getByText("沈舟", { exact: true })).toBeVisible();
  expect((await plotTitles(page)).map((t) => t.trim())).toEqual(["1 雨夜来信", "2 河岸重逢"]);
  await expect(page.getByText(/已分析：粘贴的文本/)).toBeVisible();

  await saveTheme(page, "新故事：一个裁缝铺女儿的等待。");
  await page.getByRole("link", { name: "河岸重逢", exact: true }).click();
  const editor = page.getByRole("region", { name: "正文：河岸重逢" });
  await editor.getByRole("button", { name: "生成", exact: true }).click();
  await expect(editor.getByTestId("charge")).toContainText("本次消耗", { timeout: 20_000 });
  expect((await editor.getByRole("textbox", { name: "情节正文" }).inputValue()).length).toBeGreaterThan(100);
});

test("the writing forms work without JavaScript, and 生成 shows the finished text", nojs, async ({ loggedInPage: page, visit }) => {
  test.slow();
  await visit("/free-writing");
  await startProject(page, "自由创作");
  await saveTheme(page, "没有脚本也能写。");
  await addCharacter(page, "甲", "乙", "丙");
  await addPlot(page, "第一段", ["甲"]);
  await addPlot(page, "第二段", ["甲"]);
  await page.getByRole("button", { name: "下移第一段" }).click();
  await expect.poll(async () => (await plotTitles(page)).map((t) => t.trim())).toEqual(["1 第二段", "2 第一段"]);

  // A plot form with bad input comes back with the messages by the fields.
  await page.getByRole("link", { name: "编辑情节第一段" }).click();
  const form = page.getByRole("form", { name: "编辑情节" });
  await form.getByRole("spinbutton", { name: "预计字数" }).fill("50");
  await form.getByRole("button", { name: "保存情节" }).click();
  await expect(page.getByText("预计字数不能少于100字")).toBeVisible();
  await form.getByRole("link", { name: "取消" }).click();

  await page.getByRole("link", { name: "第一段", exact: true }).click();
  const editor = page.getByRole("region", { name: "正文：第一段" });
  await editor.getByRole("button", { name: "生成", exact: true }).click();
  await expect(editor.getByTestId("charge")).toContainText("本次消耗");
  expect((await editor.getByRole("textbox", { name: "情节正文" }).inputValue()).length).toBeGreaterThan(100);
  await expect(page.getByRole("region", { name: "版本记录" }).getByRole("row")).toHaveCount(2);

  await page.getByRole("link", { name: "删除情节第二段" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "确认删除" }).click();
  await expect(page.getByRole("link", { name: "第二段", exact: true })).toHaveCount(0);
});

test("the writing tools are desktop only", nojs, async ({ loggedInPage: page, visit }) => {
  await page.setViewportSize({ width: 600, height: 900 });
  await visit("/free-writing");
  await expect(page.getByText("自由创作仅支持在电脑上使用")).toBeVisible();
  await expect(page.getByRole("button", { name: "开始自由创作" })).toBeHidden();
  await visit("/short-writing");
  await expect(page.getByText("短篇仿写仅支持在电脑上使用")).toBeVisible();
  await visit("/series-writing");
  await expect(page.getByText("连载续写仅支持在电脑上使用")).toBeVisible();
});

test("short-piece imitation: a failed 分析 says why, with JavaScript and without", nojs, async ({ loggedInPage: page, visit }) => {
  await visit("/short-writing");
  await startProject(page, "短篇仿写");
  const source = page.getByRole("region", { name: "参考作品" });
  await source.getByRole("button", { name: "分析" }).click();
  await expect(source.getByRole("alert")).toHaveText("请选择一篇参考作品或粘贴文本");
  await source.getByRole("textbox", { name: "或粘贴参考文本" }).fill("长".repeat(20_001));
  await source.getByRole("button", { name: "分析" }).click();
  await expect(source.getByRole("alert")).toHaveText("参考作品需少于20000字");
  // The provider fails (the test provider answers 500 to this marker, three times).
  await source.getByRole("textbox", { name: "或粘贴参考文本" }).fill("〔fake:status:500〕林晚撑着伞走在河边。");
  await source.getByRole("button", { name: "分析" }).click();
  await expect(source.getByRole("alert")).toHaveText("API服务器错误");
  await expect(page.getByRole("list", { name: "角色列表" }).getByRole("listitem")).toHaveCount(0);
});

test("the 正文 box is saved as it is typed: switching plot or reloading keeps it, leaving while unsaved asks first", async ({ loggedInPage: page, visit }) => {
  await visit("/free-writing");
  await startProject(page, "自由创作");
  await addPlot(page, "甲段", []);
  await addPlot(page, "乙段", []);
  await page.getByRole("link", { name: "甲段", exact: true }).click();
  const body = (title: string) => page.getByRole("region", { name: `正文：${title}` }).getByRole("textbox", { name: "情节正文" });

  // Switching plot at once, before the pause that saves: the text goes with the switch.
  await body("甲段").click();
  await page.keyboard.type("甲段的开头，");
  await page.getByRole("link", { name: "乙段", exact: true }).click();
  await expect(body("乙段")).toHaveValue("");
  await page.getByRole("link", { name: "甲段", exact: true }).click();
  await expect(body("甲段")).toHaveValue("甲段的开头，");

  // Typing on while a save comes back keeps every character; a reload shows them all.
  await body("甲段").press("End");
  await page.keyboard.type("接着写下去。");
  await expect(page.getByTestId("content-autosave")).toHaveText("已自动保存");
  await expect(body("甲段")).toHaveValue("甲段的开头，接着写下去。");
  await page.reload();
  await expect(body("甲段")).toHaveValue("甲段的开头，接着写下去。");

  // Leaving with text not yet saved: the browser asks first.
  await body("甲段").press("End");
  await page.keyboard.type("还没保存");
  const asked = page.waitForEvent("dialog");
  const closing = page.close({ runBeforeUnload: true });
  const dialog = await asked;
  expect(dialog.type()).toBe("beforeunload");
  await dialog.dismiss();
  await closing;
});
