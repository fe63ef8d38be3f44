import { expect, test } from "./fixtures";
import { marker, newAuthor, publishWork, sameOrigin } from "./reader-helpers";

const nojs = { tag: "@nojs" };

/**
 * 阅读记录, 屏蔽 and 错别字 (decisions 233, 234) in a browser, with and without JavaScript: a
 * reader opens a chapter, reports a typo in it (the author's inbox has the sentence), finds
 * the work in 阅读记录 and removes it, blocks the author from the work's page (the work
 * leaves the search) and unblocks them in 设置 → 屏蔽. The rules are in
 * tests/integration/reading-history.test.ts, blocking.test.ts and typo-reports.test.ts.
 */
test("history, a typo report and a block, round trip", nojs, async ({ loggedInPage: page, visit, playwright, baseURL, javaScriptEnabled }) => {
  const author = await newAuthor(playwright, baseURL!);
  const title = marker("history");
  const sentence = `这是一句有错字的话${marker("s")}`;
  const id = await publishWork(author, { title, chapters: [{ title: "第一章", paragraphs: [sentence, "第二段。"] }, { title: "第二章", paragraphs: ["三"] }] });

  // Opening a chapter puts the work in 阅读记录.
  await visit(`/works/${id}?chapter=1`);
  await expect(page.getByText(sentence)).toBeVisible();

  // 报错: the form under the chapter, the sentence selected (with JavaScript) or pasted.
  const field = page.getByLabel("有错别字的句子（从正文中选中或复制）");
  if (javaScriptEnabled) {
    await page.getByText(sentence).selectText();
    await page.getByRole("button", { name: "报告选中的错别字", exact: true }).click();
    await expect(field).toHaveValue(sentence);
  } else {
    await page.locator(".typo-report summary").click();
    await field.fill(sentence);
  }
  await page.getByLabel("建议改为（可不填）").fill("改好的话");
  await page.getByRole("button", { name: "发送给作者", exact: true }).click();
  await expect(page.getByText("已把错别字告诉作者，谢谢指正")).toBeVisible();
  const inbox = await (await author.request.get("/notifications")).text();
  expect(inbox).toContain(`「${sentence}」 建议改为「改好的话」`);

  await visit("/history");
  const entry = page.getByTestId("history-entry").filter({ hasText: title });
  await expect(entry).toContainText("读到第 1 章 · 第一章");
  await expect(entry.locator("time")).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  await entry.getByRole("button", { name: `从阅读记录中删除《${title}》`, exact: true }).click();
  await expect(page.getByText("已从阅读记录中删除")).toBeVisible();
  await expect(page.getByTestId("history-entry").filter({ hasText: title })).toHaveCount(0);

  // 屏蔽 the author from the work's page: the work leaves the search.
  await visit(`/works/${id}`);
  await page.locator(".block-menu summary").click();
  await page.getByRole("button", { name: /^屏蔽作者 / }).click();
  await expect(page.getByText(/已屏蔽作者“.+”/)).toBeVisible();
  await visit(`/works?q=${title}&page=1`);
  await expect(page.getByRole("link", { name: title })).toHaveCount(0);

  await visit("/settings/blocks");
  await page.getByTestId("blocked-authors").getByRole("button", { name: "取消屏蔽" }).click();
  await expect(page.getByText("已取消屏蔽")).toBeVisible();
  await visit(`/works?q=${title}&page=1`);
  await expect(page.getByText(title).first()).toBeVisible();
});

test.describe("on a 390 px phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("阅读记录, 屏蔽, 报错 and 分享 fit the screen", nojs, async ({ loggedInPage: page, visit, playwright, baseURL }) => {
    const author = await newAuthor(playwright, baseURL!);
    const title = `很长的书名用来试手机宽度${marker("phone")}`;
    const id = await publishWork(author, { title, chapters: [{ title: "第一章有一个相当长的标题", paragraphs: ["一段。"] }] });
    const noSideways = async () => {
      const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      expect(scroll, "the page is no wider than the screen").toBeLessThanOrEqual(client);
    };
    await visit(`/works/${id}?chapter=1`);
    await page.locator(".typo-report summary").click();
    await expect(page.getByLabel("建议改为（可不填）")).toBeVisible();
    await noSideways();
    await visit(`/works/${id}`);
    await page.locator(".block-menu summary").click();
    await expect(page.getByRole("button", { name: /^屏蔽作者 / })).toBeVisible();
    await expect(page.locator(".reader-actions .share-box")).toBeVisible();
    await noSideways();
    await visit("/history");
    await expect(page.getByTestId("history-entry").filter({ hasText: title })).toBeVisible();
    await noSideways();
    await visit("/settings/blocks");
    await expect(page.getByLabel("屏蔽标签")).toBeVisible();
    await noSideways();
  });
});

/**
 * 前情提要 (decision 252): a reader 10 chapters behind finds the author's summaries of the
 * chapters up to theirs, under the work's header and above the chapter they go on from, and
 * none of a later chapter. The rules (7 days away, paid chapters) are in
 * tests/integration/recap.test.ts.
 */
test("a reader 10 chapters behind finds 前情提要 that stops at their chapter", nojs, async ({ loggedInPage: page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const chapters = Array.from({ length: 12 }, (_, i) => ({ title: `第${i + 1}回`, paragraphs: [`第${i + 1}回的正文。`] }));
  const id = await publishWork(author, { title: marker("recap"), chapters });
  // The author summarizes the first three chapters in the story bible.
  const manager = await (await author.request.get(`/works/${id}/chapters`)).text();
  const chapterIds = [...new Set([...manager.matchAll(new RegExp(`href="/works/${id}/chapters/(\\d+)"`, "g"))].map((m) => m[1]))];
  for (const [i, chapterId] of chapterIds.slice(0, 3).entries()) {
    const saved = await author.request.post(`/works/${id}/bible?tab=summaries`, {
      form: { intent: "summary-save", chapterId, summary: `梗概${i + 1}：师徒走到第${i + 1}座山。` },
      headers: sameOrigin(baseURL!),
      maxRedirects: 0,
    });
    expect(saved.status(), "a summary saved").toBeLessThan(400);
  }

  // The reader opens 第2回: ten chapters follow it.
  await visit(`/works/${id}?chapter=2`);
  await expect(page.getByRole("heading", { name: "第2回" })).toBeVisible();
  await visit(`/works/${id}`);
  const recap = page.locator(".recap");
  await expect(recap).toContainText("上次读到第 2 章「第2回」");
  await expect(recap).toContainText("之后又更新了 10 章");
  await expect(recap.getByText("梗概1：师徒走到第1座山。")).toBeVisible();
  await expect(recap.getByText("梗概2：师徒走到第2座山。")).toBeVisible();
  await expect(recap).not.toContainText("梗概3");
  // Going on from 第2回: the recap above the chapter; it folds away.
  await visit(`/works/${id}?chapter=2`);
  await expect(page.locator(".recap")).toContainText("梗概2：师徒走到第2座山。");
  await page.locator(".recap summary").click();
  await expect(page.getByText("梗概2：师徒走到第2座山。")).toBeHidden();
});
