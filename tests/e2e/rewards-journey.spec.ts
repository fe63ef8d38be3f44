import { expect, test, waitForLive } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { fundedBuyer, marker, newAuthor, publishWork } from "./reader-helpers";

const nojs = { tag: "@nojs" };

/**
 * Readers reward authors (issue 32, "Done when"), as one reader's journey on one work, with
 * and without JavaScript:
 * - 打赏 from a chapter's end with a message (decision 207): the notice in 本章说 with the
 *   reader's 粉丝等级, the 粉丝榜, and the author's 我的收入, open in the author's own
 *   browser the whole time: with JavaScript it shows the tip by itself (the `income` live
 *   event), without JavaScript after a reload;
 * - 月票 earned by that tip and cast at the chapter's end, a 推荐票 on the work page, and the
 *   day's 月票榜, 推荐票榜 and 打赏榜 (decision 222);
 * - a review with a rating in the 书评区 (decision 211);
 * - the work added to a new 书单 with a note (decision 232);
 * - from the author's name to their page, 关注作者, and their next work in 消息通知
 *   (decision 230).
 * The reader is a seeded account with credits (a tip spends them); the author a pool
 * account. The rules (one transaction, refusals, races, limits) are tested on the server:
 * tests/integration/tips.test.ts, votes.test.ts, book-reviews.test.ts, booklists.test.ts,
 * author-pages.test.ts; the 书评区's author side and the 书单's editing and visitors in
 * book-reviews.spec.ts and booklists.spec.ts.
 */
