import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { fakeSpeechEngine, finishUtterance } from "./fake-speech";
import { marker, newAuthor, publishWork, type Author } from "./reader-helpers";

/**
 * Reading like an app (docs/decisions/242), on a 390 px touch screen: tap zones, swipes
 * between chapters, 翻页 and 屏幕常亮. Taps are the browser's own (`touchscreen.tap`); a swipe
 * is a touchstart / touchend pair dispatched on the text, as a finger sends them.
 */
test.use({ hasTouch: true, viewport: { width: 390, height: 740 } });

/** A long first chapter (60 paragraphs: 50 come with the page, 10 load later) and two short ones. */
async function longWork(author: Author, text: string) {
  const line = "山高水长，风起云涌，行者踏过千里黄沙，只为寻一卷旧经。";
  return publishWork(author, {
    title: `手势 ${text}`,
    chapters: [
      { title: "第一章", paragraphs: Array.from({ length: 60 }, (_, i) => `${text}第${i + 1}段。${line}`) },
      { title: "第二章", paragraphs: [`${text}乙一。`, `${text}乙二。`] },
      { title: "第三章", paragraphs: [`${text}丙一。`] },
    ],
  });
}

/** A horizontal swipe across the chapter's text, `dx` px (negative: to the left). */
async function swipe(page: Page, dx: number, dy = 0) {
  await page.getByTestId("chapter-text").evaluate(
    (element, [dx, dy]) => {
      const at = (x: number, y: number) => new Touch({ identifier: 1, target: element, clientX: x, clientY: y });
      const start = at(200, 400);
      const end = at(200 + dx, 400 + dy);
      element.dispatchEvent(new TouchEvent("touchstart", { bubbles: true, touches: [start], changedTouches: [start] }));
      element.dispatchEvent(new TouchEvent("touchmove", { bubbles: true, touches: [end], changedTouches: [end] }));
      element.dispatchEvent(new TouchEvent("touchend", { bubbles: true, touches: [], changedTouches: [end] }));
    },
    [dx, dy],
  );
}

const scrollY = (page: Page) => page.evaluate(() => Math.round(window.scrollY));

