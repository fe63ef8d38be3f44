import { expect, test } from "./fixtures";
import { fundedBuyer, marker, newAuthor, publishWork } from "./reader-helpers";

/**
 * 打赏 and fans (issue 32 part 2, decision 207): a reader tips from a chapter's end with a
 * message, sees the notice in 本章说 with their 粉丝等级 beside it, and the author's 我的收入
 * shows the tip. With and without JavaScript. The rules (one transaction, refusals, races,
 * 粉丝值) are tested on the server: tests/integration/tips.test.ts.
 */
test("a reader tips 500 from a chapter's end with a message; 本章说 shows it with their fan level; the author's 我的收入 too @nojs", async ({
  page,
  browser,
  context,
  logInAs,
  visit,
  facts,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const buyer = fundedBuyer(facts, javaScriptEnabled ? 12 : 13);
  const author = await newAuthor(playwright, baseURL!);
  const title = `打赏 ${marker("tip")}`;
  const id = await publishWork(author, { title, chapters: [{ title: "第1章 开篇", paragraphs: ["第一段正文。", "第二段正文。"] }] });
  const message = `写得真好 ${marker("msg")}`;

  await logInAs(context, buyer);
  await visit(`/works/${id}?chapter=1`);
  await page.getByTestId("chapter-tip-link").click();
  await expect(page.getByRole("heading", { level: 1, name: `打赏《${title}》` })).toBeVisible();
  await page.getByRole("radio", { name: "500", exact: true }).check();
  await page.getByLabel(/留言/).fill(message);
  await page.getByRole("button", { name: "确认打赏" }).click();

  // Back in the chapter's 本章说: the notice, marked as a tip, with the reader's level.
  await expect(page.getByTestId("posted-notice")).toContainText("打赏成功");
  const notice = page.getByTestId("comment").filter({ has: page.getByTestId("tip-notice") });
  await expect(notice.getByTestId("tip-notice")).toHaveText(`打赏了 500 积分：${message}`);
  await expect(notice.getByText("打赏", { exact: true })).toBeVisible();
  await expect(notice.getByTestId("comment-fan-level")).toHaveText("学徒");

  // The work's 粉丝榜 lists the reader.
  await visit(`/works/${id}/fans`);
  await expect(page.getByTestId("my-fan-level")).toContainText("我的粉丝值 500 · 等级 学徒 · 第 1 名");

  // The author's 我的收入: the tip's share (70%) in the ledger, as 打赏收入.
  const studio = await browser.newContext({ javaScriptEnabled });
  try {
    await studio.addCookies((await author.request.storageState()).cookies);
    const income = await studio.newPage();
    await visit("/income", income);
    await expect(income.getByTestId("income-balance")).toHaveText("350");
    const row = income.getByTestId("income-ledger").getByRole("row").filter({ hasText: "打赏收入" });
    await expect(row).toContainText(`《${title}》收到打赏`);
    await expect(row).toContainText("+350");
  } finally {
    await studio.close();
  }
});
