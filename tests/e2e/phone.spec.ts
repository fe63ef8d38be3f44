import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { commentAs, marker, newAuthor, publishWork, sameOrigin, type Author } from "./reader-helpers";
import { publishWork as publishStudioWork } from "./studio-helpers";

/**
 * The site on a phone (issue 28, section 5): a 390 px touch screen, with and without
 * JavaScript (the @nojs tests run in both projects). Layout is checked by boxes: what a
 * reader must reach lies inside the viewport, unclipped by an inner scroll box.
 */
const PHONE = { width: 390, height: 844 };
test.use({ viewport: PHONE, hasTouch: true, isMobile: true });

const nojs = { tag: "@nojs" };

/** The element's box, which must exist (the element is rendered). */
async function box(locator: Locator) {
  const b = await locator.boundingBox();
  expect(b, `${locator} has a box`).not.toBeNull();
  return b!;
}

/** The element lies wholly within the phone's width (and, with `height`, its height). */
async function expectWithinViewport(locator: Locator, { height = false } = {}) {
  const b = await box(locator);
  expect(b.x, `${locator} starts inside the screen`).toBeGreaterThanOrEqual(0);
  expect(b.x + b.width, `${locator} ends inside the screen`).toBeLessThanOrEqual(PHONE.width + 0.5);
  if (height) {
    expect(b.y, `${locator} is not above the screen`).toBeGreaterThanOrEqual(0);
    expect(b.y + b.height, `${locator} is above the fold`).toBeLessThanOrEqual(PHONE.height + 0.5);
  }
}

/** The page itself does not scroll sideways. */
async function expectNoSidewaysScroll(page: Page) {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(scroll, "the page is no wider than the screen").toBeLessThanOrEqual(client);
}

/** A volume heading (卷) that starts at the chapter numbered `from`, made in the studio's chapter manager. */
async function addVolume(author: Author, workId: number, from: number, title: string) {
  const html = await (await author.request.get(`/works/${workId}/chapters`)).text();
  const ids = [...html.matchAll(/id="c-(\d+)"/g)].map((m) => m[1]);
  const response = await author.request.post(`/works/${workId}/chapters`, {
    form: { intent: "volume-create", chapterId: ids[from - 1], title, page: "1" },
    headers: sameOrigin(author.baseURL),
    maxRedirects: 0,
  });
  expect(response.status(), `volume ${title}`).toBe(302);
}

test("a reader on a touch screen sees the 段评 + beside each paragraph and starts a 段评 with a tap", nojs, async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("tap");
  const id = await publishWork(author, { title: `触屏 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}第一段。`, `${text}第二段。`] }] });
  await visit(`/works/${id}?chapter=1`);
  // The browser is a phone's: no hover, a coarse pointer.
  expect(await page.evaluate(() => [matchMedia("(hover: none)").matches, matchMedia("(pointer: coarse)").matches])).toEqual([true, true]);
  const add = page.getByRole("link", { name: "为第 2 段写段评" });
  // Nothing to hover on a phone: the way in is shown as it is.
  await expect(add).toBeVisible();
  expect(Number(await add.evaluate((el) => getComputedStyle(el).opacity))).toBe(1);
  await expectWithinViewport(add);
  await add.tap();
  if (javaScriptEnabled) await expect(page.getByRole("dialog", { name: "第 2 段的段评" })).toBeVisible();
  else await expect(page.getByRole("heading", { name: "第 2 段的段评" })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "评论内容" })).toBeVisible();
});

test("a posted 本章说 and a posted reply leave an empty box and say they were posted", nojs, async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("post");
  const id = await publishWork(author, { title: `发表 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}唯一的一段。`] }] });
  await visit(`/works/${id}/comments?chapter=1`);
  const box = page.getByRole("textbox", { name: "评论内容" });
  await box.fill("这一章写得真好");
  await page.getByRole("button", { name: "发表" }).click();
  await expect(page.getByRole("status")).toHaveText("评论已发表。");
  // axe runs in the page: with JavaScript only.
  if (javaScriptEnabled) await expectNoSeriousViolations(page, "the 本章说 page after posting, on a phone");
  await expect(page.getByTestId("comment-list")).toContainText("这一章写得真好");
  await expect(box).toHaveValue("");

  const comment = page.getByTestId("comment").filter({ hasText: "这一章写得真好" });
  await comment.locator("summary", { hasText: "回复" }).click();
  const reply = page.getByRole("textbox", { name: "回复内容" });
  await reply.fill("同感");
  await page.getByRole("button", { name: "回复", exact: true }).click();
  await expect(page.getByRole("status")).toHaveText("回复已发表。");
  await expect(page.getByRole("list", { name: "回复" })).toContainText("同感");
  // The reply box is closed again (and empty when opened).
  await expect(reply).toBeHidden();
  await page.getByTestId("comment").first().locator("summary", { hasText: "回复" }).click();
  await expect(page.getByRole("textbox", { name: "回复内容" })).toHaveValue("");

  // A like after that is not announced as a new post.
  await page.getByTestId("comment").first().getByRole("button", { name: "赞 0" }).click();
  await expect(page.getByTestId("comment").first().getByRole("button", { name: "赞 1" })).toBeVisible();
  await expect(page.getByTestId("posted-notice")).toHaveCount(0);
});