function consoleErrors(page: Page) {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

test("a first tap on a chapter, before its scripts have come, starts them and still turns the screen (decision 264)", async ({ page, playwright, baseURL }) => {
  const errors = consoleErrors(page);
  const author = await newAuthor(playwright, baseURL!);
  const id = await longWork(author, marker("first"));
  await page.goto(`/works/${id}?chapter=1`);
  // Loaded without a script: the page waits for the reader.
  const html = page.locator("html");
  await expect(html).toHaveAttribute("data-scripts", "at-first-touch");
  await expect(html).not.toHaveAttribute("data-hydrated", "true");
  expect(await scrollY(page)).toBe(0);
  // The right third, before hydration: the scripts start, and once up the tap is carried out.
  await page.touchscreen.tap(350, 450);
  await expect(html).toHaveAttribute("data-hydrated", "true");
  await expect.poll(() => scrollY(page)).toBeGreaterThan(500);
  await expect(page.getByRole("button", { name: "听书", exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});

test("tap zones turn the screen, the middle shows the bars, swipes open chapters", async ({ loggedInPage: page, visit, playwright, baseURL }) => {
  const errors = consoleErrors(page);
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("tap");
  const id = await longWork(author, text);
  await visit(`/works/${id}?chapter=1`);

  // Right third: a screen down; left third: back up.
  expect(await scrollY(page)).toBe(0);
  await page.touchscreen.tap(350, 450);
  await expect.poll(() => scrollY(page)).toBeGreaterThan(500);
  const down = await scrollY(page);
  await page.touchscreen.tap(40, 450);
  await expect.poll(() => scrollY(page)).toBeLessThan(down - 500);

  // The middle: the site's bars step aside (沉浸阅读), and come back.
  const html = page.locator("html");
  await page.touchscreen.tap(195, 450);
  await expect(html).toHaveAttribute("data-immersive", "true");
  await expect(page.getByRole("button", { name: "退出沉浸" })).toBeVisible();
  await page.touchscreen.tap(195, 450);
  await expect(html).not.toHaveAttribute("data-immersive");

  // A tap that ends a text selection turns nothing; nor does a tap on a button.
  await page.touchscreen.tap(350, 450);
  await expect.poll(() => scrollY(page)).toBeGreaterThan(down - 100);
  const here = await scrollY(page);
  await page.evaluate(() => {
    const range = document.createRange();
    range.selectNodeContents(document.getElementById("p-5")!);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  });
  await page.touchscreen.tap(350, 450);
  expect(await scrollY(page)).toBe(here);
  const theme = page.getByRole("button", { name: "☾ 夜间模式" });
  await theme.scrollIntoViewIfNeeded();
  const before = await scrollY(page);
  const box = (await theme.boundingBox())!;
  await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
  await expect(html).toHaveAttribute("data-theme", "dark");
  expect(await scrollY(page)).toBe(before);
  // A 段评 mark opens its thread and turns nothing.
  const mark = page.getByRole("link", { name: "为第 4 段写段评", exact: true });
  await mark.scrollIntoViewIfNeeded();
  const atMark = await scrollY(page);
  const markBox = (await mark.boundingBox())!;
  await page.touchscreen.tap(markBox.x + markBox.width / 2, markBox.y + markBox.height / 2);
  await expect(page).toHaveURL(/thread=3/);
  await expect(page.getByRole("dialog")).toBeVisible();
  expect(await scrollY(page)).toBe(atMark);
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.evaluate((y) => window.scrollTo(0, y), here);
  expect(await scrollY(page)).toBe(here);

  // The chapter's end (the last 10 paragraphs loaded as it came near): a right tap opens 第二章.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect(page.locator("#p-59")).toBeAttached();
  await page.locator(".chapter-nav").evaluate((nav) => nav.scrollIntoView({ block: "end" }));
  const last = (await page.locator("#p-59").boundingBox())!;
  await page.touchscreen.tap(350, last.y + last.height / 2);
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  await expect(page.getByRole("heading", { name: "第二章" })).toBeFocused();

  // (A chapter opened inside the site focuses its title once its scripts have run.)
  // At the top a left tap opens the chapter before.
  await page.touchscreen.tap(40, 300);
  await expect(page).toHaveURL(`/works/${id}?chapter=1`);
  await expect(page.getByRole("heading", { name: "第一章" })).toBeFocused();

  // Swipes: left to the next chapter, right to the one before; a mostly vertical drag is scrolling.
  await swipe(page, -150, 40);
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  await expect(page.getByRole("heading", { name: "第二章" })).toBeFocused();
  await swipe(page, -150);
  await expect(page).toHaveURL(`/works/${id}?chapter=3`);
  await swipe(page, 80, -200);
  await swipe(page, 30);
  await expect(page.getByRole("heading", { name: "第三章" })).toBeFocused();
  await swipe(page, 150);
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  expect(errors).toEqual([]);
});

test("翻页 lays the chapter out in pages turned by taps, swipes and keys, and is kept with the account", async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const errors = consoleErrors(page);
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("page");
  const id = await longWork(author, text);
  await page.addInitScript(fakeSpeechEngine);
  await visit(`/works/${id}?chapter=1`);

  await page.getByText("阅读设置", { exact: true }).click();
  const panel = page.getByRole("form", { name: "阅读设置" });
  await panel.getByRole("group", { name: "翻页方式" }).getByLabel("翻页").check();
  await expect(panel.getByRole("status")).toHaveText("阅读设置已保存");
  await page.getByText("阅读设置", { exact: true }).click();

  const indicator = page.getByTestId("page-indicator");
  await expect(indicator).toHaveText(/^1 \/ \d+$/);
  const pages = Number((await indicator.textContent())!.split("/")[1]);
  expect(pages).toBeGreaterThan(3);
  // One screen: the text box ends inside the window and nothing scrolls below the first page's text.
  const textBox = page.getByTestId("chapter-text");
  expect((await textBox.boundingBox())!.y + (await textBox.boundingBox())!.height).toBeLessThanOrEqual(740);
  await expect(page.locator("#p-0")).toBeInViewport();
  await expectNoSeriousViolations(page, "the reader in 翻页");

  // A right tap, a left swipe and PageDown each turn a page forward; the left tap back.
  const saved = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith(`/works/${id}/progress`) && Number(new URLSearchParams(r.postData() ?? "").get("paragraph")) > 0);
  await page.touchscreen.tap(350, 450);
  await expect(indicator).toHaveText(`2 / ${pages}`);
  await expect(page.locator("#p-0")).not.toBeInViewport();
  await swipe(page, -150);
  await expect(indicator).toHaveText(`3 / ${pages}`);
  await page.keyboard.press("PageDown");
  await expect(indicator).toHaveText(`4 / ${pages}`);
  await page.touchscreen.tap(40, 450);
  await expect(indicator).toHaveText(`3 / ${pages}`);
  await swipe(page, 150);
  await expect(indicator).toHaveText(`2 / ${pages}`);
  // The place is saved from the page shown, as scrolling saves it.
  await saved;

  // Kept with the account: a reload lays it out in pages again.
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-reader-layout", "paged");
  await expect(indicator).toHaveText(/^\d+ \/ \d+$/);
  await page.evaluate(() => window.scrollTo(0, 0));

  // 听书 in 翻页: the paragraph being read is followed from page to page.
  const shownFirst = await indicator.textContent();
  await page.getByRole("button", { name: "听书", exact: true }).click();
  const bar = page.getByRole("region", { name: "听书" });
  await bar.getByRole("button", { name: "播放", exact: true }).click();
  const reading = page.locator(".listen-current");
  for (let i = 0; i < 8; i++) {
    const was = await reading.getAttribute("id");
    expect(await finishUtterance(page)).toBe(true);
    await expect(reading).not.toHaveAttribute("id", was!);
  }
  await expect(indicator).not.toHaveText(shownFirst!);
  const readingShown = await reading.evaluate((p) => {
    const box = p.parentElement!.getBoundingClientRect();
    const first = p.getClientRects()[0];
    return first.left >= box.left - 1 && first.right <= box.right + 1;
  });
  expect(readingShown).toBe(true);
  await bar.getByRole("button", { name: "停止", exact: true }).click();

  // To the last page: the last 10 paragraphs load on the way, then a right tap opens 第二章.
  // Turned until the chapter's last words are on the page shown (not until the indicator
  // reads n / n: when the last batch arrives, its total is counted again a moment later).
  const lastWordsShown = () =>
    page.evaluate(() => {
      const p = document.getElementById("p-59");
      const end = p ? Array.from(p.getClientRects()).at(-1) : undefined;
      if (!p || !end) return false;
      const box = p.parentElement!.getBoundingClientRect();
      return end.left >= box.left - 1 && end.right <= box.right + 1;
    });
  for (let i = 0; i < 60 && !(await lastWordsShown()); i++) {
    const shown = await indicator.textContent();
    await page.touchscreen.tap(350, 450);
    await expect(indicator).not.toHaveText(shown!);
  }
  expect(await lastWordsShown()).toBe(true);
  await page.touchscreen.tap(350, 450);
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  await expect(indicator).toHaveText("1 / 1");
  await page.touchscreen.tap(40, 450);
  await expect(page).toHaveURL(`/works/${id}?chapter=1`);
  expect(errors).toEqual([]);
});

/**
 * A stand-in for the browser's Wake Lock API (headless Chromium refuses real locks) that
 * records each request and release, and a switch for the page's visibility, as a phone's
 * screen going off or the reader changing apps sets it.
 */
function fakeWakeLock() {
  const log: string[] = [];
  let hidden = false;
  const wakeLock = {
    request(type: string) {
      log.push(`request ${type}`);
      const listeners: (() => void)[] = [];
      const sentinel = {
        released: false,
        type,
        release() {
          if (!sentinel.released) {
            sentinel.released = true;
            log.push("release");
            for (const listener of listeners) listener();
          }
          return Promise.resolve();
        },
        addEventListener(_name: string, listener: () => void) {
          listeners.push(listener);
        },
        removeEventListener() {},
      };
      return Promise.resolve(sentinel);
    },
  };
  Object.defineProperty(Navigator.prototype, "wakeLock", { get: () => wakeLock, configurable: true });
  Object.defineProperty(Document.prototype, "visibilityState", { get: () => (hidden ? "hidden" : "visible"), configurable: true });
  Object.defineProperty(Document.prototype, "hidden", { get: () => hidden, configurable: true });
  Object.defineProperty(window, "__wake", {
    value: {
      log,
      setHidden(value: boolean) {
        hidden = value;
        document.dispatchEvent(new Event("visibilitychange"));
      },
    },
  });
}

test("屏幕常亮 keeps the screen awake while the chapter is shown, and can be turned off", async ({ page, visit, browser, baseURL, playwright }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("awake");
  const id = await publishWork(author, { title: `常亮 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}一。`] }] });
  await page.addInitScript(fakeWakeLock);
  const log = () => page.evaluate(() => (window as unknown as { __wake: { log: string[] } }).__wake.log);
  const setHidden = (hidden: boolean) => page.evaluate((h) => (window as unknown as { __wake: { setHidden(h: boolean): void } }).__wake.setHidden(h), hidden);

  await visit(`/works/${id}?chapter=1`);
  await expect.poll(log).toEqual(["request screen"]);
  // Hidden: released; shown again: asked for again.
  await setHidden(true);
  await expect.poll(log).toEqual(["request screen", "release"]);
  await setHidden(false);
  await expect.poll(log).toEqual(["request screen", "release", "request screen"]);

  // 关: released at once, and not asked for on the next visit (a visitor's cookie).
  await page.getByText("阅读设置", { exact: true }).click();
  const panel = page.getByRole("form", { name: "阅读设置" });
  await expect(panel.getByRole("group", { name: "屏幕常亮" })).not.toContainText("此浏览器不支持");
  await panel.getByRole("group", { name: "屏幕常亮" }).getByLabel("关").check();
  await expect(panel.getByRole("status")).toHaveText("阅读设置已保存");
  await expect.poll(log).toEqual(["request screen", "release", "request screen", "release"]);
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-reader-awake", "off");
  await expect(page.getByRole("heading", { name: "第一章" })).toBeVisible();
  expect(await log()).toEqual([]);

  // A browser without the API: the chapter reads as usual and the setting says so.
  const context = await browser.newContext({ baseURL, hasTouch: true, viewport: { width: 390, height: 740 } });
  try {
    const other = await context.newPage();
    await other.addInitScript(() => {
      delete (Navigator.prototype as unknown as Record<string, unknown>).wakeLock;
    });
    await visit(`/works/${id}?chapter=1`, other);
    await other.getByText("阅读设置", { exact: true }).click();
    await expect(other.getByRole("form", { name: "阅读设置" }).getByRole("group", { name: "屏幕常亮" })).toContainText("此浏览器不支持");
  } finally {
    await context.close();
  }
});

