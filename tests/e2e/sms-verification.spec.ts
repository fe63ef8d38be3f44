import fs from "node:fs";
import path from "node:path";
import { randomInt } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { runDir } from "./fixtures/facts";
import { marker, newAuthor, publishWork } from "./reader-helpers";

/**
 * 后台实名 (docs/product.md#phone-verification, decision 235) on a phone, with and without
 * JavaScript: the operator turns the switch on; a commenter without a bound phone is asked
 * for one instead of the comment box, binds it with the code the server wrote to
 * DATA_DIR/outbox/sms/ (no SMS_URL on the e2e site), is brought back and comments.
 *
 * The switch holds for the whole site, so this spec runs in its own projects after every
 * other spec (playwright.config.ts, SITE_SWITCHES); it leaves the switch on.
 */
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

/** The code of the newest outbox message to `phone` (the e2e server's DATA_DIR). */
function outboxCode(phone: string): string | null {
  const dir = path.join(runDir(), "data", "outbox", "sms");
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).sort().reverse() : [];
  for (const file of files) {
    const message = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as { phone: string; text: string };
    if (message.phone === phone) return /(\d{6})/.exec(message.text)?.[1] ?? null;
  }
  return null;
}

async function expectNoSideways(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
}

test("a commenter without a bound phone is asked for one, binds it with the code from the outbox, then comments", { tag: "@nojs" }, async ({
  browser,
  baseURL,
  loggedInPage: page,
  visit,
  playwright,
  javaScriptEnabled,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("sms");
  const workId = await publishWork(author, { title: `实名 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}开头。`, `${text}结尾。`] }] });

  // The operator turns 评论实名 on (the back office's site settings).
  const session = await adminSession(baseURL!);
  const adminContext = await browser.newContext({ baseURL });
  try {
    await adminContext.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, session)]);
    const admin = await adminContext.newPage();
    await admin.goto("/admin/settings/site");
    await admin.getByRole("checkbox", { name: /须绑定手机号/ }).check();
    await admin.getByRole("button", { name: "保存评论实名", exact: true }).click();
    await expect(admin.getByRole("checkbox", { name: /须绑定手机号/ })).toBeChecked();
    await expect(admin.getByTestId("sms-transport")).toContainText("DATA_DIR/outbox/sms/");
  } finally {
    await adminContext.close();
  }

  // No box to write in: the message and the way to bind a phone.
  const thread = `/works/${workId}/comments?chapter=1`;
  await visit(thread);
  await expect(page.getByTestId("phone-needed")).toContainText("发表评论前请先绑定手机号");
  await expect(page.getByRole("textbox", { name: "评论内容" })).toHaveCount(0);
  await expectNoSideways(page);
  await page.getByRole("link", { name: "绑定手机号", exact: true }).click();

  await expect(page.getByRole("heading", { name: "绑定手机号" })).toBeVisible();
  await expect(page.getByTestId("phone-status")).toHaveText("未绑定手机号");
  await page.getByRole("textbox", { name: /^手机号/ }).fill("1380013800");
  await page.getByRole("button", { name: "获取验证码", exact: true }).click();
  await expect(page.getByText("请输入正确的 11 位中国大陆手机号")).toBeVisible();

  const phone = `139${String(randomInt(0, 100_000_000)).padStart(8, "0")}`;
  await page.getByRole("textbox", { name: /^手机号/ }).fill(phone);
  await page.getByRole("button", { name: "获取验证码", exact: true }).click();
  await expect(page.getByTestId("phone-pending")).toContainText(`${phone.slice(0, 3)}****${phone.slice(7)}`);
  await expectNoSideways(page);
  // axe runs as a script: with JavaScript only.
  if (javaScriptEnabled) await expectNoSeriousViolations(page, "/settings/phone");
  let code: string | null = null;
  await expect.poll(() => (code = outboxCode(phone))).not.toBeNull();

  // A wrong code first: the tries left are said.
  await page.getByRole("textbox", { name: /^验证码/ }).fill(code === "000000" ? "000001" : "000000");
  await page.getByRole("button", { name: "绑定", exact: true }).click();
  await expect(page.getByText("验证码错误，还可以再试 4 次")).toBeVisible();

  await page.getByRole("textbox", { name: /^验证码/ }).fill(code!);
  await page.getByRole("button", { name: "绑定", exact: true }).click();

  // Back on the thread, with its box.
  await expect(page).toHaveURL(new RegExp(`/works/${workId}/comments\\?chapter=1$`));
  await expect(page.getByTestId("phone-needed")).toHaveCount(0);
  await page.getByRole("textbox", { name: "评论内容" }).fill("绑定手机号之后的第一条评论");
  await page.getByRole("button", { name: "发表", exact: true }).click();
  await expect(page.getByTestId("posted-notice")).toHaveText("评论已发表。");
  await expect(page.getByTestId("comment").first().locator(".comment-body")).toHaveText("绑定手机号之后的第一条评论");
});
