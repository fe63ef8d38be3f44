import { expect, test } from "./fixtures";
import { marker } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

/** 写作台 (decision 261): the author's page of the day for a work, with and without JavaScript, on a 390 px phone. */
test.use({ viewport: { width: 390, height: 844 } });

const nojs = { tag: "@nojs" };

test("the author writes a 存稿, sees today's 字数, the hook and days of 存稿, and sets a daily target", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
  const title = `写作台 ${marker("desk")}`;
  // Published today: 第一章的正文。 is 7 字, so the pace is 7 字 a day.
  const id = await publishWork(page, baseURL!, { title, type: "series" });
  await visit(`/works/${id}/chapters/new`);
  await page.getByLabel("章节标题").fill("第二章 夜雨");
  await page.getByLabel("章节内容").fill("雨下了一夜。\n\n门外有人敲了三下。");
  await page.getByRole("radio", { name: "存稿（读者不可见）" }).check();
  await page.getByRole("button", { name: "保存" }).click();
  await expect(page).toHaveURL(new RegExp(`/works/${id}/chapters\\?chapter=\\d+`));

  await page.getByRole("navigation", { name: "作品管理" }).getByRole("link", { name: "写作台" }).click();
  await expect(page).toHaveURL(new RegExp(`/works/${id}/desk$`));
  // The new chapter's 15 字 are today's; 15 字 of 存稿 at 7 字 a day last 2 days.
  const today = page.getByRole("region", { name: "今日字数" });
  await expect(today).toContainText("15 字");
  await expect(today).toContainText("还没有设每日目标。");
  const stock = page.getByRole("region", { name: "存稿" });
  await expect(stock).toContainText("够更 2 天");
  await expect(stock).toContainText("未发布存稿：1 章，15 字");
  const hook = page.getByRole("region", { name: "上一章的钩子" });
  await expect(hook.getByRole("link", { name: "第二章 夜雨" })).toBeVisible();
  await expect(hook).toContainText("门外有人敲了三下。");
  await expect(page.getByRole("region", { name: "逾期伏笔" })).toContainText("没有逾期的伏笔。");
  await expect(page.getByRole("heading", { name: "连续性检查：没有待处理的问题" })).toBeVisible();

  // A target of 0 is refused with its reason, the text kept; 3000 is saved.
  const target = page.getByLabel("每日目标（字）");
  await target.fill("0");
  await page.getByRole("button", { name: "保存目标" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "每日目标要大于 0 字" })).toBeVisible();
  await expect(target).toHaveValue("0");
  await target.fill("3000");
  await page.getByRole("button", { name: "保存目标" }).click();
  await expect(page.getByRole("status")).toHaveText("每日目标已设为 3000 字");
  await expect(today).toContainText("目标 3,000 字");
  await expect(today).toContainText("还差 2,985 字。");
  await expect(page.getByRole("progressbar", { name: "今日目标完成度" })).toBeVisible();

  // On the phone nothing scrolls sideways.
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(scroll).toBeLessThanOrEqual(client);
});

test("another user's 写作台 is a 404", nojs, async ({ loggedInPage: page, facts }) => {
  const html = await (await page.request.get(`/works?q=${encodeURIComponent(facts.works.allAges)}`)).text();
  const id = /href="\/works\/(\d+)"/.exec(html)?.[1];
  expect(id).toBeTruthy();
  expect((await page.goto(`/works/${id}/desk`))?.status()).toBe(404);
});