test("翻页 is saved by the plain settings form; without JavaScript the chapter still scrolls", { tag: "@nojs" }, async ({
  loggedInPage: page,
  visit,
  javaScriptEnabled,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("nojs");
  const id = await longWork(author, text);
  await visit(`/works/${id}?chapter=1`);
  await page.getByText("阅读设置", { exact: true }).click();
  const panel = page.getByRole("form", { name: "阅读设置" });
  await panel.getByRole("group", { name: "翻页方式" }).getByLabel("翻页").check();
  if (javaScriptEnabled) {
    await expect(panel.getByRole("status")).toHaveText("阅读设置已保存");
    await page.reload();
    await expect(page.getByTestId("chapter-text")).toHaveAttribute("data-paged", "true");
    return;
  }
  await panel.getByRole("button", { name: "保存" }).click();
  await expect(page).toHaveURL(`/works/${id}?chapter=1`);
  await expect(page.getByRole("status").filter({ hasText: "阅读设置已保存" })).toBeVisible();
  await expect(page.locator("html")).toHaveAttribute("data-reader-layout", "paged");
  // No script lays out pages: the text is as long as it is, and the window scrolls to its end.
  const textBox = page.getByTestId("chapter-text");
  await expect(textBox).not.toHaveAttribute("data-paged");
  expect((await textBox.boundingBox())!.height).toBeGreaterThan(3 * 740);
  await page.locator("#p-49").scrollIntoViewIfNeeded();
  await expect(page.locator("#p-49")).toBeInViewport();
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(2 * 740);
});