test("the 目录 on a phone: every chapter on the page itself, 最新章节 on top, 倒序 newest first", nojs, async ({ page, visit, playwright, baseURL, javaScriptEnabled }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("toc");
  const chapters = Array.from({ length: 30 }, (_, i) => ({ title: `第${i + 1}章 ${text}`, paragraphs: [`第${i + 1}章的正文。`] }));
  const id = await publishWork(author, { title: `长目录 ${text}`, chapters });
  await addVolume(author, id, 21, "第二卷 远行");

  await visit(`/works/${id}`);
  const toc = page.getByTestId("toc-list");
  // No inner scroll box: the list is as tall as its chapters, and the last one is reached by scrolling the page.
  expect(await toc.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeLessThanOrEqual(1);
  const last = toc.getByRole("link", { name: `第30章 ${text}` });
  await last.scrollIntoViewIfNeeded();
  await expect(last).toBeInViewport();
  await expectWithinViewport(last);
  await expectNoSidewaysScroll(page);

  // 最新章节 near the top leads to the newest chapter.
  const latest = page.getByTestId("toc-latest");
  await expect(latest).toContainText(`最新章节：第30章 ${text}`);
  expect((await box(latest)).y).toBeLessThan((await box(toc)).y);
  await latest.getByRole("link").click();
  await expect(page.getByRole("heading", { name: `第30章 ${text}` })).toBeVisible();

  // 倒序: the newest first, each with its own number and its volume's heading above it.
  await visit(`/works/${id}`);
  await page.getByRole("navigation", { name: "章节排序" }).getByRole("link", { name: "倒序" }).click();
  await expect(page).toHaveURL(/order=desc/);
  await expect(page.getByRole("link", { name: "倒序" })).toHaveAttribute("aria-current", "page");
  const titles = page.getByTestId("toc-list").locator(".toc-title");
  await expect(titles.first()).toHaveText(`第30章 ${text}`);
  await expect(titles.last()).toHaveText(`第1章 ${text}`);
  await expect(titles.first()).toHaveAttribute("href", `/works/${id}?chapter=30`);
  const items = page.getByTestId("toc-list").locator("> li");
  await expect(items.first()).toHaveText("第二卷 远行");
  // axe runs in the page: with JavaScript only.
  if (javaScriptEnabled) await expectNoSeriousViolations(page, "the 目录 in 倒序 on a phone");
  await expect(page.getByRole("link", { name: "开始阅读" })).toHaveAttribute("href", `/works/${id}?chapter=1`);
  await page.getByRole("navigation", { name: "章节排序" }).getByRole("link", { name: "正序" }).click();
  await expect(page.getByTestId("toc-list").locator(".toc-title").first()).toHaveText(`第1章 ${text}`);
});

test("the reader's chapter drawer shows 卷 headings and each chapter's 免费 / VIP mark", nojs, async ({ page, visit, playwright, baseURL, javaScriptEnabled }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("drw");
  const chapters = Array.from({ length: 4 }, (_, i) => ({ title: `第${i + 1}章 ${text}`, paragraphs: [`正文${i + 1}${"字".repeat(600)}`] }));
  const id = await publishWork(author, { title: `抽屉 ${text}`, chapters });
  await addVolume(author, id, 3, "第二卷 付费篇");
  const priced = await author.request.post(`/works/${id}/pricing`, {
    form: { mode: "chapter", vipFrom: "3", pricePerThousand: "20" },
    headers: sameOrigin(baseURL!),
    maxRedirects: 0,
  });
  expect(priced.status()).toBe(302);

  await visit(`/works/${id}?chapter=1&toc=1`);
  const drawer = page.getByRole("dialog", { name: "目录（共 4 章）" });
  await expect(drawer.getByRole("heading", { name: "第二卷 付费篇" })).toBeVisible();
  const entries = drawer.getByRole("navigation", { name: "章节列表" }).locator("li");
  await expect(entries).toHaveText([`第1章 ${text}免费`, `第2章 ${text}免费`, "第二卷 付费篇", `第3章 ${text}VIP`, `第4章 ${text}VIP`]);
  await expect(drawer.locator("[data-mark=free]")).toHaveCount(2);
  await expect(drawer.locator("[data-mark=locked]")).toHaveCount(2);
  await expectWithinViewport(drawer.locator("[data-mark=locked]").last());
  // axe runs in the page: with JavaScript only.
  if (javaScriptEnabled) await expectNoSeriousViolations(page, "the chapter drawer with volumes and marks on a phone");
});

test("cards and the work page keep a cover at 200:275, so the drawn title is whole", async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const title = `雾港纪事 ${marker("fog")}`;
  const id = await publishWork(author, {
    title,
    description: "一段很长的简介，让卡片比封面高。".repeat(12),
    chapters: [{ title: "第一章", paragraphs: ["雾。"] }],
  });
  const ratio = async (locator: Locator) => {
    const b = await box(locator);
    return b.width / b.height;
  };
  for (const width of [PHONE.width, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await visit(`/works?q=${encodeURIComponent(title)}`);
    const cover = page.getByTestId("work-card").filter({ hasText: title }).locator(".work-cover");
    await expect(cover.locator("img")).toBeVisible();
    expect(await ratio(cover), `the card's cover at ${width} px`).toBeCloseTo(200 / 275, 2);
    await visit(`/works/${id}`);
    expect(await ratio(page.locator(".reader-cover")), `the work page's cover at ${width} px`).toBeCloseTo(200 / 275, 2);
  }
});

test("the studio's tab row on a phone shows every tab", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
  const id = await publishStudioWork(page, baseURL!, { title: `标签 ${marker("tabs")}`, type: "series" });
  await visit(`/works/${id}/chapters`);
  const tabs = page.getByRole("navigation", { name: "作品管理" }).getByRole("link");
  await expect(tabs).toHaveCount(10);
  for (const tab of await tabs.all()) await expectWithinViewport(tab);
  await expectNoSidewaysScroll(page);
});

