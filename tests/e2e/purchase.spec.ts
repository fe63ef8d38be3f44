import type { Page } from "@playwright/test";
import { expect, test, waitForLive } from "./fixtures";
import { expectLoginDialog } from "./fixtures/auth-dialog";
import { fundedBuyer, marker, newAuthor, publishWork, setPrice, shownBalance, type Author } from "./reader-helpers";

const nojs = { tag: "@nojs" };

/** A paid work whose chapter text holds `secret`; returns its id. */
async function paidWork(author: Author, secret: string, price: number) {
  const id = await publishWork(author, {
    title: `付费 ${marker("paid")}`,
    chapters: [
      { title: "第一章 付费", paragraphs: [`正文 ${secret}`, "第二段"] },
      { title: "第二章 付费", paragraphs: [`续章 ${secret}`] },
    ],
  });
  await setPrice(author, id, price);
  return id;
}

function purchaseDialog(page: Page) {
  return page.getByRole("dialog", { name: "购买作品" });
}

test("a buyer buys through the dialog (购买中..., 购买成功) and the work opens", async ({
  page,
  context,
  logInAs,
  visit,
  facts,
  playwright,
  baseURL,
}) => {
  const buyer = fundedBuyer(facts, 0);
  const author = await newAuthor(playwright, baseURL!);
  const secret = marker("secret");
  const id = await paidWork(author, secret, 15);
  await logInAs(context, buyer);

  await visit(`/works/${id}`);
  const paywall = page.getByTestId("paywall");
  await expect(paywall).toContainText("价格：15 积分");
  await expect(page.getByTestId("toc-list").getByRole("link")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
  const before = await shownBalance(page);

  await paywall.getByRole("link", { name: "购买作品" }).click();
  const dialog = purchaseDialog(page);
  await expect(dialog).toContainText("确认花费 15 积分购买");
  // The one modal dialog: focus moves in (its first action), and Escape closes it and
  // gives focus back to the link that opened it.
  await expect(dialog.getByRole("link", { name: "取消" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(purchaseDialog(page)).toHaveCount(0);
  await expect(paywall.getByRole("link", { name: "购买作品" })).toBeFocused();
  await paywall.getByRole("link", { name: "购买作品" }).click();
  // Hold the purchase until the processing state has been seen.
  let letThrough!: () => void;
  const held = new Promise<void>((resolve) => (letThrough = resolve));
  await page.route(new RegExp(`/works/${id}(\\.data)?\\?purchase=1`), async (route) => {
    if (route.request().method() === "POST") await held;
    await route.continue();
  });
  await dialog.getByRole("button", { name: "确认购买" }).click();
  await expect(dialog.getByRole("button", { name: "购买中..." })).toBeDisabled();
  // While the purchase runs the dialog cannot be closed.
  await expect(dialog.getByRole("link", { name: "关闭" })).toHaveCount(0);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeVisible();
  letThrough();
  await expect(dialog.getByText("购买成功，正在打开作品...")).toBeVisible();

  await expect(page).toHaveURL(`/works/${id}`);
  await expect(purchaseDialog(page)).toHaveCount(0);
  await expect(page.getByTestId("paywall")).toHaveCount(0);
  await expect(page.getByTestId("credits-balance")).toHaveText(String(before - 15));
  await page.getByRole("link", { name: "开始阅读" }).click();
  await expect(page.getByTestId("chapter-text")).toContainText(secret);

  await visit("/purchased");
  await expect(page.getByTestId("library-card").getByRole("heading")).toHaveText([/付费 paid/]);
  await expect(page.getByTestId("library-card").getByRole("link", { name: "继续阅读" })).toHaveAttribute(
    "href",
    `/works/${id}?chapter=1#p-0`,
  );
});

test("the purchase form works without JavaScript: post, then the opened work", nojs, async ({
  page,
  context,
  logInAs,
  visit,
  facts,
  javaScriptEnabled,
  playwright,
  baseURL,
}) => {
  const buyer = fundedBuyer(facts, javaScriptEnabled ? 1 : 2);
  const author = await newAuthor(playwright, baseURL!);
  const secret = marker("secret");
  const id = await paidWork(author, secret, 8);
  await logInAs(context, buyer);

  await visit(`/works/${id}`);
  const before = await shownBalance(page);
  await page.getByTestId("paywall").getByRole("link", { name: "购买作品" }).click();
  await expect(page).toHaveURL(`/works/${id}?purchase=1`);
  await purchaseDialog(page).getByRole("button", { name: "确认购买" }).click();

  await expect(page).toHaveURL(`/works/${id}`);
  await expect(page.getByTestId("credits-balance")).toHaveText(String(before - 8));
  await page.getByTestId("toc-list").getByRole("link", { name: "第二章 付费" }).click();
  await expect(page.getByTestId("chapter-text")).toHaveText(`续章 ${secret}`);
});

test("a user without enough credits sees 积分余额不足 and is not charged", nojs, async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const secret = marker("secret");
  const id = await paidWork(author, secret, 30);

  await visit(`/works/${id}?purchase=1`);
  const dialog = purchaseDialog(page);
  await expect(dialog).toContainText("当前积分余额：0");
  await dialog.getByRole("button", { name: "确认购买" }).click();
  await expect(purchaseDialog(page).getByRole("alert")).toHaveText("积分余额不足");
  await expect(page.getByTestId("credits-balance")).toHaveText("0");
  expect(await page.content()).not.toContain(secret);

  // Closing the dialog leaves the locked work page.
  await purchaseDialog(page).getByRole("link", { name: "取消" }).click();
  await expect(purchaseDialog(page)).toHaveCount(0);
  await expect(page.getByTestId("paywall")).toBeVisible();
});

test("a visitor asked to buy gets the login dialog", nojs, async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await paidWork(author, marker("secret"), 5);
  await visit(`/works/${id}`);
  await page.getByTestId("paywall").getByRole("link", { name: "购买作品" }).click();
  await expectLoginDialog(page);
});

test("no route gives a non-buyer the text of a paid work", async ({ loggedInPage: page, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const secret = marker("secret");
  const id = await paidWork(author, secret, 5);
  const request = page.context().request;
  for (const path of [
    `/works/${id}`,
    `/works/${id}?chapter=1`,
    `/works/${id}?chapter=2&from=0`,
    `/works/${id}.data?chapter=1`,
    `/works/${id}/paragraphs?chapter=1&from=0`,
    `/work/${id}?chapter=1`,
  ]) {
    const response = await request.get(path);
    expect(await response.text(), path).not.toContain(secret);
  }
  expect((await request.get(`/works/${id}/paragraphs?chapter=1&from=0`)).status()).toBe(403);
  // A visitor neither.
  const visitor = await playwright.request.newContext({ baseURL });
  expect(await (await visitor.get(`/works/${id}?chapter=1`)).text()).not.toContain(secret);
  expect((await visitor.get(`/works/${id}/paragraphs?chapter=1`)).status()).toBe(403);
  await visitor.dispose();
  // The author reads it.
  expect(await (await author.request.get(`/works/${id}?chapter=1`)).text()).toContain(secret);
});

test("after a purchase in one tab, the balance in another tab updates live", async ({
  page,
  context,
  logInAs,
  visit,
  facts,
  playwright,
  baseURL,
}) => {
  const buyer = fundedBuyer(facts, 3);
  const author = await newAuthor(playwright, baseURL!);
  const id = await paidWork(author, marker("secret"), 12);
  await logInAs(context, buyer);

  const other = await context.newPage();
  const stream = other.waitForResponse((r) => new URL(r.url()).pathname === "/api/events");
  await visit("/purchased", other);
  expect((await stream).headers()["content-type"]).toBe("text/event-stream; charset=utf-8");
  await waitForLive(other);
  await expect(other.getByText("还没有购买的作品")).toBeVisible();
  const before = await shownBalance(other);

  await visit(`/works/${id}?purchase=1`);
  await purchaseDialog(page).getByRole("button", { name: "确认购买" }).click();
  await expect(page).toHaveURL(`/works/${id}`);

  // No reload in the other tab: the server's event refreshes it.
  await expect(other.getByTestId("credits-balance")).toHaveText(String(before - 12));
  await expect(other.getByTestId("library-card")).toHaveCount(1);
});
