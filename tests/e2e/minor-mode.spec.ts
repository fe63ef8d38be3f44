import { expect, test } from "./fixtures";
import { fundedBuyer, marker, newAuthor, publishWork, setPrice } from "./reader-helpers";

/**
 * 青少年模式 (issue 31 part 3, decision 218): a reader with R-18 on turns the mode on with a
 * PIN, the R-18 work leaves the search, a tip and a purchase over the cap per payment are
 * refused with its message and nothing spent, a wrong PIN is counted, the right one leaves the mode. With and
 * without JavaScript. The rules (PIN lock, caps per month, races, reading hours) are tested
 * on the server: tests/integration/minor-mode.test.ts.
 */
test("a reader turns 青少年模式 on with a PIN: R-18 is gone, a tip and a purchase over the cap are refused, the PIN leaves it @nojs", async ({
  page,
  context,
  logInAs,
  visit,
  facts,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const buyer = fundedBuyer(facts, javaScriptEnabled ? 14 : 15);
  const author = await newAuthor(playwright, baseURL!);
  const title = `青少年 ${marker("minor")}`;
  const id = await publishWork(author, { title, chapters: [{ title: "第1章 开篇", paragraphs: ["第一段正文。"] }] });
  await logInAs(context, buyer);

  // R-18 on first: the search shows the r18 work.
  await visit("/settings?tab=display");
  await page.getByText("我已年满 18 周岁").click();
  await page.getByRole("switch", { name: "显示 R-18 内容" }).click();
  // The switch shows the new state at once; wait for the server's 设置已保存, or leaving the
  // page can cancel the save (as in settings.spec).
  await expect(page.getByRole("status")).toHaveText("设置已保存");
  await expect(page.getByRole("switch", { name: "显示 R-18 内容" })).toHaveAttribute("aria-checked", "true");
  await visit(`/works?q=${encodeURIComponent(facts.marker)}&page=1`);
  await expect(page.getByTestId("work-card").filter({ hasText: facts.works.r18 })).toHaveCount(1);

  // 青少年模式 on, with the PIN typed twice.
  await visit("/settings/minor-mode");
  await page.getByLabel("设置 4 位数字密码").fill("2580");
  await page.getByLabel("再次输入密码").fill("2580");
  await page.getByRole("button", { name: "开启青少年模式", exact: true }).click();
  await expect(page.getByTestId("minor-mode-status")).toHaveText("状态：已开启");

  await visit(`/works?q=${encodeURIComponent(facts.marker)}&page=1`);
  await expect(page.getByTestId("work-card").filter({ hasText: facts.works.allAges })).toHaveCount(1);
  await expect(page.getByTestId("work-card").filter({ hasText: facts.works.r18 })).toHaveCount(0);

  // A tip of 100 passes the cap of 50 per payment: refused, nothing spent.
  await visit(`/works/${id}/tip`);
  await page.getByRole("radio", { name: "100", exact: true }).check();
  await page.getByRole("button", { name: "确认打赏" }).click();
  await expect(page.getByText("青少年模式下单笔消费不能超过 50 积分")).toBeVisible();

  // Buying the work whole at 80 would pass the same cap: refused in the purchase dialog.
  await setPrice(author, id, 80);
  await visit(`/works/${id}?purchase=1`);
  const purchase = page.getByRole("dialog", { name: "购买作品" });
  await purchase.getByRole("button", { name: "确认购买" }).click();
  await expect(page.getByRole("dialog", { name: "购买作品" }).getByRole("alert")).toHaveText("青少年模式下单笔消费不能超过 50 积分");

  // Leaving: a wrong PIN is counted, the right one turns it off.
  await visit("/settings/minor-mode");
  await expect(page.getByTestId("minor-mode-month")).toHaveText("本月已消费 0 积分，已充值 0 元。");
  await page.getByLabel("输入密码").fill("1111");
  await page.getByRole("button", { name: "关闭青少年模式", exact: true }).click();
  await expect(page.getByText("密码错误，还可以再试 4 次")).toBeVisible();
  await page.getByLabel("输入密码").fill("2580");
  await page.getByRole("button", { name: "关闭青少年模式", exact: true }).click();
  await expect(page.getByTestId("minor-mode-status")).toHaveText("状态：未开启");
});
