import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { marker, newAuthor, publishWork } from "./reader-helpers";

const nojs = { tag: "@nojs" };
const PHONE = { width: 390, height: 844 };
test.use({ viewport: PHONE });

/** Nothing on the page is wider than the phone. */
async function fitsThePhone(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
}

/**
 * 书单 (issue 32 part 5, decision 232): a reader adds a work to a new list with a note from
 * the work page, edits the note, and a visitor, all on a 390 px phone, finds the list on
 * /booklists and sees the work and the note. The rules (limits, duplicates, another's list,
 * hidden works, screening) are in tests/integration/booklists.test.ts.
 */
test("a reader adds a work to a new 书单 with a note; a visitor finds it on /booklists", nojs, async ({
  loggedInPage: page,
  visit,
  playwright,
  browser,
  baseURL,
  javaScriptEnabled,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const workTitle = `书单作品 ${marker("booklist")}`;
  const id = await publishWork(author, { title: workTitle, chapters: [{ title: "第一章", paragraphs: ["书单里的一章。"] }] });
  const listTitle = `通宵书单${marker("bl").slice(-6)}`;

  // The reader, from the work page.
  await visit(`/works/${id}`);
  await page.getByRole("link", { name: "加入书单", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "加入书单" })).toBeVisible();
  await fitsThePhone(page);
  const form = page.getByRole("form", { name: "加入书单" });
  await form.getByRole("radio", { name: "新建书单" }).check();
  await form.getByLabel("新书单名称").fill(listTitle);
  await form.getByLabel("推荐语").fill("开头三章就停不下来");
  await form.getByRole("button", { name: "加入书单", exact: true }).click();
  await expect(page).toHaveURL(/\/booklists\/\d+$/);
  const listPath = new URL(page.url()).pathname;
  await expect(page.getByText(`已加入书单《${listTitle}》`)).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: listTitle })).toBeVisible();
  await expect(page.getByTestId("booklist-entry")).toContainText("开头三章就停不下来");
  await fitsThePhone(page);

  // 管理书单: the note is editable.
  await page.getByRole("link", { name: "管理书单", exact: true }).click();
  const note = page.getByRole("form", { name: `《${workTitle}》的推荐语` });
  await note.getByLabel("推荐语").fill("开头三章就停不下来，结尾更好");
  await note.getByRole("button", { name: "保存推荐语", exact: true }).click();
  await expect(page.getByText("推荐语已保存")).toBeVisible();
  await fitsThePhone(page);

  // A visitor on a phone: /booklists lists it, its page shows the work, the note and the owner.
  const context = await browser.newContext({ baseURL, javaScriptEnabled, viewport: PHONE });
  const visitor = await context.newPage();
  await visit("/booklists?sort=new", visitor);
  const card = visitor.getByTestId("booklist-card").filter({ hasText: listTitle });
  await expect(card).toContainText("1 部作品");
  await card.getByRole("link", { name: listTitle }).click();
  await expect(visitor).toHaveURL(new RegExp(`${listPath}$`));
  const entry = visitor.getByTestId("booklist-entry");
  await expect(entry.getByRole("link", { name: workTitle })).toHaveAttribute("href", `/works/${id}`);
  await expect(entry.locator('a[href^="/authors/"]')).toBeVisible();
  await expect(entry).toContainText("开头三章就停不下来，结尾更好");
  await expect(visitor.getByTestId("booklist-followers")).toHaveText("0 人关注");
  // Following needs a session: the visitor is offered the login.
  await expect(visitor.getByRole("link", { name: "关注书单", exact: true })).toHaveAttribute("href", /auth=login/);
  await fitsThePhone(visitor);
  if (javaScriptEnabled) await expectNoSeriousViolations(visitor, "a 书单's page on a phone");
  await context.close();
});
