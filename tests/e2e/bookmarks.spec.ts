import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { marker, newAuthor, publishWork } from "./reader-helpers";

const nojs = { tag: "@nojs" };

/** Selects `quote` inside paragraph `index` of the chapter, as a finger or a mouse would. */
async function select(page: Page, index: number, quote: string) {
  await page.evaluate(
    ([i, text]) => {
      const paragraph = document.getElementById(`p-${i}`)!;
      const walker = document.createTreeWalker(paragraph, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.textContent!.indexOf(text);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + text.length);
        const selection = document.getSelection()!;
        selection.removeAllRanges();
        selection.addRange(range);
        return;
      }
      throw new Error(`${text} is not in paragraph ${i}`);
    },
    [index, quote] as const,
  );
}

/**
 * 书签 and 划线 (decision 241) on a 390 px touch screen, with and without JavaScript: a reader
 * bookmarks a paragraph with a note and highlights text (a selection with JavaScript, the
 * whole paragraph without), sees both after a reload and on /bookmarks, and deletes them.
 * The rules are in tests/integration/reader-marks.test.ts.
 */
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

test("a bookmark with a note and a highlight, kept with the account", nojs, async ({ loggedInPage: page, visit, playwright, baseURL, javaScriptEnabled }) => {
  const author = await newAuthor(playwright, baseURL!);
  const title = marker("marks");
  const first = `第一段：雨夜里的长街${marker("p")}。`;
  const second = "第二段：林晚撑伞走过桥头，看见了老周。";
  const id = await publishWork(author, { title, chapters: [{ title: "第一章", paragraphs: [first, second, "第三段：灯灭了。"] }] });
  await visit(`/works/${id}?chapter=1`);
  await expect(page.getByText(second)).toBeVisible();

  const highlighted = javaScriptEnabled ? "林晚撑伞" : first;
  if (javaScriptEnabled) {
    // A selection opens the bar: 加书签 marks its paragraph, with the note typed there.
    await select(page, 1, "走过桥头");
    const bar = page.getByTestId("mark-popup");
    await bar.getByLabel("笔记（可不填）").fill("从这里重读");
    await bar.getByRole("button", { name: "加书签", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: "已加书签" })).toBeVisible();
    await expect(page.getByRole("link", { name: "第 2 段的书签：从这里重读", exact: true })).toBeVisible();
    // 划线 the selection, with a note.
    await select(page, 1, highlighted);
    await expectNoSeriousViolations(page, "the chapter with the selection bar");
    await bar.getByLabel("笔记（可不填）").fill("好句");
    await bar.getByRole("button", { name: "划线", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: "已划线" })).toBeVisible();
    await expect(page.getByTestId("reader-highlight")).toHaveText(highlighted);
  } else {
    // The paragraph's 书签 link opens its page: 加书签 with a note, back at the chapter.
    await page.getByRole("link", { name: "为第 2 段加书签或划线", exact: true }).click();
    await expect(page.getByText(second)).toBeVisible();
    await page.getByLabel("书签笔记（可不填）").fill("从这里重读");
    await page.getByRole("button", { name: "加书签", exact: true }).click();
    await expect(page.getByText("已加书签")).toBeVisible();
    await expect(page.getByRole("link", { name: "第 2 段的书签：从这里重读", exact: true })).toBeVisible();
    // 划线整段 the first paragraph (the way back was to the second paragraph on).
    await visit(`/works/${id}?chapter=1`);
    await page.getByRole("link", { name: "为第 1 段加书签或划线", exact: true }).click();
    await page.getByLabel("划线笔记（可不填）").fill("好句");
    await page.getByRole("button", { name: "划线整段", exact: true }).click();
    await expect(page.getByText("已划线")).toBeVisible();
  }

  // Drawn again when the chapter is opened again.
  await visit(`/works/${id}?chapter=1`);
  await expect(page.getByTestId("reader-highlight")).toHaveText(highlighted);
  await expect(page.getByTestId("paragraph-bookmark")).toHaveCount(1);
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(scroll, "the page is no wider than the screen").toBeLessThanOrEqual(client);
  // axe runs in the page: with JavaScript only (the same markup either way).
  if (javaScriptEnabled) await expectNoSeriousViolations(page, "the chapter with its marks");

  // The work page lists them; /bookmarks too, each linking to its paragraph.
  await visit(`/works/${id}`);
  await expect(page.getByRole("heading", { name: "我的书签和划线（2）", exact: true })).toBeVisible();
  await visit("/bookmarks");
  const entries = page.getByTestId("mark-entry").filter({ hasText: title });
  await expect(entries).toHaveCount(2);
  const bookmark = entries.filter({ hasText: "书签" }).filter({ hasText: "笔记：从这里重读" });
  await expect(bookmark.getByRole("link")).toHaveAttribute("href", `/works/${id}?chapter=1&from=1#p-1`);
  await expect(entries.filter({ hasText: "笔记：好句" })).toContainText(highlighted);
  await expect(entries.first().locator("time")).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  if (javaScriptEnabled) await expectNoSeriousViolations(page, "/bookmarks");

  // 删除 both.
  for (let left = 2; left > 0; left--) {
    await entries.first().getByRole("button", { name: /^删除/ }).click();
    await expect(page.getByText("已删除")).toBeVisible();
    await expect(entries).toHaveCount(left - 1);
  }
  await visit(`/works/${id}?chapter=1`);
  await expect(page.getByTestId("reader-highlight")).toHaveCount(0);
  await expect(page.getByTestId("paragraph-bookmark")).toHaveCount(0);
});
