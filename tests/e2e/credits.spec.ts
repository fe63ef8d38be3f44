import fs from "node:fs";
import path from "node:path";
import type { Page, TestInfo } from "@playwright/test";
import { runDir } from "./fixtures/facts";
import { expect, test, waitForLive } from "./fixtures";
import { marker, newAuthor, publishWork, setPrice } from "./reader-helpers";

const nojs = { tag: "@nojs" };

/** Redeem codes and the gateway the e2e seed made (tests/fakes/epay-gateway-config.ts). */
function paymentFacts(): { gatewayUrl: string; redeemCodes: string[]; redeemAmount: number } {
  const file = path.join(runDir(), "payments-facts.json");
  if (!fs.existsSync(file)) {
    throw new Error("payments-facts.json is missing: the e2e seed must call seedPaymentsForE2e (tests/fakes/epay-gateway-config.ts)");
  }
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/** Each test takes its own codes: slot n of this file, one set per project and repeat. */
function codeFor(testInfo: TestInfo, slot: number, which = 0): string {
  const codes = paymentFacts().redeemCodes;
  const index = (slot * 2 + which) * 2 + (testInfo.project.name === "chromium-nojs" ? 1 : 0) + 32 * testInfo.repeatEachIndex;
  if (slot > 7 || which > 1 || index >= codes.length) throw new Error("credits.spec.ts has run out of its redeem codes");
  return codes[index];
}

async function redeem(page: Page, code: string) {
  await page.getByRole("link", { name: "兑换码充值" }).click();
  const dialog = page.getByRole("dialog", { name: "兑换码充值" });
  await dialog.getByLabel("兑换码").fill(code);
  await dialog.getByRole("button", { name: "立即兑换" }).click();
}

test.describe("/credits", () => {
  test("redeems a code: the balance, the top bar and the history show it; the code cannot be used twice", nojs, async ({
    loggedInPage: page,
    visit,
  }, testInfo) => {
    const code = codeFor(testInfo, 0);
    await visit("/credits");
    await expect(page.getByRole("heading", { name: "我的积分" })).toBeVisible();
    await expect(page.getByTestId("credits-page-balance")).toHaveText("0");
    await expect(page.getByText("暂无积分记录")).toBeVisible();

    await redeem(page, code);

    await expect(page.getByRole("status")).toHaveText("兑换成功，获得 100 积分");
    await expect(page).toHaveURL(/\/credits$/);
    await expect(page.getByTestId("credits-page-balance")).toHaveText("100");
    await expect(page.getByTestId("credits-balance")).toHaveText("100");
    const row = page.getByTestId("credit-history").getByRole("row").nth(1);
    await expect(row).toContainText("兑换码充值");
    await expect(row.locator(".ledger-in")).toHaveText("+100");
    // The notice is shown once.
    await page.reload();
    await expect(page.getByRole("status")).toHaveCount(0);

    await redeem(page, code);
    await expect(page.getByRole("dialog").getByRole("alert")).toHaveText("兑换码已被使用");
    await expect(page.getByTestId("credits-page-balance")).toHaveText("100");
  });

  test("an empty or unknown code gets its message and changes nothing", nojs, async ({ loggedInPage: page, visit }) => {
    await visit("/credits?dialog=redeem");
    const dialog = page.getByRole("dialog", { name: "兑换码充值" });
    await dialog.getByRole("button", { name: "立即兑换" }).click();
    await expect(dialog.getByRole("alert")).toHaveText("请输入兑换码");
    await dialog.getByLabel("兑换码").fill("1000000001");
    await dialog.getByRole("button", { name: "立即兑换" }).click();
    await expect(dialog.getByRole("alert")).toHaveText("兑换码不存在");
    await dialog.getByRole("link", { name: "关闭" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page.getByTestId("credits-page-balance")).toHaveText("0");
  });

  test("exchanges credits for tokens: both balances and both histories move", nojs, async ({
    loggedInPage: page,
    visit,
    javaScriptEnabled,
  }, testInfo) => {
    await visit("/credits");
    await redeem(page, codeFor(testInfo, 1));
    await expect(page.getByTestId("credits-page-balance")).toHaveText("100");

    await page.getByRole("link", { name: "积分兑换 Tokens" }).click();
    const dialog = page.getByRole("dialog", { name: "积分兑换 Tokens" });
    const amount = dialog.getByLabel("兑换积分数量");
    const confirm = dialog.getByRole("button", { name: "确认兑换" });
    if (javaScriptEnabled) {
      // With JavaScript the confirm button follows the amount: 1 to the balance only.
      await expect(confirm).toBeDisabled();
      const preview = dialog.getByTestId("exchange-preview");
      // The reason beside the greyed-out button is the server's own message.
      for (const [bad, reason] of [
        ["0", "请输入有效的兑换数量（至少1积分的整数）"],
        ["-5", "请输入有效的兑换数量（至少1积分的整数）"],
        ["1.5", "请输入有效的兑换数量（至少1积分的整数）"],
        ["101", "兑换数量不能超过当前积分余额"],
      ]) {
        await amount.fill(bad);
        await expect(confirm, bad).toBeDisabled();
        await expect(preview, bad).toHaveText(reason);
      }
      await amount.fill("30");
      await expect(confirm).toBeEnabled();
      await expect(dialog.getByText("将获得 3.0K Tokens（3000）")).toBeVisible();
    } else {
      await amount.fill("30");
    }
    await confirm.click();

    await expect(page).toHaveURL(/\/credits\?tab=tokens$/);
    await expect(page.getByRole("status")).toHaveText("兑换成功：30 积分已兑换为 3.0K Tokens");
    await expect(page.getByTestId("credits-page-balance")).toHaveText("70");
    await expect(page.getByTestId("tokens-page-balance")).toHaveText("13.0K");
    await expect(page.getByRole("banner").getByText("Tokens 13.0K")).toBeVisible();
    const tokenRow = page.getByTestId("token-history").getByRole("row").nth(1);
    await expect(tokenRow).toContainText("积分兑换");
    await expect(tokenRow.locator(".ledger-in")).toHaveText("+3.0K");

    await page.getByRole("link", { name: "积分记录" }).click();
    const creditRow = page.getByTestId("credit-history").getByRole("row").nth(1);
    await expect(creditRow).toContainText("兑换Tokens");
    await expect(creditRow.locator(".ledger-out")).toHaveText("-30");
  });

  test("the server refuses bad exchange amounts whatever the page allows", nojs, async ({
    loggedInPage: page,
    visit,
  }) => {
    await visit("/credits?dialog=exchange");
    const dialog = page.getByRole("dialog", { name: "积分兑换 Tokens" });
    await expect(dialog).toBeVisible();
    // A hand-made request, past every check the page makes.
    const response = await page.request.post("/credits?dialog=exchange", {
      form: { intent: "exchange", amount: "5" },
      headers: { Origin: new URL(page.url()).origin },
    });
    expect(response.status()).toBe(400);
    expect(await response.text()).toContain("兑换数量不能超过当前积分余额");
    for (const amount of ["0", "-5", "1.5", "1e12", "abc"]) {
      const bad = await page.request.post("/credits?dialog=exchange", {
        form: { intent: "exchange", amount },
        headers: { Origin: new URL(page.url()).origin },
      });
      expect(bad.status(), amount).toBe(400);
      expect(await bad.text(), amount).toContain("请输入有效的兑换数量（至少1积分的整数）");
    }
    await page.reload();
    await expect(dialog).toBeVisible();
    await expect(page.getByTestId("credits-page-balance")).toHaveText("0");
  });

  test("pages the history 10 rows at a time, newest first", async ({ loggedInPage: page, visit }, testInfo) => {
    await visit("/credits");
    // 2 redeems and 10 small exchanges: 12 credit rows.
    await redeem(page, codeFor(testInfo, 2, 0));
    await expect(page.getByTestId("credits-page-balance")).toHaveText("100");
    for (let i = 0; i < 10; i++) {
      const response = await page.request.post("/credits?dialog=exchange", {
        form: { intent: "exchange", amount: String(i + 1) },
        headers: { Origin: new URL(page.url()).origin },
        maxRedirects: 0,
      });
      expect(response.status()).toBe(302);
    }
    await visit("/credits");
    const rows = page.getByTestId("credit-history").locator("tbody tr");
    await expect(rows).toHaveCount(10);
    await expect(rows.first().locator(".ledger-out")).toHaveText("-10");
    await page.getByRole("navigation", { name: "分页" }).getByRole("link", { name: "2" }).click();
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("兑换码充值");
  });

  test("a balance change made elsewhere shows up live in another page", async ({ loggedInPage: page, context, visit }, testInfo) => {
    await visit("/credits");
    const other = await context.newPage();
    await visit("/following", other);
    await waitForLive(other);
    await expect(other.getByTestId("credits-balance")).toHaveText("0");

    await redeem(page, codeFor(testInfo, 3));
    await expect(page.getByTestId("credits-page-balance")).toHaveText("100");

    // No reload: the server's event makes the other page fetch its data again.
    await expect(other.getByTestId("credits-balance")).toHaveText("100");
    await visit("/credits", other);
    await waitForLive(other);
    await page.getByRole("link", { name: "积分兑换 Tokens" }).click();
    await page.getByLabel("兑换积分数量").fill("40");
    await page.getByRole("button", { name: "确认兑换" }).click();
    await expect(other.getByTestId("credits-page-balance")).toHaveText("60");
    await expect(other.getByTestId("credit-history").locator("tbody tr").first()).toContainText("兑换Tokens");
    await other.close();
  });
});

test("去充值 in a purchase short of credits leads to /credits and back to the purchase after a redeem", nojs, async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}, testInfo) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, {
    title: `充值 ${marker("topup")}`,
    chapters: [{ title: "第一章", paragraphs: ["付费正文"] }],
  });
  await setPrice(author, id, 30);

  await visit(`/works/${id}?purchase=1`);
  const purchase = page.getByRole("dialog", { name: "购买作品" });
  await expect(purchase).toContainText("当前积分余额：0");
  await purchase.getByRole("link", { name: "去充值" }).click();
  await expect(page.getByRole("heading", { name: "我的积分" })).toBeVisible();
  await expect(page.getByText("充值完成后将回到你刚才的页面。")).toBeVisible();

  await redeem(page, codeFor(testInfo, 4));
  await expect(page).toHaveURL(new RegExp(`/works/${id}\\?purchase=1$`));
  // Back on the work, the page says what happened.
  await expect(page.getByRole("status").filter({ hasText: "兑换成功，获得 100 积分" })).toBeVisible();
  await expect(purchase).toContainText("当前积分余额：100");
  await expect(purchase.getByRole("link", { name: "去充值" })).toHaveCount(0);
  await purchase.getByRole("button", { name: "确认购买" }).click();
  await expect(page.getByTestId("credits-balance")).toHaveText("70");
});

