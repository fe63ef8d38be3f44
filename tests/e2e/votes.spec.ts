import { expect, test } from "./fixtures";
import { fundedBuyer, marker, newAuthor, publishWork } from "./reader-helpers";

/**
 * 月票 and 推荐票 (issue 32 part 3, decision 222): a reader earns 月票 by a tip, casts two at
 * the chapter's end and a 推荐票 on the work page, sees what is left, and finds the work on
 * today's 月票榜 and 推荐票榜. With and without JavaScript. The rules (earning, expiry,
 * refusals, 50-way races) are tested on the server: tests/integration/votes.test.ts.
 */
test("a reader earns 月票 by tipping, casts them at a chapter's end and a 推荐票 on the work page, and the rankings show them @nojs", async ({
  page,
  context,
  logInAs,
  visit,
  facts,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const buyer = fundedBuyer(facts, javaScriptEnabled ? 18 : 19);
  const author = await newAuthor(playwright, baseURL!);
  const title = `投票 ${marker("vote")}`;
  const id = await publishWork(author, { title, chapters: [{ title: "第1章 开篇", paragraphs: ["第一段正文。", "第二段正文。"] }] });

  await logInAs(context, buyer);
  // 500 credits tipped this month: 5 月票 (one per 100 credits by default).
  await visit(`/works/${id}/tip`);
  await page.getByRole("radio", { name: "500", exact: true }).check();
  await page.getByRole("button", { name: "确认打赏", exact: true }).click();
  await expect(page.getByText("打赏成功")).toBeVisible();

  await visit(`/works/${id}?chapter=1`);
  const box = page.getByTestId("vote-box");
  const monthlyLeft = box.getByTestId("vote-left-monthly");
  const before = Number(await monthlyLeft.innerText());
  expect(before).toBeGreaterThanOrEqual(5);
  const monthlyForm = box.locator("form").filter({ has: page.getByRole("button", { name: "投月票", exact: true }) });
  await monthlyForm.getByRole("combobox").selectOption("2");
  await monthlyForm.getByRole("button", { name: "投月票", exact: true }).click();
  await expect(page.getByText("已投出 2 张月票，感谢你的支持！")).toBeVisible();
  await expect(monthlyLeft).toHaveText(String(before - 2));

  // The work page: one 推荐票.
  await visit(`/works/${id}`);
  const recommendLeft = page.getByTestId("vote-left-recommend");
  const recommendBefore = Number(await recommendLeft.innerText());
  expect(recommendBefore).toBeGreaterThanOrEqual(1);
  await page.getByRole("button", { name: "投推荐票", exact: true }).click();
  await expect(page.getByText("已投出 1 张推荐票，感谢你的支持！")).toBeVisible();
  await expect(recommendLeft).toHaveText(String(recommendBefore - 1));

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
});
