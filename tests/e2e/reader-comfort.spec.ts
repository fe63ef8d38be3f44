import { expect, test } from "./fixtures";
import { chapterParagraphs, marker, newAuthor, numberedParagraphs, publishWork } from "./reader-helpers";

/**
 * The reader's settings (docs/product.md#reading-comfort, decision 106): a signed-in
 * reader's choice is saved on the profile and rendered by the server, so it holds on
 * another device and before any script runs; without JavaScript the panel is a plain form.
 */
test("a signed-in reader sets font size, line height, width and background", { tag: "@nojs" }, async ({
  loggedInPage: page,
  visit,
  javaScriptEnabled,
  browser,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("comfort");
  const id = await publishWork(author, { title: `舒适 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text} 第一段`, "第二段"] }] });
  await visit(`/works/${id}?chapter=1`, page);
  const html = page.locator("html");
  await expect(html).toHaveAttribute("data-reader-size", "3");
  await expect(html).not.toHaveAttribute("data-theme", /./);
  const sizeBefore = await chapterParagraphs(page).first().evaluate((p) => parseFloat(getComputedStyle(p).fontSize));

  await page.getByText("阅读设置", { exact: true }).click();
  const panel = page.getByRole("form", { name: "阅读设置" });
  await panel.getByRole("group", { name: "字号" }).getByLabel("大", { exact: true }).check();
  await panel.getByRole("group", { name: "行距" }).getByLabel("宽松").check();
  await panel.getByRole("group", { name: "页宽" }).getByLabel("窄").check();
  await panel.getByRole("group", { name: "背景" }).getByLabel("米黄").check();
  if (javaScriptEnabled) {
    // Each change applies at once and is saved in the background.
    await expect(html).toHaveAttribute("data-theme", "sepia");
    await expect(panel.getByRole("status")).toHaveText("阅读设置已保存");
  } else {
    await panel.getByRole("button", { name: "保存" }).click();
    await expect(page).toHaveURL(`/works/${id}?chapter=1`);
    // The chapter it came back to confirms the save.
    await expect(page.getByRole("status").filter({ hasText: "阅读设置已保存" })).toBeVisible();
  }

  // Saved on the profile: a fresh page, and another browser signed in as the same reader.
  await page.reload();
  await expect(html).toHaveAttribute("data-theme", "sepia");
  await expect(html).toHaveAttribute("data-reader-size", "5");
  await expect(html).toHaveAttribute("data-reader-leading", "loose");
  await expect(html).toHaveAttribute("data-reader-width", "narrow");
  expect(await chapterParagraphs(page).first().evaluate((p) => parseFloat(getComputedStyle(p).fontSize))).toBeGreaterThan(sizeBefore);
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe("rgb(239, 230, 210)");
  const other = await browser.newContext({ javaScriptEnabled: false });
  await other.addCookies(await page.context().cookies());
  const otherPage = await other.newPage();
  await otherPage.goto(`${baseURL}/works/${id}?chapter=1`);
  await expect(otherPage.locator("html")).toHaveAttribute("data-theme", "sepia");
  await other.close();
});

test("a visitor's background is kept in a cookie and rendered before any script runs", async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, { title: `护眼 ${marker("green")}`, chapters: [{ title: "第一章", paragraphs: ["一段"] }] });
  await visit(`/works/${id}?chapter=1`);
  await page.getByText("阅读设置", { exact: true }).click();
  const saved = page.waitForResponse((response) => response.url().endsWith("/reader-settings") && response.ok());
  await page.getByRole("group", { name: "背景" }).getByLabel("护眼绿").check();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "green");
  await saved;
  await page.route(/\/assets\/.+\.js$/, (route) => route.abort());
  await page.goto(`/works/${id}`);
  await expect(page.locator("html")).toHaveAttribute("data-theme", "green");
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe("rgb(211, 230, 209)");
});

test("immersive reading hides the sidebar and top bar on a phone until 退出沉浸 or Escape", async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, {
    title: `沉浸 ${marker("immersive")}`,
    chapters: [
      { title: "第一章", paragraphs: ["一"] },
      { title: "第二章", paragraphs: ["二"] },
    ],
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await visit(`/works/${id}?chapter=1`);
  const topBar = page.locator(".top-bar");
  await expect(topBar).toBeVisible();
  // The chapter's bar fits a phone: nothing scrolls sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.getByRole("button", { name: "沉浸阅读" }).click();
  await expect(topBar).toBeHidden();
  await expect(page.getByRole("button", { name: "菜单" })).toBeHidden();
  await expect(page.getByRole("contentinfo")).toBeHidden();
  const leave = page.getByRole("button", { name: "退出沉浸" });
  await expect(leave).toBeInViewport();
  // It lasts into the next chapter, and Escape leaves it.
  await page.getByRole("link", { name: "下一章" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "第二章" })).toBeVisible();
  await expect(topBar).toBeHidden();
  await page.keyboard.press("Escape");
  await expect(topBar).toBeVisible();
  await page.getByRole("button", { name: "沉浸阅读" }).click();
  await expect(topBar).toBeHidden();
  await page.getByRole("button", { name: "退出沉浸" }).click();
  await expect(topBar).toBeVisible();
  // Desktop: the sidebar steps aside too.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByRole("complementary", { name: "主导航" })).toBeVisible();
  await page.getByRole("button", { name: "沉浸阅读" }).click();
  await expect(page.getByRole("complementary", { name: "主导航" })).toBeHidden();
  // Leaving the chapter ends it.
  await page.getByRole("link", { name: "目录" }).first().click();
  await expect(page).toHaveURL(`/works/${id}#toc`);
  await expect(topBar).toBeVisible();
});

