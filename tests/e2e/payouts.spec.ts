/**
 * Payouts with tax and statements in a real browser (docs/product.md#author-income, decisions
 * 209 and 210): a verified author saves a bank card (a wrong Luhn digit first), asks for a
 * payout of 1,400 from two sales, an operator pays it from 提现申请 (where the full number
 * shows), and the author's 结算单 shows 应发 1,400.00, 代扣个税 120.00 and 实发 1,280.00
 * (劳务报酬所得: (1,400 − 800) × 20%), and a 超级管理员's finance export (资金报表 → 提现与代扣个税,
 * CSV) shows the same gross, tax and net (decision 226). With and without JavaScript.
 */
import { readFile } from "node:fs/promises";
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { newAdminContext } from "./fixtures/new-admin";
import { buyWhole, E2E_CARD, fundedBuyer, marker, publishWork, sameOrigin, setPrice, type Author } from "./reader-helpers";

test("a verified author saves a card, asks for a payout, an operator pays it, the statement shows gross, tax and net @nojs", async ({
  browser,
  baseURL,
  loggedInPage: page,
  user,
  visit,
  facts,
  playwright,
  javaScriptEnabled,
}) => {
  // A whole journey: 40-60 s on a slow 2-core CI machine (machine L, docs/benchmarks.md), near the default 60 s.
  test.slow();
  const author: Author = { credentials: user, request: page.request, baseURL: baseURL! };
  const label = marker("pay");
  const bank = `银行${label}`;
  const { context: office } = await newAdminContext(browser, baseURL!, { role: "operator", label, javaScriptEnabled });
  try {
    const admin = await office.newPage();
    // 实名认证: submitted by the author, approved by the operator.
    const sent = await page.request.post("/settings/identity", {
      form: { documentType: "resident_id", legalName: "张三", documentNumber: "11010519491231002X", birthDate: "" },
      headers: sameOrigin(baseURL!),
      maxRedirects: 0,
    });
    expect(sent.status()).toBe(302);
    await admin.goto("/admin/identity");
    await admin.getByTestId("identity-row").filter({ hasText: user.email }).getByRole("link").click();
    await admin.getByRole("button", { name: "通过" }).click();
    await expect(admin.getByTestId("notice")).toHaveText("已通过实名认证");

    // Two readers buy the work whole at 1,000: 700 each to the author.
    const workId = await publishWork(author, { title: `提现 ${label}`, chapters: [{ title: "第一章", paragraphs: ["付费的正文"] }] });
    await setPrice(author, workId, 1000);
    for (const slot of javaScriptEnabled ? [8, 9] : [10, 11]) await buyWhole(playwright, baseURL!, fundedBuyer(facts, slot), workId);

    // The card, first with a wrong check digit.
    await visit("/income/account");
    await page.getByLabel(/^银行卡号或支付宝账号/).fill("6222 0212 3456 7890 127");
    await page.getByLabel(/^开户银行/).fill(bank);
    await page.getByLabel(/^户名/).fill("张三");
    await page.getByRole("button", { name: "保存收款账户" }).click();
    await expect(page.getByText("银行卡号校验位不正确，请核对")).toBeVisible();
    await page.getByLabel(/^银行卡号或支付宝账号/).fill(E2E_CARD);
    await page.getByLabel(/^开户银行/).fill(bank);
    await page.getByLabel(/^户名/).fill("张三");
    await page.getByRole("button", { name: "保存收款账户" }).click();
    await expect(page.getByTestId("payout-account-number")).toHaveText("6222 **** **** 0128");
    expect(await page.content()).not.toContain(E2E_CARD);

    await visit("/income");
    await expect(page.getByTestId("payout-account-line")).toContainText("6222 **** **** 0128");
    await page.getByLabel("金额（不低于 100）").fill("1400");
    await page.getByRole("button", { name: "提交申请" }).click();
    await expect(page.getByText(/提现申请 #\d+ 已提交，金额已冻结，等待处理/)).toBeVisible();

    // The operator pays it: the pending row shows the full number to type into the bank.
    await admin.goto("/admin/payouts");
    const row = admin.getByRole("row").filter({ hasText: bank });
    await expect(row.getByTestId("payout-account-full")).toHaveText(`账号：${E2E_CARD}`);
    await row.getByRole("textbox", { name: /付款凭证号/ }).fill(`BANK-${label}`);
    await row.getByRole("button", { name: "标记已支付" }).click();
    await expect(admin.getByRole("status")).toHaveText("已标记为已支付");
    await admin.goto("/admin/payouts?status=paid");
    await admin.getByRole("row").filter({ hasText: bank }).getByRole("link", { name: /^#\d+$/ }).click();
    await expect(admin.getByTestId("statement-tax")).toHaveText("120.00");
    // axe runs in the page: with JavaScript on only.
    if (javaScriptEnabled) await expectNoSeriousViolations(admin, "/admin/payouts/:id");
    const payoutId = new URL(admin.url()).pathname.split("/").pop();

    // The finance export (超级管理员 only) of the last 30 days has the payout with the same figures.
    const finance = await browser.newContext({ baseURL, javaScriptEnabled, acceptDownloads: true });
    try {
      await finance.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, await adminSession(baseURL!))]);
      const money = await finance.newPage();
      await money.goto("/admin/money");
      await money.getByLabel("导出报表").selectOption("payouts");
      await money.getByLabel("CSV").check();
      const [download] = await Promise.all([money.waitForEvent("download"), money.getByRole("button", { name: "导出", exact: true }).click()]);
      expect(download.suggestedFilename()).toMatch(/^资金报表-提现与代扣个税-\d{4}-\d{2}-\d{2}至\d{4}-\d{2}-\d{2}\.csv$/);
      const lines = (await readFile((await download.path())!, "utf8")).split("\r\n");
      const row = lines.find((l) => l.startsWith(`支付,${payoutId},`));
      expect(row).toMatch(new RegExp(`,已支付,.*,劳务报酬所得,1400\\.00,120\\.00,1280\\.00,BANK-${label}$`));
    } finally {
      await finance.close();
    }
  } finally {
    await office.close();
  }

  // The author's statement.
  await visit("/income");
  await page.locator(".income-payouts").getByRole("link", { name: /^#\d+$/ }).first().click();
  await expect(page.getByTestId("statement-status")).toHaveText("已支付");
  await expect(page.getByTestId("statement-gross")).toHaveText("1,400.00");
  await expect(page.getByTestId("statement-tax")).toHaveText("120.00");
  await expect(page.getByTestId("statement-net")).toHaveText("1,280.00");
  await expect(page.getByTestId("payout-statement")).toContainText("劳务报酬所得");
  await expect(page.getByTestId("payout-statement")).not.toContainText(E2E_CARD);
  if (javaScriptEnabled) await expectNoSeriousViolations(page, "/income/payouts/:id");
});