test("in 专注模式 on a phone 字数 and 保存 stay above the fold", nojs, async ({ loggedInPage: page, visit, baseURL, javaScriptEnabled }) => {
  const id = await publishStudioWork(page, baseURL!, { title: `专注 ${marker("focus")}`, type: "series" });
  const html = await (await page.request.get(`/works/${id}/chapters`)).text();
  const chapterId = /id="c-(\d+)"/.exec(html)![1];
  await visit(`/works/${id}/chapters/${chapterId}`);
  await page.getByRole("link", { name: "专注模式" }).or(page.getByRole("button", { name: "专注模式" })).click();
  await expect(page.getByRole("link", { name: "退出专注模式" }).or(page.getByRole("button", { name: "退出专注模式" }))).toBeVisible();
  const text = page.getByRole("textbox", { name: "正文" });
  await expect(text).toBeVisible();
  await expectWithinViewport(page.locator(".editor-words"), { height: true });
  await expectWithinViewport(page.getByRole("button", { name: "保存" }), { height: true });
  // The text still gets most of the screen.
  expect((await box(text)).height).toBeGreaterThan(PHONE.height / 3);
  if (javaScriptEnabled) {
    await text.fill("专注模式里写下的正文");
    await expect(page.locator(".editor-words")).toHaveText("字数：10");
  }
});

test("the report reason is a field styled like the comment box, as wide as it", async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("rep");
  const id = await publishWork(author, { title: `举报 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}一段。`] }] });
  await commentAs(author, id, { chapter: 1 }, { intent: "post", body: "一条本章说" });
  await visit(`/works/${id}/comments?chapter=1`);
  await page.getByTestId("comment").locator("summary", { hasText: "举报" }).click();
  const reason = page.getByRole("textbox", { name: "举报理由" });
  await expect(reason).toBeVisible();
  await expectWithinViewport(reason);
  const look = (locator: Locator) =>
    locator.evaluate((el) => {
      const s = getComputedStyle(el);
      return { border: `${s.borderTopWidth} ${s.borderTopStyle} ${s.borderTopColor}`, radius: s.borderTopLeftRadius, padding: s.paddingLeft, font: s.fontSize };
    });
  const field = await look(reason);
  expect(field).toEqual(await look(page.getByRole("textbox", { name: "评论内容" })));
  expect(field.radius).toBe("8px");
  expect(parseFloat(field.padding)).toBeGreaterThanOrEqual(8);
  // A reason as wide as the comment: it starts under its label, not beside it.
  expect((await box(reason)).width).toBeGreaterThan(PHONE.width / 2);
});

