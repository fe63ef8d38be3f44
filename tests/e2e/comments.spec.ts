import type { Page } from "@playwright/test";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { expect, test, waitForLive } from "./fixtures";
import { commentAs, marker, newAuthor, publishWork } from "./reader-helpers";

const nojs = { tag: "@nojs" };

test("a reader writes a 段评 on a paragraph, replies, likes; the count bubble shows beside it and 本章说 at the end", nojs, async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("cmt");
  const id = await publishWork(author, {
    title: `段评 ${text}`,
    chapters: [{ title: "第一章", paragraphs: [`${text}开头。`, `${text}第二段，掌柜的抬起头。`, `${text}结尾。`] }],
  });

  await visit(`/works/${id}?chapter=1`);
  await expect(page.getByTestId("comment-bubble")).toHaveCount(0);
  await expect(page.getByTestId("chapter-comments")).toContainText("还没有人评论");
  await page.getByRole("link", { name: "为第 2 段写段评" }).click();

  await expect(page.getByRole("heading", { name: "第 2 段的段评" })).toBeVisible();
  await expect(page.getByTestId("quoted-paragraph")).toHaveText(`${text}第二段，掌柜的抬起头。`);
  await page.getByRole("textbox", { name: "评论内容" }).fill("掌柜的认出了<b>玉佩</b>");
  await page.getByRole("button", { name: "发表" }).click();
  const comment = page.getByTestId("comment").first();
  // Plain text: the markup is shown as typed, never rendered.
  await expect(comment.locator(".comment-body")).toHaveText("掌柜的认出了<b>玉佩</b>");

  await comment.getByRole("button", { name: "赞 0" }).click();
  await expect(page.getByTestId("comment").first().getByRole("button", { name: "赞 1" })).toHaveAttribute("aria-pressed", "true");

  await page.getByTestId("comment").first().locator("summary", { hasText: "回复" }).click();
  await page.getByRole("textbox", { name: "回复内容" }).fill("我也这么觉得");
  await page.getByRole("button", { name: "回复", exact: true }).click();
  await expect(page.getByRole("list", { name: "回复" })).toContainText("我也这么觉得");

  await visit(`/works/${id}?chapter=1`);
  const bubble = page.getByRole("link", { name: "第 2 段的段评：1 条" });
  await expect(bubble).toBeVisible();
  await expect(page.locator("#p-1")).toHaveText(`${text}第二段，掌柜的抬起头。`);

  await page.getByTestId("chapter-comments").getByRole("link", { name: /本章说/ }).click();
  await expect(page.getByRole("heading", { name: "本章说" })).toBeVisible();
  await page.getByRole("textbox", { name: "评论内容" }).fill("这一章节奏很好");
  await page.getByRole("button", { name: "发表" }).click();
  await expect(page.getByTestId("comment-list")).toContainText("这一章节奏很好");
  await visit(`/works/${id}?chapter=1`);
  await expect(page.getByTestId("chapter-comments").getByRole("link")).toHaveText("本章说（1）");
});

test("an empty comment is refused with a message; a visitor reads comments and is asked to sign in to write", nojs, async ({
  loggedInPage: page,
  visit,
  browser,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("cmt");
  const id = await publishWork(author, { title: `评论 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}唯一的一段。`] }] });

  await visit(`/works/${id}/comments?chapter=1&p=0`);
  // Bypass the browser's own required check to reach the server's answer.
  await page.locator("#comment-body").evaluate((el) => el.removeAttribute("required")).catch(() => {});
  await page.getByRole("textbox", { name: "评论内容" }).fill("   ");
  if (javaScriptEnabled) {
    await page.getByRole("button", { name: "发表" }).click();
    await expect(page.getByRole("alert")).toHaveText("评论内容不能为空");
  }
  await page.getByRole("textbox", { name: "评论内容" }).fill("第一条段评");
  await page.getByRole("button", { name: "发表" }).click();
  await expect(page.getByTestId("comment")).toHaveCount(1);

  const visitor = await browser.newContext({ baseURL, javaScriptEnabled });
  const anon = await visitor.newPage();
  await anon.goto(`/works/${id}/comments?chapter=1&p=0`);
  await expect(anon.getByTestId("comment")).toContainText("第一条段评");
  await expect(anon.getByRole("main").getByRole("link", { name: "登录" })).toBeVisible();
  await expect(anon.getByRole("textbox", { name: "评论内容" })).toHaveCount(0);
  await visitor.close();
});