test("the chapter list opens as a drawer inside the chapter", { tag: "@nojs" }, async ({ page, visit, javaScriptEnabled, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, {
    title: `抽屉 ${marker("drawer")}`,
    chapters: [
      { title: "第一章 春", paragraphs: ["春。"] },
      { title: "第二章 夏", paragraphs: ["夏。"] },
      { title: "第三章 秋", paragraphs: ["秋。"] },
    ],
  });
  await visit(`/works/${id}?chapter=2`);
  await page.getByRole("link", { name: "章节列表" }).click();
  const drawer = page.getByRole("dialog", { name: "目录（共 3 章）" });
  await expect(drawer).toBeVisible();
  const list = drawer.getByRole("navigation", { name: "章节列表" }).getByRole("link");
  await expect(list).toHaveText(["第一章 春", "第二章 夏", "第三章 秋"]);
  await expect(drawer.getByRole("link", { name: "第二章 夏" })).toHaveAttribute("aria-current", "page");
  // The chapter stays behind it.
  await expect(page.getByRole("heading", { level: 1, name: "第二章 夏" })).toBeAttached();
  if (javaScriptEnabled) {
    // A modal: it starts on the current chapter, Tab stays inside, Escape closes it.
    await expect(drawer.getByRole("link", { name: "第二章 夏" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(drawer.getByRole("link", { name: "第三章 秋" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(drawer.getByRole("link", { name: "关闭" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
    await expect(page).toHaveURL(`/works/${id}?chapter=2`);
    await expect(page.getByRole("link", { name: "章节列表" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(drawer).toBeVisible();
  } else {
    await drawer.getByRole("link", { name: "关闭" }).click();
    await expect(drawer).toBeHidden();
    await page.getByRole("link", { name: "章节列表" }).click();
  }
  await drawer.getByRole("link", { name: "第三章 秋" }).click();
  await expect(page).toHaveURL(`/works/${id}?chapter=3`);
  await expect(page.getByRole("heading", { level: 1, name: "第三章 秋" })).toBeVisible();
  await expect(drawer).toBeHidden();
});

test("resuming at paragraph 140, scrolling up loads the paragraphs before it without a jump", async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("upward");
  const id = await publishWork(author, { title: `向上 ${text}`, chapters: [{ title: "第一章", paragraphs: numberedParagraphs(200, text) }] });
  await visit(`/works/${id}?chapter=1&from=140#p-140`);
  const resumed = page.locator("#p-140");
  await expect(resumed).toHaveText(`${text}第141段。`);
  // The batch before arrives at once (the start of the text is at the window's top) and the
  // paragraph being read stays where it was.
  await expect(page.locator("#p-139")).toBeAttached();
  await expect(resumed).toBeInViewport();
  const top = await resumed.evaluate((p) => p.getBoundingClientRect().top);
  expect(Math.abs(top)).toBeLessThan(120);
  // Scrolling up brings the rest, down to the first paragraph.
  await expect(async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(page.locator("#p-0")).toBeAttached({ timeout: 300 });
  }).toPass({ timeout: 15_000 });
  await expect(page.locator("#p-0")).toHaveText(`${text}第1段。`);
  await expect(page.getByText("向上滚动加载前文")).toHaveCount(0);
  // Every paragraph from the first on, once each and in order: the 190 up to the resumed
  // batch's end (and the next batch too, if the page was short enough to ask for it).
  const shown = await chapterParagraphs(page).allTextContents();
  expect(shown.length).toBeGreaterThanOrEqual(190);
  expect(shown).toEqual(shown.map((_, i) => `${text}第${i + 1}段。`));
});

test("two scroll events in one task load the batch before once: every paragraph keeps its id", async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("once");
  const id = await publishWork(author, { title: `一次 ${text}`, chapters: [{ title: "第一章", paragraphs: numberedParagraphs(200, text) }] });
  // Resumed at 100 and read down to 149: the start of the text is far above the window.
  await visit(`/works/${id}?chapter=1&from=100#p-149`);
  await expect(page.locator("#p-149")).toBeInViewport();
  const asked: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/paragraphs?") && request.url().includes("before=")) asked.push(request.url());
  });
  // Back to the top, and two scroll events before the page can re-render between them.
  await page.evaluate(() => {
    window.scrollTo(0, 0);
    window.dispatchEvent(new Event("scroll"));
    window.dispatchEvent(new Event("scroll"));
  });
  await expect(page.locator("#p-50")).toBeAttached();
  await expect(page.locator("#p-100")).toHaveText(`${text}第101段。`);
  await expect(page.locator("#p-50")).toHaveText(`${text}第51段。`);
  expect(asked.filter((url) => url.includes("before=100"))).toHaveLength(1);
  // Whatever else has loaded by now, each paragraph's id names its own text, once each.
  const shown = await chapterParagraphs(page).evaluateAll((ps) => ps.map((p) => [p.id, p.textContent]));
  expect(shown.map(([pid, said]) => `${pid}:${said}`)).toEqual(shown.map(([pid]) => `${pid}:${text}第${Number(pid!.slice(2)) + 1}段。`));
  expect(new Set(shown.map(([pid]) => pid)).size).toBe(shown.length);
});
