/**
 * A day of an operator in the back office (issue 20, decisions 136–138), with and without
 * JavaScript: a spammer's comment is reported and their paid top-up never got its notify;
 * the operator takes the work down, deletes the comment from the report queue, bans the
 * spammer, and repairs the order with 查单, on a 390 px phone for the last step.
 */
import type { BrowserContext, Page } from "@playwright/test";
import { expect, test, waitForHydration } from "./fixtures";
import { ADMIN_COOKIE, claimAdminSession, poolCookie } from "./fixtures/account-pool";
import { commentAs, marker, newAuthor, publishWork } from "./reader-helpers";

process.env.ADMIN_EMAIL ??= "e2e-admin@example.com";
process.env.ADMIN_PASSWORD ??= "e2e-admin-password";

/** An administrator's context: a pooled session from the seed, else the /xbbadmin form. */
async function adminContext(context: BrowserContext, baseURL: string) {
  const session = claimAdminSession();
  if (session) {
    await context.addCookies([poolCookie(ADMIN_COOKIE, baseURL, session)]);
    return;
  }
  const origin = new URL(baseURL).origin;
  const response = await context.request.post("/xbbadmin", {
    form: { email: process.env.ADMIN_EMAIL!, password: process.env.ADMIN_PASSWORD!, redirectTo: "/admin/dashboard" },
    headers: { Origin: origin, Referer: `${origin}/xbbadmin` },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(302);
}

async function noHorizontalScroll(page: Page) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
}

test("an operator takes down a reported work, deletes the comment, bans the spammer and repairs an unnotified order @nojs", async ({
  loggedInPage: spammerPage,
  user: spammer,
  visit,
  browser,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  // The setting: an author's work, the spammer's comment on it, a reader's report.
  const author = await newAuthor(playwright, baseURL!);
  const reader = await newAuthor(playwright, baseURL!);
  const text = marker("op");
  const title = `运营 ${text}`;
  const workId = await publishWork(author, { title, chapters: [{ title: "第一章", paragraphs: [`${text}第一段。`] }] });
  await visit(`/works/${workId}/comments?chapter=1`, spammerPage);
  await spammerPage.getByRole("textbox", { name: "评论内容" }).fill(`加群领福利${text}`);
  await spammerPage.getByRole("button", { name: "发表" }).click();
  await expect(spammerPage.getByTestId("comment-list")).toContainText(`加群领福利${text}`);
  const commentId = Number((await spammerPage.getByTestId("comment").first().getAttribute("id"))!.slice(2));
  await commentAs(reader, workId, { chapter: 1 }, { intent: "report", comment: String(commentId), reason: "广告引流" });

  // The spammer pays 10 yuan, but the gateway's notify never arrives.
  await visit("/credits", spammerPage);
  await spammerPage.getByRole("link", { name: "在线充值" }).click();
  const dialog = spammerPage.getByRole("dialog", { name: "在线充值" });
  await dialog.getByLabel("充值金额（元）").fill("10");
  await dialog.getByRole("button", { name: "前往支付" }).click();
  await expect(spammerPage.getByRole("heading", { name: "测试支付网关" })).toBeVisible();
  const outTradeNo = (await spammerPage.locator("#order-no").textContent())!;
  await spammerPage.getByText("测试选项").click();
  await spammerPage.getByLabel("不发送通知（模拟通知丢失）").check();
  await spammerPage.getByRole("button", { name: "确认支付" }).click();
  await expect(spammerPage).toHaveURL(/\/payment\/success\?/);
  // The return page reloads itself every 3 s (meta refresh) while it waits for the notify,
  // which never comes: leave it, retrying if a reload was starting at that moment.
  await expect(async () => {
    await spammerPage.goto("about:blank");
  }).toPass();

  const context = await browser.newContext({ baseURL, javaScriptEnabled });
  await adminContext(context, baseURL!);
  const admin = await context.newPage();
  const open = async (url: string) => {
    await admin.goto(url);
    if (javaScriptEnabled) await waitForHydration(admin);
  };

  // 1. The reported work: found by the filter, taken down with a reason.
  await open(`/admin/works?q=${encodeURIComponent(text)}&reported=1`);
  await admin.getByRole("link", { name: title }).click();
  await expect(admin.getByRole("heading", { name: title })).toBeVisible();
  // An empty reason is stopped before it is sent (the server refuses it too: admin-works.test.ts).
  await admin.getByRole("button", { name: "下架" }).click();
  await expect(admin.getByTestId("notice")).toHaveCount(0);
  await admin.getByLabel("下架原因（作者可见）").fill("传播广告");
  await admin.getByRole("button", { name: "下架" }).click();
  await expect(admin.getByTestId("notice")).toHaveText("作品已下架，作者会看到下架原因");
  await expect(admin.getByTestId("work-state")).toContainText("传播广告");
  expect((await reader.request.get(`/works/${workId}`)).status()).toBe(404);
  expect(await (await author.request.get(`/my-works?tab=private&q=${encodeURIComponent(title)}`)).text()).toContain("已被管理员下架：传播广告");

  // 2. The report queue: the spammer's comment, with the reporter's reason, deleted.
  await open("/admin/comment-reports");
  const card = admin.getByTestId("reported-comment").filter({ hasText: `加群领福利${text}` });
  await expect(card).toContainText("广告引流");
  await card.getByRole("button", { name: "删除" }).click();
  await expect(admin.getByTestId("notice")).toHaveText("删除成功");
  await expect(admin.getByTestId("reported-comment").filter({ hasText: `加群领福利${text}` })).toHaveCount(0);

  // 3. The spammer: banned with a reason; their open page is signed out at once.
  await open(`/admin/users?q=${encodeURIComponent(spammer.email)}`);
  await admin.getByRole("row", { name: new RegExp(spammer.email) }).getByRole("link", { name: "编辑" }).click();
  await admin.getByLabel("封禁原因（会在该用户登录时显示）").fill("发布广告");
  await admin.getByRole("button", { name: "封禁", exact: true }).click();
  await expect(admin.getByTestId("notice")).toHaveText("已封禁该用户，其所有登录已失效");
  await expect(admin.getByTestId("user-ban-state")).toContainText("发布广告");
  await visit("/credits", spammerPage);
  await expect(spammerPage).toHaveURL(/auth=login/);

  // 4. The order paid without a notify: 查单 on a phone-sized screen credits it once.
  await admin.setViewportSize({ width: 390, height: 844 });
  await open(`/admin/orders?q=${encodeURIComponent(spammer.email)}`);
  await noHorizontalScroll(admin);
  await admin.getByRole("link", { name: outTradeNo }).click();
  await expect(admin.getByTestId("order-status")).toHaveText("待支付");
  await noHorizontalScroll(admin);
  await admin.getByRole("button", { name: "查单" }).click();
  await expect(admin.getByTestId("notice")).toHaveText("订单已入账");
  await expect(admin.getByTestId("order-status")).toHaveText("已支付（查单入账）");
  await admin.getByTestId("order-facts").getByRole("link").first().click();
  await expect(admin.getByTestId("user-credits")).toHaveText("10");
  await expect(admin.getByTestId("user-credit-ledger")).toContainText("在线充值");
  await context.close();
});
