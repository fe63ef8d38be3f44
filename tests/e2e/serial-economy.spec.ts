import { expect, test } from "./fixtures";
import { ADMIN_COOKIE, claimAdminSession, poolCookie } from "./fixtures/account-pool";
import { buyWhole, fundedBuyer, marker, newAuthor, publishWork, setPrice } from "./reader-helpers";

/**
 * Paying by chapter in the browser (docs/product.md#paying-by-chapter): the reader reads the
 * free chapter, buys a VIP chapter (it opens in place), turns on 自动订阅 and the next VIP
 * chapter is bought with JavaScript by the page itself, without it by one press. The
 * author's income shows it. The rules themselves are tested on the server
 * (tests/integration/chapter-sales.test.ts, chapter-reader.test.ts).
 */
test("a reader reads free, buys chapter 2, turns on 自动订阅 and gets chapter 3; the author earns @nojs", async ({
  page,
  context,
  logInAs,
  visit,
  facts,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const buyer = fundedBuyer(facts, javaScriptEnabled ? 6 : 7);
  const author = await newAuthor(playwright, baseURL!);
  const secret = marker("vip");
  // About 2,300 字 a chapter at 5 per 1,000 字: 12 credits each (the page tells the price).
  const long = "字".repeat(1990);
  const id = await publishWork(author, {
    title: `按章 ${marker("serial")}`,
    chapters: [
      { title: "第一章 试读", paragraphs: ["免费的开头", long] },
      { title: "第二章 付费", paragraphs: [`开头一句${"文".repeat(300)}`, `正文 ${secret}2`, long] },
      { title: "第三章 付费", paragraphs: [`开头一句${"文".repeat(300)}`, `正文 ${secret}3`, long] },
    ],
  });
  const origin = new URL(baseURL!).origin;
  const priced = await author.request.post(`/works/${id}/pricing`, {
    form: { mode: "chapter", vipFrom: "2", pricePerThousand: "5" },
    headers: { Origin: origin, Referer: `${origin}/` },
    maxRedirects: 0,
  });
  expect(priced.status()).toBe(302);
  // The author's 我的作品 card leads to the pricing page instead of the whole-price form,
  // which would sell the work whole again.
  const myWorks = await (await author.request.get("/my-works")).text();
  expect(myWorks).toContain(`href="/works/${id}/pricing"`);
  expect(myWorks).not.toMatch(/修改价格|设为付费/);
  await logInAs(context, buyer);

  await visit(`/works/${id}`);
  const toc = page.getByTestId("toc-list");
  await expect(toc.locator("[data-mark=free]")).toHaveCount(1);
  await expect(toc.locator("[data-mark=locked]")).toHaveCount(2);

  await visit(`/works/${id}?chapter=2`);
  const locked = page.getByTestId("locked-chapter");
  await expect(locked).toContainText(/本章价格：\d+ 积分/);
  const price = Number(/本章价格：(\d+) 积分/.exec((await locked.textContent()) ?? "")![1]);
  expect(price).toBeGreaterThanOrEqual(10);
  await expect(locked.getByRole("button", { name: `购买全部（2 章，${price * 2} 积分）` })).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  await locked.getByRole("button", { name: `购买本章（${price} 积分）` }).click();
  await expect(page.getByText(`正文 ${secret}2`)).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: `已购买本章，花费 ${price} 积分` })).toBeVisible();

  await visit(`/works/${id}?chapter=3`);
  await page.getByRole("button", { name: "开启自动订阅" }).click();
  if (!javaScriptEnabled) {
    await expect(page.getByTestId("auto-subscribe-state")).toHaveText("已开启");
    await page.getByRole("button", { name: `购买本章（${price} 积分）` }).click();
  }
  // With JavaScript the page buys it on its own once 自动订阅 is on.
  await expect(page.getByText(`正文 ${secret}3`)).toBeVisible();

  await visit(`/works/${id}`);
  await expect(toc.locator("[data-mark=owned]")).toHaveCount(2);
  const income = await author.request.get("/income");
  // Two sales at 70%, each rounded down.
  expect(await income.text()).toContain(`data-testid="income-balance">${2 * Math.floor(price * 0.7)}<`);
});

/**
 * The author's side of the money (docs/product.md#author-income): a sale's share shows on
 * 我的收入, the author asks for a payout (held at once), and an administrator marks it paid
 * in the back office; the author's ledger then shows 提现完成. With and without JavaScript.
 */
test("an author asks for a payout of their income and an administrator pays it @nojs", async ({
  page,
  browser,
  visit,
  facts,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const buyer = fundedBuyer(facts, javaScriptEnabled ? 4 : 5);
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, { title: `提现 ${marker("payout")}`, chapters: [{ title: "第一章", paragraphs: ["付费的正文"] }] });
  // A whole-work sale of 150 credits: 105 to the author at the default 70%, over the
  // default payout minimum of 100.
  await setPrice(author, id, 150);
  await buyWhole(playwright, baseURL!, buyer, id);

  // The author, in the browser.
  await page.context().addCookies((await author.request.storageState()).cookies);
  await visit("/income");
  await expect(page.getByTestId("income-balance")).toHaveText("105");
  await page.getByLabel("金额（不低于 100）").fill("100");
  const payee = `支付宝 ${marker("payee")}`;
  await page.getByLabel(/^收款信息/).fill(payee);
  await page.getByRole("button", { name: "提交申请" }).click();
  await expect(page.getByText(/提现申请 #\d+ 已提交，金额已冻结，等待处理/)).toBeVisible();
  await expect(page.getByTestId("income-balance")).toHaveText("5");
  const ledger = page.getByTestId("income-ledger");
  await expect(ledger.getByRole("cell", { name: "提现申请", exact: true })).toBeVisible();

  // An administrator pays it.
  const session = claimAdminSession();
  expect(session, "an administrator session from the seed's pool").toBeTruthy();
  const admin = await browser.newContext({ javaScriptEnabled });
  try {
    await admin.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, session!)]);
    const office = await admin.newPage();
    await office.goto(`${baseURL}/admin/payouts`);
    const row = office.getByRole("row").filter({ hasText: payee });
    await expect(row).toContainText("待处理");
    await row.getByRole("textbox", { name: /付款凭证号/ }).fill("ZFB-2026-0001");
    await row.getByRole("button", { name: "标记已支付" }).click();
    await expect(office.getByRole("status")).toHaveText("已标记为已支付");
    // It leaves the 待处理 list and shows among the paid ones, with its reference.
    await expect(office.getByRole("row").filter({ hasText: payee })).toHaveCount(0);
    await office.goto(`${baseURL}/admin/payouts?status=paid`);
    await expect(office.getByRole("row").filter({ hasText: payee })).toContainText("已支付（ZFB-2026-0001）");
  } finally {
    await admin.close();
  }
  await visit("/income");
  await expect(ledger.getByRole("cell", { name: "提现完成", exact: true })).toBeVisible();
  await expect(page.getByTestId("income-balance")).toHaveText("5");
});