test("a long 本章说 thread goes by numbered pages of 20", nojs, async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("pages");
  const id = await publishWork(author, { title: `分页 ${text}`, chapters: [{ title: "第一章", paragraphs: ["一段话。"] }] });
  // 21 comments, one after another, by three readers (each under the 10-a-minute limit).
  const readers = [author, await newAuthor(playwright, baseURL!), await newAuthor(playwright, baseURL!)];
  for (let i = 1; i <= 21; i++) await commentAs(readers[i % 3], id, { chapter: 1 }, { intent: "post", body: `第${i}条评论` });

  await visit(`/works/${id}/comments?chapter=1&sort=new`);
  await expect(page.getByTestId("comment")).toHaveCount(20);
  await expect(page.getByTestId("comment").first()).toContainText("第21条评论");
  const pager = page.getByRole("navigation", { name: "评论分页" });
  await expect(pager.getByText("1", { exact: true })).toHaveAttribute("aria-current", "page");
  await pager.getByRole("link", { name: "2", exact: true }).click();
  await expect(page).toHaveURL(/[?&]page=2(&|$)/);
  await expect(page.getByTestId("comment")).toHaveCount(1);
  await expect(page.getByTestId("comment")).toContainText("第1条评论");
  await expect(pager.getByRole("link", { name: "上一页" })).toBeVisible();
});

test("the thread page fits a 390 px phone", nojs, async ({ loggedInPage: page, visit, playwright, baseURL }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("cmt");
  const long = `${text}${"很长的一段话没有标点".repeat(30)}`;
  const id = await publishWork(author, { title: `手机 ${text}`, chapters: [{ title: "第一章", paragraphs: [long] }] });
  await visit(`/works/${id}/comments?chapter=1&p=0`);
  await page.getByRole("textbox", { name: "评论内容" }).fill("a".repeat(300));
  await page.getByRole("button", { name: "发表" }).click();
  await expect(page.getByTestId("comment")).toHaveCount(1);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await visit(`/works/${id}?chapter=1`);
  await expect(page.getByRole("link", { name: "第 1 段的段评：1 条" })).toBeVisible();
});

test("the same box posts a second comment and a second reply after the first (each load gives the forms new one-time tokens)", nojs, async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("again");
  const id = await publishWork(author, { title: `连发 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}唯一的一段。`] }] });
  await visit(`/works/${id}/comments?chapter=1`);
  for (const body of ["第一条本章说", "第二条本章说"]) {
    await page.getByRole("textbox", { name: "评论内容" }).fill(body);
    await page.getByRole("button", { name: "发表" }).click();
    await expect(page.getByTestId("comment-list")).toContainText(body);
  }
  await expect(page.getByTestId("comment")).toHaveCount(2);
  const first = page.getByTestId("comment-list").locator("> li").filter({ hasText: "第一条本章说" });
  for (const body of ["第一条回复", "第二条回复"]) {
    await first.locator("summary", { hasText: "回复" }).first().click();
    await first.getByRole("textbox", { name: "回复内容" }).fill(body);
    await first.getByRole("button", { name: "回复", exact: true }).click();
    await expect(first.getByRole("list", { name: "回复" })).toContainText(body);
  }
  await expect(first.getByRole("list", { name: "回复" }).getByTestId("comment")).toHaveCount(2);
});

test("the dialog's box posts a second 段评 after the first, and both show", async ({ loggedInPage: page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("again");
  const id = await publishWork(author, { title: `对话框连发 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}唯一的一段。`] }] });
  await visit(`/works/${id}?chapter=1`);
  await page.getByRole("link", { name: "为第 1 段写段评" }).click();
  const dialog = page.getByRole("dialog", { name: "第 1 段的段评" });
  const box = dialog.getByRole("textbox", { name: "评论内容" });
  for (const body of ["对话框第一条", "对话框第二条"]) {
    await box.fill(body);
    await dialog.getByRole("button", { name: "发表" }).click();
    await expect(dialog.getByTestId("comment-list")).toContainText(body);
    await expect(box).toHaveValue("");
  }
  await expect(dialog.getByTestId("comment")).toHaveCount(2);
  const first = dialog.getByTestId("comment-list").locator("> li").filter({ hasText: "对话框第一条" });
  for (const body of ["对话框回复一", "对话框回复二"]) {
    if (!(await first.locator("details.comment-more").first().evaluate((d) => (d as HTMLDetailsElement).open))) await first.locator("summary", { hasText: "回复" }).first().click();
    await first.getByRole("textbox", { name: "回复内容" }).fill(body);
    await first.getByRole("button", { name: "回复", exact: true }).click();
    await expect(first.getByRole("list", { name: "回复" })).toContainText(body);
  }
  await expect(first.getByRole("list", { name: "回复" }).getByTestId("comment")).toHaveCount(2);
});

/** Whether the focused element is inside the open dialog. */
function focusInDialog(page: Page): Promise<boolean> {
  return page.evaluate(() => Boolean(document.activeElement?.closest("dialog[open]")));
}

