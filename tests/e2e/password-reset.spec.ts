import fs from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import { expect, test } from "./fixtures";
import { expectLoginDialog, expectSignedIn } from "./fixtures/auth-dialog";

/**
 * docs/product.md: Accounts (forgot password). The e2e server has no SMTP_URL, so its
 * mails land in DATA_DIR/outbox as they would on a site without a relay; the test opens
 * the mail sent to its own account there, as the user would open it in their mailbox.
 */
const outbox = path.join(process.env.INKSTONE_E2E_RUN_DIR!, "data", "outbox");

async function resetLinkMailedTo(email: string): Promise<string> {
  let link = "";
  await expect
    .poll(
      async () => {
        const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith(".eml")) : [];
        for (const file of files) {
          const mail = await simpleParser(fs.readFileSync(path.join(outbox, file)));
          const to = mail.to && !Array.isArray(mail.to) ? mail.to.text : "";
          if (to === email) link = mail.text?.match(/http:\/\/\S+\/auth\/reset-password\?token=\S+/)?.[0] ?? "";
        }
        return link;
      },
      { timeout: 15_000 },
    )
    .not.toBe("");
  return link;
}

// A phone: every step must fit 390 px.
test.use({ viewport: { width: 390, height: 844 } });

test("a forgotten password is reset by the link in the mail; the old sessions end", { tag: "@nojs" }, async ({
  page,
  visit,
  user,
  browser,
  logInAs,
  baseURL,
}) => {
  // Signed in elsewhere with the old password.
  const otherDevice = await browser.newContext({ baseURL });
  await logInAs(otherDevice, user);

  await visit("/?auth=login");
  const dialog = await expectLoginDialog(page);
  await dialog.getByRole("link", { name: "忘记密码？" }).click();
  await expect(page.getByRole("heading", { name: "忘记密码" })).toBeVisible();
  await page.getByLabel("邮箱").fill(user.email);
  await page.getByRole("button", { name: "发送重置链接" }).click();
  await expect(page.getByRole("status")).toHaveText("如果该邮箱已注册，我们已发送重置链接，请在30分钟内查收");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  const link = await resetLinkMailedTo(user.email);
  expect(new URL(link).origin).toBe(new URL(baseURL!).origin);
  await visit(link);
  await expect(page.getByRole("heading", { name: "重置密码" })).toBeVisible();
  const newPassword = `${user.password}-new`;
  await page.getByLabel("新密码", { exact: true }).fill(newPassword);
  await page.getByLabel("确认新密码").fill(`${newPassword}x`);
  await page.getByRole("button", { name: "重置密码" }).click();
  await expect(page.getByText("两次输入的新密码不一致")).toBeVisible();
  await page.getByLabel("新密码", { exact: true }).fill(newPassword);
  await page.getByLabel("确认新密码").fill(newPassword);
  await page.getByRole("button", { name: "重置密码" }).click();

  const login = await expectLoginDialog(page);
  await expect(login.getByRole("status")).toHaveText("密码已重置，请用新密码登录");
  await expect(login.getByLabel("邮箱")).toHaveValue(user.email);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await login.getByLabel("密码").fill(newPassword);
  await login.getByRole("button", { name: "登录", exact: true }).click();
  await expectSignedIn(page, 0);

  // The other device was signed out; the link does not work twice.
  const other = await otherDevice.newPage();
  await other.goto("/credits");
  await expectLoginDialog(other);
  await otherDevice.close();
  await visit(link);
  await expect(page.getByRole("alert")).toHaveText("该重置链接已使用过，请重新申请");
  await page.getByRole("link", { name: "重新申请重置链接" }).click();
  await expect(page.getByRole("heading", { name: "忘记密码" })).toBeVisible();
});