test("退出沉浸 sits above the chapter's card, not on it", async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, { title: `沉浸 ${marker("imm")}`, chapters: [{ title: "第一章", paragraphs: ["一段。"] }] });
  await visit(`/works/${id}?chapter=1`);
  await page.getByRole("button", { name: "沉浸阅读" }).click();
  const exit = page.getByRole("button", { name: "退出沉浸" });
  await expect(exit).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  const button = await box(exit);
  const card = await box(page.locator("article.chapter"));
  expect(button.y + button.height, "退出沉浸 ends above the chapter's card").toBeLessThanOrEqual(card.y);
  await expectWithinViewport(exit);
});

test("a new work is published from a phone: the wizard fits the screen and a typed first chapter goes out", nojs, async ({
  loggedInPage: page,
  visit,
  javaScriptEnabled,
}) => {
  const title = `手机发布 ${marker("phone")}`;
  await visit("/submit");
  await expect(page.getByText("仅支持在电脑上上传作品")).toHaveCount(0);
  await expectNoSidewaysScroll(page);
  /** Opens a step with JavaScript (one at a time); without it every step is on the one form. */
  const open = async (step: string) => {
    if (javaScriptEnabled) await page.getByRole("button", { name: new RegExp(`^\\d\\s*${step}$`) }).tap();
  };
  await page.getByRole("radio", { name: "连载中", exact: true }).tap();
  if (!javaScriptEnabled) await page.getByRole("radio", { name: /^连载\s*连载中的作品/ }).tap();
  await open("作品信息");
  const titleBox = page.getByLabel(/^作品标题/);
  await expectWithinViewport(titleBox);
  await titleBox.fill(title);
  await page.getByLabel(/^作品简介/).fill("在手机上写的连载。");
  await open("封面");
  await expectWithinViewport(page.locator(".cover-preview"));
  await open("正文");
  const chapterTitle = page.getByRole("textbox", { name: "章节标题", exact: true });
  await expectWithinViewport(chapterTitle);
  await chapterTitle.fill("第一章 在路上");
  await page.getByLabel(/^章节内容/).fill("地铁上写下的第一章。");
  await expectNoSidewaysScroll(page);
  const publish = page.getByRole("button", { name: "发布作品" });
  await expectWithinViewport(publish);
  await publish.tap();
  await expect(page).toHaveURL(/\/my-works\?tab=free$/);
  await expect(page.getByTestId("work-card").filter({ hasText: title })).toContainText("连载中");
});

test("a 存稿 in 专注模式 on a phone: 保存 above the fold, its release choices after it", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
  const id = await publishStudioWork(page, baseURL!, { title: `存稿 ${marker("draft")}`, type: "series" });
  await visit(`/works/${id}/chapters/new`);
  await page.getByLabel("章节标题").fill("第二章 存稿");
  await page.getByLabel("章节内容").fill("还没写完的第二章。");
  await page.getByRole("radio", { name: "存稿（读者不可见）" }).check();
  await page.getByRole("button", { name: "保存" }).click();
  // The manager, at the saved chapter (…/chapters/new would match a looser pattern at once).
  await expect(page).toHaveURL(new RegExp(`/works/${id}/chapters\\?chapter=\\d+`));
  const draftId = new URL(page.url()).searchParams.get("chapter")!;
  await visit(`/works/${id}/chapters/${draftId}?focus=1`);
  await expect(page.getByRole("heading", { name: "编辑存稿" })).toBeVisible();
  const save = page.getByRole("button", { name: "保存" });
  await expectWithinViewport(page.locator(".editor-words"), { height: true });
  await expectWithinViewport(save, { height: true });
  const release = page.getByRole("group", { name: "发布方式" });
  expect((await box(release)).y, "the release choices come after 保存").toBeGreaterThan((await box(save)).y);
});