test("a paragraph's thread opens in a dialog: quoted, post and reply inside, keyboard trapped, Escape closes and focus returns", async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("dlg");
  const id = await publishWork(author, {
    title: `对话框 ${text}`,
    chapters: [{ title: "第一章", paragraphs: [`${text}开头。`, `${text}第二段，灯花爆了一下。`, `${text}结尾。`] }],
  });
  await visit(`/works/${id}?chapter=1`);
  const opener = page.getByRole("link", { name: "为第 2 段写段评" });
  await opener.focus();
  await page.keyboard.press("Enter");

  const dialog = page.getByRole("dialog", { name: "第 2 段的段评" });
  await expect(dialog).toBeVisible();
  await expect(page).toHaveURL(/[?&]thread=1/);
  await expect(dialog.getByTestId("quoted-paragraph")).toHaveText(`${text}第二段，灯花爆了一下。`);
  const box = dialog.getByRole("textbox", { name: "评论内容" });
  await expect(box).toBeFocused();
  await box.fill("灯花是好兆头");
  await dialog.getByRole("button", { name: "发表" }).click();
  await expect(dialog.getByTestId("comment")).toContainText("灯花是好兆头");
  await expect(box).toHaveValue("");

  await dialog.locator("summary", { hasText: "回复" }).click();
  await dialog.getByRole("textbox", { name: "回复内容" }).fill("楼中楼");
  await dialog.getByRole("button", { name: "回复", exact: true }).click();
  await expect(dialog.getByRole("list", { name: "回复" })).toContainText("楼中楼");
  await expectNoSeriousViolations(page, "the thread dialog");

  for (let i = 0; i < 14; i++) {
    await page.keyboard.press("Tab");
    expect(await focusInDialog(page), `Tab #${i + 1} left the dialog`).toBe(true);
  }
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(page).not.toHaveURL(/thread=/);
  // The bubble that opened it has focus again, now with its count; the chapter is still there.
  await expect(page.getByRole("link", { name: "第 2 段的段评：1 条" })).toBeFocused();
  await expect(page.locator("#p-0")).toContainText(`${text}开头。`);
});

test("a reader's open chapter and thread show new 段评 without reload, and drop one the author hides", async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("live");
  const id = await publishWork(author, { title: `实时 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}第一段。`, `${text}第二段。`] }] });
  await visit(`/works/${id}?chapter=1`);
  // The page's live stream has subscribed (its `ready` event came).
  await waitForLive(page);

  // Someone else (here the author, through the site's own form) writes on paragraph 1.
  const first = await commentAs(author, id, { chapter: 1, p: 0 }, { intent: "post", body: "第一条实时段评" });
  await expect(page.getByRole("link", { name: "第 1 段的段评：1 条" })).toBeVisible();

  await page.getByRole("link", { name: "第 1 段的段评：1 条" }).click();
  const dialog = page.getByRole("dialog", { name: "第 1 段的段评" });
  await expect(dialog.getByTestId("comment")).toHaveCount(1);
  await commentAs(author, id, { chapter: 1, p: 0 }, { intent: "post", body: "第二条实时段评" });
  await expect(dialog.getByTestId("comment")).toHaveCount(2);
  await commentAs(author, id, { chapter: 1, p: 0 }, { intent: "hide", comment: String(first), on: "1" });
  await expect(dialog.getByTestId("comment")).toHaveCount(1);
  await expect(dialog.getByTestId("comment")).toContainText("第二条实时段评");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("link", { name: "第 1 段的段评：1 条" })).toBeVisible();
  await commentAs(author, id, { chapter: 1 }, { intent: "post", body: "一条本章说" });
  await expect(page.getByTestId("chapter-comments").getByRole("link")).toHaveText("本章说（1）");

  // The 本章说 page follows too (the same chapter: the stream stays open).
  await page.getByTestId("chapter-comments").getByRole("link").click();
  await expect(page.getByTestId("comment-list")).toContainText("一条本章说");
  await commentAs(author, id, { chapter: 1 }, { intent: "post", body: "又一条本章说" });
  await expect(page.getByTestId("comment-list")).toContainText("又一条本章说");
});

test("the author lifts a mute from the work's muted list", nojs, async ({ loggedInPage: page, visit, browser, playwright, baseURL, logInAs, javaScriptEnabled }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("mute");
  const id = await publishWork(author, { title: `禁言 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}唯一的一段。`] }] });
  await visit(`/works/${id}/comments?chapter=1`);
  await page.getByRole("textbox", { name: "评论内容" }).fill("加群看全文");
  await page.getByRole("button", { name: "发表" }).click();
  const comment = Number((await page.getByTestId("comment").first().getAttribute("id"))!.slice(2));
  await commentAs(author, id, { chapter: 1 }, { intent: "mute", comment: String(comment), on: "1" });

  const context = await browser.newContext({ baseURL, javaScriptEnabled });
  await logInAs(context, author.credentials);
  const studio = await context.newPage();
  await visit(`/works/${id}/comment-mutes`, studio);
  const list = studio.getByTestId("muted-users");
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await list.getByRole("button", { name: /^解除对 .+ 的禁言$/ }).click();
  await expect(studio.getByRole("status")).toHaveText("已解除禁言");
  await expect(studio.getByTestId("muted-empty")).toBeVisible();
  await context.close();

  await page.getByRole("textbox", { name: "评论内容" }).fill("我又能说话了");
  await page.getByRole("button", { name: "发表" }).click();
  await expect(page.getByTestId("comment-list")).toContainText("我又能说话了");
});
