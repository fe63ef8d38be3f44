import { expect, test, waitForLive } from "./fixtures";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { fundedBuyer, marker, newAuthor, publishWork, savePayoutAccount, shownBalance } from "./reader-helpers";

/**
 * The serial economy as issue 16's "done when" reads (docs/product.md#paying-by-chapter,
 * #author-income): a reader reads the ten free chapters, buys chapter 11 (it opens in
 * place), turns on 自动订阅 (chapter 12) and gets the rest (with JavaScript 自动订阅 buys
 * each as it is opened; without it, 购买全部); the author's open
 * 我的收入 page shows each sale as it lands (live with JavaScript; without it on reload);
 * the author asks for a payout that an administrator pays. With and without JavaScript.
 * That the ledger reconciles after the whole run is checked by the e2e teardown
 * (tests/e2e/fixtures/ledger-teardown.ts); the rules themselves are tested on the server
 * (tests/integration/chapter-sales.test.ts, author-income.test.ts).
 */
test("a reader reads 10 free chapters, buys 11, subscribes, buys the rest; the author earns and is paid out @nojs", async ({
  page,
  browser,
  context,
  logInAs,
  visit,
  facts,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  // A whole journey: 40-60 s on a slow 2-core CI machine (machine L, docs/benchmarks.md), near the default 60 s.
  test.slow();
  const buyer = fundedBuyer(facts, javaScriptEnabled ? 6 : 7);
  const author = await newAuthor(playwright, baseURL!);
  const secret = marker("vip");
  // About 2,300 字 a VIP chapter at 20 per 1,000 字: 46 credits each (the page tells).
  const long = "字".repeat(1990);
  const free = Array.from({ length: 10 }, (_, i) => ({ title: `第${i + 1}章 试读`, paragraphs: [`试读正文${i + 1}`] }));
  const vip = [11, 12, 13, 14].map((n) => ({
    title: `第${n}章 付费`,
    paragraphs: [`开头一句${"文".repeat(300)}`, `正文 ${secret}-${n}`, long],
  }));
  const id = await publishWork(author, { title: `按章 ${marker("serial")}`, chapters: [...free, ...vip] });
  const origin = new URL(baseURL!).origin;
  const priced = await author.request.post(`/works/${id}/pricing`, {
    form: { mode: "chapter", vipFrom: "11", pricePerThousand: "20" },
    headers: { Origin: origin, Referer: `${origin}/` },
    maxRedirects: 0,
  });
  expect(priced.status()).toBe(302);
  // The author's 我的作品 card leads to the pricing page instead of the whole-price form,
  // which would sell the work whole again.
  const myWorks = await (await author.request.get("/my-works")).text();
  expect(myWorks).toContain(`href="/works/${id}/pricing"`);
  expect(myWorks).not.toMatch(/修改价格|设为付费/);

  // The author keeps 我的收入 open in a browser of their own.
  const studio = await browser.newContext({ javaScriptEnabled });
  try {
    await studio.addCookies((await author.request.storageState()).cookies);
    const incomePage = await studio.newPage();
    await visit("/income", incomePage);
    if (javaScriptEnabled) await waitForLive(incomePage);
    const balance = incomePage.getByTestId("income-balance");
    await expect(balance).toHaveText("0");
    /** The balance the author sees: by itself with JavaScript, on a reload without. */
    const authorSees = async (expected: number) => {
      if (!javaScriptEnabled) await visit("/income", incomePage);
      await expect(balance).toHaveText(String(expected));
    };

    await logInAs(context, buyer);
    await visit(`/works/${id}`);
    const before = await shownBalance(page);
    const toc = page.getByTestId("toc-list");
    await expect(toc.locator("[data-mark=free]")).toHaveCount(10);
    await expect(toc.locator("[data-mark=locked]")).toHaveCount(4);
    for (let n = 1; n <= 10; n++) {
      await visit(`/works/${id}?chapter=${n}`);
      await expect(page.getByText(`试读正文${n}`, { exact: true })).toBeVisible();
    }

    await visit(`/works/${id}?chapter=11`);
    const locked = page.getByTestId("locked-chapter");
    await expect(locked).toContainText(/本章价格：\d+ 积分/);
    const price = Number(/本章价格：(\d+) 积分/.exec((await locked.textContent()) ?? "")![1]);
    expect(price).toBeGreaterThanOrEqual(40);
    await expect(locked.getByRole("button", { name: `购买全部（4 章，${price * 4} 积分）` })).toBeVisible();
    expect(await page.content()).not.toContain(secret);
    await locked.getByRole("button", { name: `购买本章（${price} 积分）` }).click();
    await expect(page.getByText(`正文 ${secret}-11`)).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: `已购买本章，花费 ${price} 积分` })).toBeVisible();
    // Each sale credits 70% (the default share), rounded down.
    const share = (credits: number) => Math.floor(credits * 0.7);
    let earned = share(price);
    await authorSees(earned);

    await visit(`/works/${id}?chapter=12`);
    await page.getByRole("button", { name: "开启自动订阅" }).click();
    if (!javaScriptEnabled) {
      await expect(page.getByTestId("auto-subscribe-state")).toHaveText("已开启");
      await page.getByRole("button", { name: `购买本章（${price} 积分）` }).click();
    }
    // With JavaScript the page buys it on its own once 自动订阅 is on.
    await expect(page.getByText(`正文 ${secret}-12`)).toBeVisible();
    earned += share(price);
    await authorSees(earned);

    // The rest: with JavaScript 自动订阅 buys each chapter as the reader opens it; without
    // it the reader buys both at once with 购买全部.
    await visit(`/works/${id}?chapter=13`);
    if (javaScriptEnabled) {
      for (const n of [13, 14]) {
        if (n === 14) await page.getByRole("link", { name: "下一章" }).first().click();
        await expect(page.getByText(`正文 ${secret}-${n}`)).toBeVisible();
        await expect(page.getByRole("status").filter({ hasText: `自动订阅：已购买本章，花费 ${price} 积分` })).toBeVisible();
        earned += share(price);
      }
    } else {
      await page.getByRole("button", { name: `购买全部（2 章，${price * 2} 积分）` }).click();
      await expect(page.getByRole("status").filter({ hasText: `已购买全部 2 章，花费 ${price * 2} 积分` })).toBeVisible();
      await expect(page.getByText(`正文 ${secret}-13`)).toBeVisible();
      await visit(`/works/${id}?chapter=14`);
      await expect(page.getByText(`正文 ${secret}-14`)).toBeVisible();
      earned += share(price * 2);
    }
    await authorSees(earned);

    await visit(`/works/${id}`);
    await expect(toc.locator("[data-mark=owned]")).toHaveCount(4);
    await expect(toc.locator("[data-mark=locked]")).toHaveCount(0);
    expect(await shownBalance(page)).toBe(before - price * 4);

    // The author asks for a payout of 100 (the default minimum); it is held at once.
    expect(earned).toBeGreaterThanOrEqual(100);
    // Paid to the author's saved card (decision 210); its bank name is the row's marker.
    const payee = `银行${marker("payee")}`;
    await savePayoutAccount(incomePage.request, baseURL!, payee);
    await visit("/income", incomePage);
    await incomePage.getByLabel("金额（不低于 100）").fill("100");
    await incomePage.getByRole("button", { name: "提交申请" }).click();
    await expect(incomePage.getByText(/提现申请 #\d+ 已提交，金额已冻结，等待处理/)).toBeVisible();
    await expect(balance).toHaveText(String(earned - 100));
    const ledger = incomePage.getByTestId("income-ledger");
    await expect(ledger.getByRole("cell", { name: "提现申请", exact: true })).toBeVisible();

    // An administrator pays it.
    const admin = await browser.newContext({ javaScriptEnabled });
    try {
      await admin.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, await adminSession(baseURL!))]);
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
    await visit("/income", incomePage);
    await expect(ledger.getByRole("cell", { name: "提现完成", exact: true })).toBeVisible();
    await expect(balance).toHaveText(String(earned - 100));
  } finally {
    await studio.close();
  }
});
