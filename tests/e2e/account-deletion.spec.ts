import { expect, test } from "./fixtures";

/**
 * 注销账号 (issue 31 part 5, decision 231): a person asks to delete their account from the
 * settings (a wrong password refused first), sees when it will happen on every page, and
 * 撤销 from the banner keeps the account. With and without JavaScript. The erasure after the
 * cool-off, the refusals and the export are tested on the server:
 * tests/integration/account-deletion.test.ts and my-data-export.test.ts.
 */
test("a person asks to delete their account, sees the notice on every page, and cancels it @nojs", async ({ page, context, user, logInAs, visit }) => {
  await logInAs(context, user);
  await visit("/settings");
  await expect(page.getByRole("link", { name: /导出我的数据/ })).toHaveAttribute("href", "/exports/my-data.zip");
  await page.getByRole("link", { name: /注销账号/ }).click();
  await expect(page.getByRole("heading", { name: "注销账号", exact: true })).toBeVisible();
  await expect(page.getByText(/剩余 \d+ 积分和 .* Tokens 将作废/)).toBeVisible();

  // A wrong password: refused with its message, nothing filed.
  await page.getByRole("radio", { name: /^保留/ }).check();
  await page.getByLabel("当前密码").fill("not-the-password");
  await page.getByRole("checkbox", { name: /我已了解注销的后果/ }).check();
  await page.getByRole("button", { name: "申请注销账号", exact: true }).click();
  await expect(page.getByText("密码错误，注销申请未提交")).toBeVisible();
  await expect(page.getByTestId("deletion-banner")).toHaveCount(0);

  await page.getByRole("radio", { name: /^保留/ }).check();
  await page.getByLabel("当前密码").fill(user.password);
  await page.getByRole("checkbox", { name: /我已了解注销的后果/ }).check();
  await page.getByRole("button", { name: "申请注销账号", exact: true }).click();
  await expect(page.getByText(/^注销申请已提交，账号将于 .* 删除/)).toBeVisible();
  await expect(page.getByTestId("deletion-status")).toContainText("作者名显示为“已注销用户”");

  // Every page says when, and offers 撤销.
  await visit("/");
  const banner = page.getByTestId("deletion-banner");
  await expect(banner).toContainText(/账号将于 \d{4}-\d{2}-\d{2} \d{2}:\d{2} 删除/);
  await banner.getByRole("button", { name: "撤销注销", exact: true }).click();
  await expect(page.getByText("已撤销注销申请，账号将继续保留")).toBeVisible();
  await expect(page.getByTestId("deletion-banner")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "申请注销账号", exact: true })).toBeVisible();
});
