import { expect, test } from "./fixtures";
import { marker, newAuthor, publishWork } from "./reader-helpers";

const nojs = { tag: "@nojs" };

/**
 * An author's page and 关注作者 (decision 230): from the author's name on a work to their page,
 * follow them, and hear of their next work in 消息通知. The rules (self-follow, hidden works,
 * held works) are in tests/integration/author-pages.test.ts.
 */
test("from the author's name to their page, follow them, and hear of their next work", nojs, async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const first = `作者页 ${marker("author")}`;
  const id = await publishWork(author, { title: first, chapters: [{ title: "第一章", paragraphs: ["一"] }] });

  await visit(`/works/${id}`);
  await page.locator('a[href^="/authors/"]').first().click();
  await expect(page).toHaveURL(/\/authors\/[0-9a-f-]{36}$/);
  const authorPath = new URL(page.url()).pathname;
  await expect(page.getByRole("heading", { name: first, level: 3 })).toBeVisible();
  await expect(page.getByTestId("author-followers")).toHaveText("0 位关注者");

  const followed = page.waitForResponse((answer) => answer.request().method() === "POST" && new URL(answer.url()).pathname.startsWith(authorPath));
  await page.getByRole("button", { name: "关注作者", exact: true }).click();
  await followed;
  await expect(page.getByRole("button", { name: "已关注", exact: true })).toHaveAttribute("aria-pressed", "true");
  await visit(authorPath);
  await expect(page.getByTestId("author-followers")).toHaveText("1 位关注者");

  const second = `作者新书 ${marker("author")}`;
  await publishWork(author, { title: second, chapters: [{ title: "第一章", paragraphs: ["二"] }] });
  await visit("/notifications");
  await expect(page.getByTestId("inbox-line").filter({ hasText: `发布了新作品《${second}》` })).toBeVisible();
});
