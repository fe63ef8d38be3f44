/**
 * 实名认证 in a real browser (docs/product.md#author-identity, decision 204): an author
 * submits a legal name and a 居民身份证号, sees 审核中 with masked values; a 运营 admin opens
 * the submission from the queue (masked there too) and approves it; the author sees 已通过,
 * still masked.
 */
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { newAdminContext } from "./fixtures/new-admin";
import { marker } from "./reader-helpers";

test("an author submits 实名认证, an operator approves it, the author sees 已通过 with masked values", async ({ browser, baseURL, loggedInPage: page, user, visit }) => {
  await visit("/settings/identity");
  await expect(page.getByTestId("identity-status")).toContainText("未提交");
  await page.getByLabel("真实姓名").fill("张三");
  await page.getByLabel("证件号码").fill("11010519491231002x");
  await page.getByRole("button", { name: "提交认证" }).click();
  await expect(page.getByTestId("identity-status")).toContainText("审核中");
  await expect(page.getByTestId("identity-name")).toHaveText("张*");
  await expect(page.getByTestId("identity-number")).toHaveText("1101**********002X");
  await expectNoSeriousViolations(page, "/settings/identity");

  const { context } = await newAdminContext(browser, baseURL!, { role: "operator", label: marker("identity") });
  let itemPath = "";
  try {
    const admin = await context.newPage();
    await admin.goto("/admin/identity");
    const row = admin.getByTestId("identity-row").filter({ hasText: user.email });
    await expect(row).toContainText("张* · 1101**********002X");
    await row.getByRole("link").click();
    await expect(admin.getByTestId("identity-number")).toHaveText("1101**********002X");
    itemPath = new URL(admin.url()).pathname;
    await expectNoSeriousViolations(admin, "/admin/identity/:id");
    await expect(admin.getByRole("link", { name: /查看完整信息/ })).toHaveCount(0);
    await admin.getByRole("button", { name: "通过" }).click();
    await expect(admin.getByTestId("notice")).toHaveText("已通过实名认证");
  } finally {
    await context.close();
  }

  await visit("/settings/identity");
  await expect(page.getByTestId("identity-status")).toContainText("已通过");
  await expect(page.getByTestId("identity-name")).toHaveText("张*");
  await expect(page.getByTestId("identity-number")).toHaveText("1101**********002X");
  await expect(page.getByRole("button", { name: "提交认证" })).toHaveCount(0);

  // The 超级管理员 sees the full values once, for a reason.
  const session = await adminSession(baseURL!);
  const superContext = await browser.newContext({ baseURL });
  try {
    await superContext.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, session)]);
    const admin = await superContext.newPage();
    await admin.goto(`${itemPath}/reveal`);
    await expect(admin.getByTestId("reveal-number")).toHaveText("1101**********002X");
    await expectNoSeriousViolations(admin, "/admin/identity/:id/reveal");
    await admin.getByLabel(/查看原因/).fill("核对作者提现姓名");
    await admin.getByRole("button", { name: "查看完整信息" }).click();
    await expect(admin.getByTestId("reveal-number")).toHaveText("11010519491231002X");
    await expect(admin.getByTestId("reveal-name")).toHaveText("张三");
  } finally {
    await superContext.close();
  }
});