test("a reader tips (live in the author's 我的收入), casts 月票 and 推荐票 (the rankings show them), reviews, adds the work to a 书单 and follows the author", nojs, async ({
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
  test.slow();
  const reader = fundedBuyer(facts, javaScriptEnabled ? 12 : 13);
  const author = await newAuthor(playwright, baseURL!);
  const title = `回馈 ${marker("rewards")}`;
  const id = await publishWork(author, { title, chapters: [{ title: "第1章 开篇", paragraphs: ["第一段正文。", "第二段正文。"] }] });

  // The author's 我的收入, open in their own browser before the tip.
  const studio = await browser.newContext({ baseURL, javaScriptEnabled });
  try {
    await studio.addCookies((await author.request.storageState()).cookies);
    const income = await studio.newPage();
    await visit("/income", income);
    await expect(income.getByTestId("income-balance")).toHaveText("0");
    if (javaScriptEnabled) await waitForLive(income);

    // 打赏 500 from the chapter's end, with a message.
    await logInAs(context, reader);
    await visit(`/works/${id}?chapter=1`);
    await page.getByTestId("chapter-tip-link").click();
    await expect(page.getByRole("heading", { level: 1, name: `打赏《${title}》` })).toBeVisible();
    if (javaScriptEnabled) await expectNoSeriousViolations(page, "the tip page");
    const message = `写得真好 ${marker("msg")}`;
    await page.getByRole("radio", { name: "500", exact: true }).check();
    await page.getByLabel(/留言/).fill(message);
    await page.getByRole("button", { name: "确认打赏", exact: true }).click();

    // Back in the chapter's 本章说: the notice, marked as a tip, with the reader's level.
    await expect(page.getByTestId("posted-notice")).toContainText("打赏成功");
    const notice = page.getByTestId("comment").filter({ has: page.getByTestId("tip-notice") });
    await expect(notice.getByTestId("tip-notice")).toHaveText(`打赏了 500 积分：${message}`);
    await expect(notice.getByText("打赏", { exact: true })).toBeVisible();
    await expect(notice.getByTestId("comment-fan-level")).toHaveText("学徒");

    // The author's 我的收入: the tip's share (70%) as 打赏收入; live with JavaScript, after a reload without.
    if (!javaScriptEnabled) await visit("/income", income);
    await expect(income.getByTestId("income-balance")).toHaveText("350");
    const row = income.getByTestId("income-ledger").getByRole("row").filter({ hasText: "打赏收入" });
    await expect(row).toContainText(`《${title}》收到打赏`);
    await expect(row).toContainText("+350");
  } finally {
    await studio.close();
  }

  // 月票: the tip's 500 credits earned 5 (one per 100 credits by default); two cast at the chapter's end.
  await visit(`/works/${id}?chapter=1`);
  const box = page.getByTestId("vote-box");
  const monthlyLeft = box.getByTestId("vote-left-monthly");
  const monthlyBefore = Number(await monthlyLeft.innerText());
  expect(monthlyBefore).toBeGreaterThanOrEqual(5);
  const monthlyForm = box.locator("form").filter({ has: page.getByRole("button", { name: "投月票", exact: true }) });
  await monthlyForm.getByRole("combobox").selectOption("2");
  await monthlyForm.getByRole("button", { name: "投月票", exact: true }).click();
  await expect(page.getByText("已投出 2 张月票，感谢你的支持！")).toBeVisible();
  await expect(monthlyLeft).toHaveText(String(monthlyBefore - 2));

  // A 推荐票 on the work page.
  await visit(`/works/${id}`);
  const recommendLeft = page.getByTestId("vote-left-recommend");
  const recommendBefore = Number(await recommendLeft.innerText());
  expect(recommendBefore).toBeGreaterThanOrEqual(1);
  await page.getByRole("button", { name: "投推荐票", exact: true }).click();
  await expect(page.getByText("已投出 1 张推荐票，感谢你的支持！")).toBeVisible();
  await expect(recommendLeft).toHaveText(String(recommendBefore - 1));

  // The 粉丝榜 lists the reader.
  await visit(`/works/${id}/fans`);
  await expect(page.getByTestId("my-fan-level")).toContainText("我的粉丝值 500 · 等级 学徒 · 第 1 名");

  // Today's boards (a few seconds' shared copy: looked at again until it shows).
  for (const [board, score] of [
    ["monthly-votes", "今日 2 张月票"],
    ["recommend-votes", "今日 1 张推荐票"],
    ["tips", "今日打赏 500 积分"],
  ] as const) {
    await expect(async () => {
      await visit(`/rankings?board=${board}&period=day`);
      const item = page.getByTestId("ranking-list").getByRole("listitem").filter({ hasText: title });
      await expect(item.getByText(score, { exact: true })).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 20_000 });
  }

  // A review with a rating, from the work page's 书评区.
  await visit(`/works/${id}`);
  await page.getByRole("link", { name: "书评区", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "书评区" })).toBeVisible();
  const write = page.getByRole("form", { name: "写书评" });
  await write.getByLabel("评分").selectOption("9");
  await write.getByLabel("书评内容").fill("节奏明快，人物鲜活，打赏也值得。");
  await write.getByRole("button", { name: "发表书评" }).click();
  await expect(page.getByTestId("review-notice")).toHaveText("书评已发表。");
  await expect(page.getByTestId("my-review")).toContainText("9 分");
  await expect(page.getByTestId("my-review")).toContainText("节奏明快");

  // The work into a new 书单, with a note.
  const listTitle = `回馈书单${marker("bl").slice(-6)}`;
  await visit(`/works/${id}`);
  await page.getByRole("link", { name: "加入书单", exact: true }).click();
  const form = page.getByRole("form", { name: "加入书单" });
  await form.getByRole("radio", { name: "新建书单" }).check();
  await form.getByLabel("新书单名称").fill(listTitle);
  await form.getByLabel("推荐语").fill("打赏过的好书");
  await form.getByRole("button", { name: "加入书单", exact: true }).click();
  await expect(page).toHaveURL(/\/booklists\/\d+$/);
  await expect(page.getByText(`已加入书单《${listTitle}》`)).toBeVisible();
  const entry = page.getByTestId("booklist-entry");
  await expect(entry.getByRole("link", { name: title })).toHaveAttribute("href", `/works/${id}`);
  await expect(entry).toContainText("打赏过的好书");

  // From the author's name on the work page to their page: 关注作者.
  await visit(`/works/${id}`);
  await page.locator('a[href^="/authors/"]').first().click();
  await expect(page).toHaveURL(/\/authors\/[0-9a-f-]{36}$/);
  const authorPath = new URL(page.url()).pathname;
  await expect(page.getByRole("heading", { name: title, level: 3 })).toBeVisible();
  await expect(page.getByTestId("author-followers")).toHaveText("0 位关注者");
  const followed = page.waitForResponse((answer) => answer.request().method() === "POST" && new URL(answer.url()).pathname.startsWith(authorPath));
  await page.getByRole("button", { name: "关注作者", exact: true }).click();
  await followed;
  await expect(page.getByRole("button", { name: "已关注", exact: true })).toHaveAttribute("aria-pressed", "true");
  await visit(authorPath);
  await expect(page.getByTestId("author-followers")).toHaveText("1 位关注者");

  // The author's next work reaches the reader's 消息通知.
  const next = `回馈新书 ${marker("rewards")}`;
  await publishWork(author, { title: next, chapters: [{ title: "第一章", paragraphs: ["新的故事。"] }] });
  await visit("/notifications");
  await expect(page.getByTestId("inbox-line").filter({ hasText: `发布了新作品《${next}》` })).toBeVisible();
});
